#!/bin/sh
# Run the PHP test suite against a phpclaw module.
#   php-tests/run.sh [path-to-.so] [phpunit options…]
# Default module: target/debug/libphpclaw.so. Extra options go to phpunit, e.g.
#   php-tests/run.sh target/release/libphpclaw.so --exclude-group known-bug
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
module=$root/target/debug/libphpclaw.so
case "${1:-}" in
    ''|-*) ;;
    *) module=$1; shift ;;
esac
if [ ! -f "$module" ]; then
    echo "run.sh: no module at $module (build it with: cargo build)" >&2
    exit 2
fi
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
PHPCLAW_MODULE=$module
export PHPCLAW_MODULE
exec php -d extension="$module" /usr/bin/phpunit -c "$here/phpunit.xml" "$@"
