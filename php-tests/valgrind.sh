#!/bin/sh
# Run the lifecycle tests (and the other in-process suites named on the command line) under
# valgrind with PHP's allocator off, and fail on any invalid read or write and on any block lost
# whose allocation passed through the module (valgrind.supp excepts the one-time registration at
# start-up). PHP objects still alive when PHPUnit exits are reported lost as well (the engine
# frees their contents, not their memory, at shutdown); those are PHPUnit's and PHP's own (an
# empty test loses one, a pure-PHP test of Reflection constants three), so they are counted and
# printed, not failed on. Refcount leaks of PHP values are caught by MemoryTest instead.
#   php-tests/valgrind.sh [path-to-.so] [test file…]
# Default module: target/debug/libphpclaw.so; default tests: LifecycleTest.php.
# PCRE JIT is off: its SIMD reads past string ends are valgrind false positives.
# Exit status: 0 clean, 1 invalid accesses or test failures found, 2 setup problem.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
module=$root/target/debug/libphpclaw.so
case "${1:-}" in
    ''|-*|*.php) ;;
    *.so) module=$1; shift ;;
    *) if [ -f "$1" ]; then module=$1; shift; fi ;;
esac
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind.sh: valgrind is not installed" >&2
    exit 2
fi
if [ ! -f "$module" ]; then
    echo "valgrind.sh: no module at $module" >&2
    exit 2
fi
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
[ $# -eq 0 ] && set -- LifecycleTest.php
log=$(mktemp "${TMPDIR:-/tmp}/phpclaw-valgrind.XXXXXX")
# The loss records of the last run whose allocation stack names the module.
ours() {
    awk '/lost in loss record/ { rec = $0 "\n"; on = 1; next }
         on && /^==[0-9]+== *$/ { if (rec ~ /libphpclaw/) printf "%s", rec; on = 0; next }
         on { rec = rec $0 "\n" }' "$log"
}
status=0
for test in "$@"; do
    case "$test" in
        /*) path=$test ;;
        *) path=$here/$test ;;
    esac
    echo "== $path"
    PHPCLAW_MODULE=$module USE_ZEND_ALLOC=0 ZEND_DONT_UNLOAD_MODULES=1 \
        valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=none --suppressions="$here/valgrind.supp" \
        --track-origins=yes --num-callers=30 --child-silent-after-fork=yes --log-file="$log" \
        php -d extension="$module" -d memory_limit=-1 -d pcre.jit=0 /usr/bin/phpunit -c "$here/phpunit.xml" "$path"
    rc=$?
    errors="Invalid (read|write|free)|Conditional jump|uninitialised|Mismatched free|Process terminating"
    leaks=$(ours)
    if grep -Eq "$errors" "$log"; then
        echo "valgrind.sh: memory errors in $test:" >&2
        grep -E -A16 "$errors" "$log" | head -200 >&2
        status=1
    elif [ -n "$leaks" ]; then
        echo "valgrind.sh: $test lost memory the module allocated:" >&2
        printf '%s' "$leaks" | head -300 >&2
        status=1
    elif [ "$rc" -ne 0 ]; then
        echo "valgrind.sh: $test exited with $rc (99 = valgrind errors)" >&2
        grep -E "ERROR SUMMARY" "$log" >&2
        status=1
    else
        grep -E "ERROR SUMMARY|definitely lost:|indirectly lost:" "$log"
    fi
done
rm -f "$log"
[ "$status" -eq 0 ] && echo "valgrind.sh: no invalid accesses, no leaks"
exit "$status"
