#!/usr/bin/env bash
# The PHP 8.2 ZTS leg: a thread-safe PHP 8.2 built from Debian 12's own php8.2 source package,
# the module built against it, and the PHP suite run on it.
#   scripts/leg-zts.sh [phpunit options…]
# Run as root on Debian 12. Idempotent: the PHP build is cached under /var/cache/phpclaw and
# rebuilt only when the source version or the configure line changes (a stamp records both);
# the module's cargo target dir is cached there too. Prints each step's time.
# PHPCLAW_ZTS_CACHE (else PHPCLAW_CACHE, else /var/cache/phpclaw) moves that cache, e.g. to
# prove the build from nothing beside a warm cache.
source "$(dirname "$0")/common.sh"

CACHE="${PHPCLAW_ZTS_CACHE:-${PHPCLAW_CACHE:-/var/cache/phpclaw}}"
PREFIX=$CACHE/php8.2-zts
BUILD=$CACHE/php8.2-zts-build
TARGET=$CACHE/target-zts
APTDIR=$CACHE/apt-src
STAMP=$PREFIX/.phpclaw-stamp
# What the suite and PHPUnit 9.6 need and nothing more (no iconv, openssl, zlib, phar or
# fileinfo: neither uses them). OPcache (always shared in 8.2) is for the preload test,
# without its JIT; pcntl and posix for the process tests; mbstring, which only PHPUnit
# wants, is added as a shared extension (build_mbstring).
CONFIGURE=(--prefix="$PREFIX" --enable-zts --disable-all --enable-cli
    --disable-cgi --disable-phpdbg --without-pear --without-valgrind --enable-opcache
    --disable-opcache-jit --enable-ctype --enable-filter --enable-tokenizer --with-libxml
    --enable-dom --enable-xml --enable-simplexml --enable-xmlwriter --enable-pdo --with-sqlite3
    --with-pdo-sqlite --enable-mysqlnd --with-pdo-mysql=mysqlnd --enable-posix --enable-pcntl)
# -O1 without debug info: about half the compile time of Debian's -O2 -g on this machine.
CFLAGS_ZTS="-O1 -g0"
# Build dependencies of that configure line (the package's full Build-Depends pull in far more).
BUILD_DEPS=(build-essential dpkg-dev autoconf bison re2c pkg-config libtool libxml2-dev
    libsqlite3-dev libonig-dev)

[ "$(id -u)" = 0 ] || { echo "leg-zts: run as root" >&2; exit 1; }
LEG_T0=$(date +%s)
step() {
    local name=$1 t0 rc=0
    shift
    t0=$(date +%s)
    echo "== leg-zts: $name"
    "$@" || rc=$?
    echo "== leg-zts: $name: $(($(date +%s) - t0))s"
    return $rc
}

install_missing() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "leg-zts: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# apt options for source look-ups: the host's own configuration when it has a deb-src entry,
# otherwise a private sources list and lists folder under $APTDIR (the host's apt is untouched).
APT_SRC=()
apt_sources() {
    if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        return
    fi
    mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial"
    cat >"$APTDIR/sources.list" <<'EOF'
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
EOF
    APT_SRC=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=$APTDIR/none"
        -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache::Archives=$APTDIR/archives"
        -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
    # Refreshed at most once a day.
    if [ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Sources*' -mtime -1 2>/dev/null)" ]; then
        apt-get "${APT_SRC[@]}" update -qq
    fi
}

# The newest php8.2 source package the sources offer whose files can be fetched (a mirror may
# list a security update it does not carry), downloaded once into $APTDIR/src (kept there).
fetch_source() {
    local v
    mkdir -p "$APTDIR/src"
    for v in $(apt-cache "${APT_SRC[@]}" showsrc php8.2 \
            | awk '/^Package: /{p=$2} /^Version: /{if (p=="php8.2") print $2}' | sort -rV); do
        if (cd "$APTDIR/src" && apt-get "${APT_SRC[@]}" source --download-only -qq "php8.2=$v" \
                >/dev/null 2>&1); then
            VERSION=$v
            return
        fi
        echo "leg-zts: php8.2 $v cannot be fetched, trying an older one"
    done
    echo "leg-zts: no php8.2 source package could be fetched" >&2
    return 1
}

build_php() {
    rm -rf "$BUILD" "$PREFIX"
    mkdir -p "$BUILD"
    local src=$BUILD/src
    # apt-get checked the files against the signed Sources index when it fetched them.
    dpkg-source --no-check -x "$APTDIR/src/php8.2_${VERSION#*:}.dsc" "$src" >/dev/null
    cd "$src"
    # Debian's patches touch configure.ac and config.m4 files: regenerate configure.
    PHP_AUTOCONF=autoconf PHP_AUTOHEADER=autoheader ./buildconf --force >/dev/null
    CFLAGS="$CFLAGS_ZTS" nice -n 10 ./configure "${CONFIGURE[@]}" >"$BUILD/configure.log" 2>&1 \
        || { tail -n 30 "$BUILD/configure.log" >&2; return 1; }
    # PHP's libtool compiles every file twice (PIC for shared objects, non-PIC for the CLI,
    # and --enable-static=no does not reach it): compile once, PIC, and link the CLI from
    # the .lo files, which libtool maps to the PIC objects. Halves the build time.
    sed -i 's/^build_old_libs=yes$/build_old_libs=no/' libtool
    sed -i '/^BUILD_CLI = /s/\$(\([A-Z_]*\):\.lo=\.o)/$(\1)/g' Makefile
    nice -n 10 make -j2 >"$BUILD/make.log" 2>&1 || { tail -n 40 "$BUILD/make.log" >&2; return 1; }
    make install >"$BUILD/install.log" 2>&1 || { tail -n 20 "$BUILD/install.log" >&2; return 1; }
    build_mbstring "$src/ext/mbstring"
    printf '%s\n' "$WANT_STAMP" >"$STAMP"
    cd "$ROOT"
    rm -rf "$BUILD"
}

# mbstring, which PHPUnit 9.6 refuses to run without, as a shared extension built the PECL way
# (phpize) and loaded by the build's php.ini: the suite itself needs none of it. Debian's
# phpize looks for libtool's m4 files under its own prefix; they are the system's.
build_mbstring() {
    local dir=$1
    sed 's#^aclocaldir=.*#aclocaldir="/usr/share/aclocal"#' "$PREFIX/bin/phpize" >"$BUILD/phpize"
    chmod +x "$BUILD/phpize"
    (cd "$dir" && "$BUILD/phpize" >"$BUILD/mbstring.log" 2>&1 \
        && CFLAGS="$CFLAGS_ZTS" nice -n 10 ./configure --with-php-config="$PREFIX/bin/php-config" \
            --enable-mbstring >>"$BUILD/mbstring.log" 2>&1 \
        && sed -i 's/^build_old_libs=yes$/build_old_libs=no/' libtool \
        && nice -n 10 make -j2 >>"$BUILD/mbstring.log" 2>&1 \
        && make install >>"$BUILD/mbstring.log" 2>&1) \
        || { tail -n 30 "$BUILD/mbstring.log" >&2; return 1; }
    # As Debian's own php.ini: traces without arguments (a test serialises an exception,
    # which fails on an object argument in PHPUnit's frames, under any PHP).
    printf 'extension=mbstring\nzend.exception_ignore_args=On\n' >"$PREFIX/lib/php.ini"
}

ensure_php() {
    if [ -x "$PREFIX/bin/php" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$WANT_STAMP" ]; then
        echo "leg-zts: reusing $PREFIX ($VERSION)"
        return
    fi
    build_php
}

build_module() {
    # ext-php-rs reads the headers through PHP_CONFIG but asks the `php` binary (PHP, else
    # PATH) whether it is thread-safe: both must name the ZTS build.
    (cd "$ROOT" && PHP="$PREFIX/bin/php" PHP_CONFIG="$PREFIX/bin/php-config" CARGO_TARGET_DIR="$TARGET" \
        nice -n 10 cargo build --quiet)
}

run_suite() {
    local log=$CACHE/leg-zts-phpunit.log status=0
    PHP="$PREFIX/bin/php" PHPUNIT=/usr/bin/phpunit PHPCLAW_REQUIRE_MYSQL=1 \
        "$ROOT/php-tests/run.sh" "$TARGET/debug/libphpclaw.so" "$@" >"$log" 2>&1 || status=$?
    # The failures in full, then each pass's summary line.
    sed -n '/^There w[ae][sr]e* [0-9]* \(failure\|error\)/,/^\(FAILURES\|Tests:\|OK\)/p' "$log"
    grep -E '^(OK \(|Tests: |No tests executed)' "$log" | sed 's/^/leg-zts: PHPUnit: /'
    echo "leg-zts: full PHPUnit output in $log"
    # PHPUnit refusing to start (a missing extension) prints no summary and may exit 0.
    if ! grep -qE '^(OK \(|Tests: )' "$log"; then
        head -n 20 "$log" >&2
        return 1
    fi
    return $status
}

mkdir -p "$CACHE"
step "tools and build dependencies" eval 'setup; install_missing "${BUILD_DEPS[@]}"'
VERSION=
step "php8.2 source package" eval 'apt_sources; fetch_source'
WANT_STAMP="php8.2 $VERSION CFLAGS=$CFLAGS_ZTS configure ${CONFIGURE[*]} +mbstring(phpize) +ini(exception_ignore_args)"
echo "leg-zts: php8.2 source $VERSION"
step "thread-safe PHP under $PREFIX" ensure_php
"$PREFIX/bin/php" -v | head -n1
"$PREFIX/bin/php" -r 'exit(PHP_ZTS ? 0 : 1);' || { echo "leg-zts: $PREFIX/bin/php is not thread-safe" >&2; exit 1; }
step "module against $PREFIX/bin/php-config" build_module
step "MariaDB" start_mariadb
status=0
step "PHP suite (ZTS)" run_suite "$@" || status=$?
echo "== leg-zts: total $(($(date +%s) - LEG_T0))s, suite exit $status"
exit $status
