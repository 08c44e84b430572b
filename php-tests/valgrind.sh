#!/bin/sh
# Run the lifecycle tests (and the other in-process suites named on the command line) under
# valgrind with PHP's allocator off, and fail on any invalid read or write.
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
status=0
for test in "$@"; do
    case "$test" in
        /*) path=$test ;;
        *) path=$here/$test ;;
    esac
    echo "== $path"
    PHPCLAW_MODULE=$module USE_ZEND_ALLOC=0 ZEND_DONT_UNLOAD_MODULES=1 \
        valgrind --error-exitcode=99 --leak-check=no --track-origins=yes --num-callers=30 \
        --log-file="$log" \
        php -d extension="$module" -d memory_limit=-1 -d pcre.jit=0 /usr/bin/phpunit -c "$here/phpunit.xml" "$path"
    rc=$?
    if grep -Eq "Invalid (read|write|free)|Conditional jump|uninitialised|Mismatched free|Process terminating" "$log"; then
        echo "valgrind.sh: memory errors in $test:" >&2
        grep -E -A12 "Invalid (read|write|free)|Conditional jump|uninitialised|Mismatched free|Process terminating" "$log" | head -200 >&2
        status=1
    elif [ "$rc" -ne 0 ]; then
        echo "valgrind.sh: $test exited with $rc (99 = valgrind errors)" >&2
        grep -E "ERROR SUMMARY" "$log" >&2
        status=1
    else
        grep -E "ERROR SUMMARY" "$log"
    fi
done
rm -f "$log"
[ "$status" -eq 0 ] && echo "valgrind.sh: no invalid reads or writes"
exit "$status"
