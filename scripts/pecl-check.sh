#!/usr/bin/env bash
# The PECL/PIE build path, end to end, from a clean copy of the repository:
#   phpize && ./configure --with-php-config=… && make && make install INSTALL_ROOT=<tmp>
# then the installed module is loaded with `php -n -d extension=…`: `--ri phpclaw` must answer
# (built for this php-config's PHP) and one native tool call must work. cargo's build must have
# asked the php-config given to configure, a second `make` must not run cargo (so `sudo make
# install` never needs it), and `make clean` must empty modules/.
# Exits non-zero on the first failure.
#
#   scripts/pecl-check.sh
#
# Environment:
#   PHP_CONFIG        php-config of the PHP to build for (default: php-config on PATH)
#   PHPIZE            phpize to use (default: the phpize beside PHP_CONFIG, same suffix)
#   PECL_CHECK_SOURCE `head` (default): the committed tree, as `git archive HEAD` gives it
#                     (what PIE downloads); `worktree`: the tracked files as they are now
#   CARGO_TARGET_DIR  cargo's target folder. Default: a cache outside the copy,
#                     /var/cache/phpclaw/target-pecl/<php version>-<nts|zts> (or under
#                     ~/.cache when /var/cache is not writable), so a warm run rebuilds only
#                     this crate, not its dependencies.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
php_config="${PHP_CONFIG:-php-config}"
php_config="$(command -v "$php_config")" || { echo "pecl-check: no php-config ($php_config)" >&2; exit 1; }
# Its real file (Debian: /usr/bin/php-config -> php-config8.2): the phpize beside it has the
# same suffix, and the target folder's key stays the same however it is named.
php_config="$(readlink -f "$php_config")"
if [ -z "${PHPIZE:-}" ]; then
    base="$(basename "$php_config")"
    PHPIZE="$(dirname "$php_config")/${base/php-config/phpize}"
    [ -x "$PHPIZE" ] || PHPIZE="$(command -v phpize)"
fi
php="$("$php_config" --php-binary)"
version="$("$php_config" --version)"
ext_dir="$("$php_config" --extension-dir)"
zts="$("$php" -n -r 'echo PHP_ZTS ? "zts" : "nts";')"

if [ -z "${CARGO_TARGET_DIR:-}" ]; then
    cache=/var/cache/phpclaw
    if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
        cache="${XDG_CACHE_HOME:-$HOME/.cache}/phpclaw"
    fi
    CARGO_TARGET_DIR="$cache/target-pecl/$version-$zts"
fi
export CARGO_TARGET_DIR
mkdir -p "$CARGO_TARGET_DIR"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/phpclaw-pecl.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
src="$tmp/phpclaw"
install_root="$tmp/root"
mkdir -p "$src" "$install_root"

started=$SECONDS
step_started=$SECONDS
log="$tmp/step.log"
fail() {
    echo "pecl-check: FAILED: $*" >&2
    if [ -s "$log" ]; then
        echo "---- last output ----" >&2
        tail -n 40 "$log" >&2
    fi
    exit 1
}
# step NAME COMMAND…: run quietly into the log, report the time it took.
step() {
    local name=$1
    shift
    step_started=$SECONDS
    if ! "$@" >"$log" 2>&1; then
        fail "$name"
    fi
    printf 'pecl-check: %-58s %4ds\n' "$name" $((SECONDS - step_started))
}

echo "pecl-check: PHP $version ($zts), php-config $php_config, phpize $PHPIZE"
echo "pecl-check: cargo target folder $CARGO_TARGET_DIR"

case "${PECL_CHECK_SOURCE:-head}" in
    head) step "copy (git archive HEAD)" bash -c 'git -C "$1" archive --format=tar HEAD | tar -x -C "$2"' _ "$root" "$src" ;;
    worktree) step "copy (tracked files of the worktree)" bash -c \
        'cd "$1" && git ls-files -z | xargs -0 cp --parents -t "$2"' _ "$root" "$src" ;;
    *) fail "PECL_CHECK_SOURCE must be head or worktree" ;;
esac

# configure is given a php-config that notes each call, so the check can see that cargo's
# build (ext-php-rs's build script, build.rs) asked that php-config and not the one on PATH.
# It lives at a fixed path beside the target folder: a new path each run would make cargo
# rebuild ext-php-rs (its build script reruns when PHP_CONFIG changes).
shim="$CARGO_TARGET_DIR/pecl-check-php-config"
calls="$tmp/php-config-calls"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"${PHPCLAW_PECL_CHECK_CALLS:-/dev/null}"\nexec "%s" "$@"\n' "$php_config" >"$shim.new"
chmod +x "$shim.new"
cmp -s "$shim.new" "$shim" 2>/dev/null && rm -f "$shim.new" || mv -f "$shim.new" "$shim"
export PHPCLAW_PECL_CHECK_CALLS="$calls"

cd "$src"
step "phpize" "$PHPIZE"
step "./configure --with-php-config=<noting $(basename "$php_config")>" ./configure --with-php-config="$shim"
grep -qx "PHPCLAW_PHP_CONFIG = $shim" Makefile || fail "configure did not record the php-config it was given"
rm -f "$calls"
jobs="$(nproc 2>/dev/null || echo 2)"
step "make -j$jobs (cargo build --release)" make -j"$jobs"
[ -f modules/phpclaw.so ] || fail "make left no modules/phpclaw.so"
grep -qx -- "--includes" "$calls" 2>/dev/null || fail "cargo's build never asked the given php-config for --includes"
step "make again (nothing to do)" make
if grep -q "cargo build" "$log"; then
    fail "a second make ran cargo again (make install would too)"
fi

real_before="$(stat -c '%Y %s' "$ext_dir/phpclaw.so" 2>/dev/null || echo absent)"
step "make install INSTALL_ROOT=<tmp>" make install INSTALL_ROOT="$install_root"
installed="$install_root$ext_dir/phpclaw.so"
[ -f "$installed" ] || fail "make install put no phpclaw.so in INSTALL_ROOT$ext_dir"
cmp -s "$installed" modules/phpclaw.so || fail "the installed module differs from modules/phpclaw.so"
real_after="$(stat -c '%Y %s' "$ext_dir/phpclaw.so" 2>/dev/null || echo absent)"
[ "$real_before" = "$real_after" ] || fail "make install INSTALL_ROOT=… touched $ext_dir itself"
extra="$(cd "$install_root$ext_dir" && ls -A | grep -vx phpclaw.so || true)"
[ -z "$extra" ] || fail "make install also installed: $extra"

step "php -n -d extension=<installed> --ri phpclaw" "$php" -n -d extension="$installed" --ri phpclaw
grep -q "^phpclaw support => enabled" "$log" || fail "--ri phpclaw does not say the module is enabled"
grep -qx "Built for => $version" "$log" || fail "--ri phpclaw: not built for PHP $version (php-config not handed to cargo?)"

workspace="$tmp/workspace"
mkdir -p "$workspace"
printf 'hello from the PECL build\n' >"$workspace/note.txt"
# shellcheck disable=SC2016 # PHP code, expanded by PHP
call='$tool = new PhpClaw\Tools\FileReadTool($argv[1]);
$envelope = json_decode($tool->execute(["path" => "note.txt"]), true, 512, JSON_THROW_ON_ERROR);
echo $envelope["data"]["content"] ?? "no content: " . json_encode($envelope);'
step "one native tool call (file_read)" "$php" -n -d extension="$installed" -r "$call" "$workspace"
grep -qx "hello from the PECL build" "$log" || fail "file_read did not return the file's content"

step "make clean" make clean
[ -z "$(ls -A modules 2>/dev/null)" ] || fail "make clean left files in modules/: $(ls -A modules)"

echo "pecl-check: OK in $((SECONDS - started))s (PHP $version $zts)"
