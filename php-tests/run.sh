#!/bin/sh
# Run the PHP test suite against a phpclaw module.
#   php-tests/run.sh [path-to-.so] [phpunit options…]
# Default module: target/debug/libphpclaw.so. PHP and PHPUNIT name the PHP binary and the
# PHPUnit script to use (default: php on PATH, /usr/bin/phpunit; PHPUnit 9.6 or 10+). Extra
# options go to phpunit, e.g.
#   php-tests/run.sh target/release/libphpclaw.so --filter Lifecycle
#   php-tests/run.sh php-tests/LifecycleTest.php
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
module=$root/target/debug/libphpclaw.so
# The first argument is the module when it names a .so (or any file that is not a test).
case "${1:-}" in
    ''|-*|*.php) ;;
    *.so) module=$1; shift ;;
    *) if [ -f "$1" ]; then module=$1; shift; fi ;;
esac
if [ ! -f "$module" ]; then
    echo "run.sh: no module at $module (build it with: cargo build)" >&2
    exit 2
fi
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
PHPCLAW_MODULE=$module
export PHPCLAW_MODULE
php=${PHP:-php}
phpunit=${PHPUNIT:-/usr/bin/phpunit}
# phpunit.xml is for PHPUnit 9.6 (Debian 12), phpunit11.xml for PHPUnit 10 and later (Debian 13
# ships 11): no one file is valid for both. The tests themselves are the same for both.
version=$("$php" "$phpunit" --version | sed -n 's/^PHPUnit \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
case "$version" in
    '') echo "run.sh: cannot tell the version of $phpunit" >&2; exit 2 ;;
    [0-9]) config=$here/phpunit.xml ;;
    *) config=$here/phpunit11.xml ;;
esac
status=0
"$php" -d extension="$module" "$phpunit" -c "$config" "$@" || status=$?
# The runner mechanics proved with shell scripts as programs (group `unconfined`, excluded
# above by phpunit.xml): the kernel sandbox refuses scripts, so they run with it off.
case " $* " in
    *" --filter "*|*" --group "*) ;;
    *)
        "$php" -d extension="$module" -d phpclaw.shell_sandbox=off "$phpunit" \
            -c "$config" --group unconfined "$@" || status=$?
        ;;
esac
exit $status
