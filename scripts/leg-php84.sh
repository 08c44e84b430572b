#!/bin/bash
# The PHP 8.4 NTS leg of the PHP matrix: build the module against Debian 13's PHP 8.4 and run
# the whole PHP suite under Debian 13's PHPUnit (11), in a Debian 13 (trixie) root that this
# script makes itself (mmdebstrap, from Debian's packages) and keeps under /var/cache/phpclaw.
#
#   scripts/leg-php84.sh            (as root)
#   scripts/leg-php84.sh --exec CMD [ARG…]
#                                   (as root) run CMD in the root, in this checkout's copy
#                                   there, with the same mounts and environment; the root must
#                                   have been made (no build, no tests, no database; the release
#                                   module the leg built is $IN_TARGET/release/libphpclaw.so)
#
# A second run reuses the root and the cargo target folder; the root is made again when the
# package list below changes (the list is kept in a stamp file inside it). The host's cargo
# and rustup (CARGO_HOME, RUSTUP_HOME; default ~/.cargo, ~/.rustup) and this checkout are
# bind-mounted read-only; the mounts live in a private mount namespace and are undone on exit.
# The db_query tests use the MariaDB server named by PHPCLAW_MYSQL_DSN/_USER/_PASSWORD (the
# root shares the host's network); without one, a throw-away server is started on the host.
# Environment: PHPCLAW_CACHE (default /var/cache/phpclaw), DEBIAN_MIRROR (default
# http://deb.debian.org/debian). Extra arguments go to phpunit (php-tests/run.sh).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${PHPCLAW_CACHE:-/var/cache/phpclaw}"
CHROOT="$CACHE/trixie"
TARGET="$CACHE/target-php84"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE=trixie
STAMP="$CHROOT/.phpclaw-packages"
CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"

# What the build and the suite need inside the root: PHP 8.4 and PHPUnit, clang and libclang
# for ext-php-rs's bindgen, and the programs the tests run (chattr from e2fsprogs makes files
# immutable for the failed-write tests; mount gives the full-disk tests their small tmpfs,
# mounted in this script's private mount namespace).
PACKAGES=(php8.4-cli php8.4-dev php8.4-sqlite3 php8.4-mysql php8.4-opcache phpunit
          clang libclang-dev gcc libc6-dev ca-certificates git gawk tree file ripgrep unzip
          python3 openssl sqlite3 procps e2fsprogs mount)

# Where the host's folders appear inside the root.
IN_REPO=/work/phpclaw
IN_CARGO=/opt/cargo
IN_RUSTUP=/opt/rustup
IN_TARGET=/opt/target

log() { echo "leg-php84: $*"; }
# Prints "<what>: Ns" for a step started at $1 (seconds since the epoch).
took() { log "$2: $(($(date +%s) - $1))s"; }

# True when anything is mounted at or below the root (in this mount namespace).
mounted_below() {
    awk -v r="$1" '$2 == r || index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/mounts
}

make_root() {
    local want
    want="$(printf '%s\n' "suite $SUITE" "mirror $MIRROR" "${PACKAGES[@]}")"
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
        log "reusing the Debian 13 root at $CHROOT"
        return
    fi
    if ! command -v mmdebstrap >/dev/null; then
        log "installing mmdebstrap on the host"
        # Waits for the dpkg lock when another apt-get runs.
        apt-get -o DPkg::Lock::Timeout=600 update -qq
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
            mmdebstrap >/dev/null
    fi
    local t0 new="$CHROOT.new"
    t0="$(date +%s)"
    for dir in "$CHROOT" "$new"; do
        if mounted_below "$dir"; then
            log "something is still mounted below $dir; refusing to replace it" >&2
            exit 1
        fi
    done
    log "making the Debian 13 root at $CHROOT (mmdebstrap from $MIRROR)"
    mkdir -p "$CACHE"
    rm -rf "$new"
    local include
    include="$(IFS=,; echo "${PACKAGES[*]}")"
    # In a private mount namespace: what mmdebstrap mounts inside the new root (/proc, /sys,
    # /dev/pts) goes away with it, even when it is killed half-way.
    unshare --mount --propagation private \
        mmdebstrap --quiet --mode=root --variant=apt --include="$include" \
        "$SUITE" "$new" "deb $MIRROR $SUITE main"
    printf '%s\n' "$want" >"$new/.phpclaw-packages"
    rm -rf "$CHROOT"
    mv "$new" "$CHROOT"
    took "$t0" "root made"
}

# Inside a private mount namespace (see the end of the file): mounts what the root needs and
# defines inside(), which runs a command in the root with the leg's environment.
MOUNTS=()
ENVS=()
mount_root() {
    cleanup() {
        local i
        for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
            umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}" || true
        done
    }
    trap cleanup EXIT
    # mnt SOURCE DEST [ro] [fstype]: a bind mount (or a filesystem of FSTYPE), recorded for cleanup.
    mnt() {
        local src="$1" dest="$CHROOT$2" ro="${3:-}" type="${4:-}"
        mkdir -p "$dest"
        if [ -n "$type" ]; then
            mount -t "$type" "$src" "$dest"
        else
            mount --bind "$src" "$dest"
        fi
        MOUNTS+=("$dest")
        if [ "$ro" = ro ]; then mount -o remount,bind,ro "$dest"; fi
    }
    mnt proc /proc "" proc
    mnt /sys /sys ro
    mnt /dev /dev
    mnt /dev/pts /dev/pts
    mnt tmpfs /tmp "" tmpfs
    mnt "$REPO" "$IN_REPO" ro
    mnt "$CARGO_HOME" "$IN_CARGO" ro
    mnt "$RUSTUP_HOME" "$IN_RUSTUP" ro
    mnt "$TARGET" "$IN_TARGET"
    chmod 1777 "$CHROOT/tmp"
    cp /etc/resolv.conf "$CHROOT/etc/resolv.conf" 2>/dev/null || true

    local toolchain
    toolchain="$(cd "$REPO" && rustup show active-toolchain 2>/dev/null | awk '{print $1; exit}')"
    # Global, not local: inside() runs after this function has returned.
    ENVS=(
        PATH="$IN_CARGO/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}"
        CARGO_HOME="$IN_CARGO" RUSTUP_HOME="$IN_RUSTUP" CARGO_TARGET_DIR="$IN_TARGET"
        RUSTUP_TOOLCHAIN="${toolchain:-stable}"
        PHP_CONFIG=/usr/bin/php-config8.4 PHP=/usr/bin/php8.4 PHPUNIT=/usr/bin/phpunit
        PHPCLAW_MYSQL_DSN="${PHPCLAW_MYSQL_DSN:-}"
        PHPCLAW_MYSQL_USER="${PHPCLAW_MYSQL_USER:-}"
        PHPCLAW_MYSQL_PASSWORD="${PHPCLAW_MYSQL_PASSWORD:-}"
    )
    inside() { chroot "$CHROOT" /usr/bin/env -i "${ENVS[@]}" "$@"; }
}

# Runs inside a private mount namespace: mounts, builds, tests.
in_namespace() {
    mount_root
    local t0
    t0="$(date +%s)"
    inside sh -c "cd $IN_REPO && cargo build --release --locked --quiet"
    took "$t0" "build (release, PHP $(inside php8.4 -r 'echo PHP_VERSION;'))"

    t0="$(date +%s)"
    local status=0 out="$TARGET/phpunit-output.txt"
    inside sh -c "cd $IN_REPO && php-tests/run.sh $IN_TARGET/release/libphpclaw.so \"\$@\"" run "$@" \
        2>&1 | tee "$out" || status=$?
    took "$t0" "tests"
    log "PHPUnit summary ($(inside php8.4 /usr/bin/phpunit --version | awk '/^PHPUnit/ { print $1, $2; exit }'), PHP 8.4):"
    grep -E '^(OK|Tests:|FAILURES!|ERRORS!|WARNINGS!|No tests executed)' "$out" | sed 's/^/    /' || true
    return "$status"
}

if [ "${1:-}" = --in-namespace ]; then
    shift
    in_namespace "$@"
    exit $?
fi
if [ "${1:-}" = --in-namespace-exec ]; then
    shift
    mount_root
    # shellcheck disable=SC2016
    inside sh -c 'cd "$0" && exec "$@"' "$IN_REPO" "$@"
    exit $?
fi
EXEC=0
if [ "${1:-}" = --exec ]; then
    shift
    [ $# -gt 0 ] || { echo "leg-php84: --exec needs a command" >&2; exit 2; }
    EXEC=1
fi

if [ "$(id -u)" != 0 ]; then
    echo "leg-php84: run as root (it makes a Debian root and mounts into it)" >&2
    exit 1
fi
started="$(date +%s)"
mkdir -p "$CACHE"
# One run at a time uses (or replaces) the root and the target folder.
exec 9>"$CACHE/leg-php84.lock"
if ! flock -n 9; then
    log "waiting for $CACHE/leg-php84.lock (another run uses the root)" >&2
    flock 9
fi
if [ "$EXEC" = 1 ]; then
    if [ ! -f "$STAMP" ]; then
        log "no Debian 13 root at $CHROOT yet: run scripts/leg-php84.sh first" >&2
        exit 1
    fi
    mkdir -p "$TARGET"
    unshare --mount --propagation private /bin/bash "${BASH_SOURCE[0]}" --in-namespace-exec "$@"
    exit $?
fi
make_root
mkdir -p "$TARGET"
if [ -z "${PHPCLAW_MYSQL_DSN:-}" ]; then
    # shellcheck source=scripts/common.sh
    source "$REPO/scripts/common.sh"
    start_mariadb
fi
# The root sees CARGO_HOME read-only: fetch what Cargo.lock names on the host first.
(cd "$REPO" && PATH="$CARGO_HOME/bin:$PATH" cargo fetch --locked --quiet)
status=0
unshare --mount --propagation private /bin/bash "${BASH_SOURCE[0]}" --in-namespace "$@" || status=$?
took "$started" "total"
exit "$status"
