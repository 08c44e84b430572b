#!/usr/bin/env bash
# Set up a fresh Debian machine, build and install phpclaw, and run every test:
# the pure-Rust core (unit, property and bounded fuzz tests) and the PHP suite against the
# installed module.
source "$(dirname "$0")/common.sh"
setup
build_and_install
cd "$ROOT"
echo "== core tests (cargo test --no-default-features)"
cargo test --no-default-features --release --quiet
echo "== PHP tests against $(php-config --extension-dir)/phpclaw.so"
"$ROOT/php-tests/run.sh" "$(php-config --extension-dir)/phpclaw.so"
