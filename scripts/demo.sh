#!/usr/bin/env bash
# Set up a fresh Debian machine, build and install phpclaw, and run the demo.
source "$(dirname "$0")/common.sh"
setup
build_and_install
php_with_module --ri phpclaw
php_with_module "$ROOT/demo/demo.php"
echo
php_with_module "$ROOT/demo/tools.php"
