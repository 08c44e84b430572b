#!/usr/bin/env bash
# Set up a fresh Debian machine, build and install phpclaw, and run every test:
# the pure-Rust core (unit and property tests, then bounded fuzz runs), the PHP suite against
# the installed module, and the in-process PHP suites again under valgrind.
source "$(dirname "$0")/common.sh"
setup
build_and_install
cd "$ROOT"
module="$(php-config --extension-dir)/phpclaw.so"

echo "== core tests (cargo test --no-default-features)"
cargo test --no-default-features --profile ci --quiet

# Each parser's fuzz target again with more cases; longer runs: raise PHPCLAW_FUZZ_CASES.
echo "== bounded fuzz runs (PROPTEST_CASES=${PHPCLAW_FUZZ_CASES:=4096})"
for target in tests/fuzz_*.rs; do
    name="$(basename "$target" .rs)"
    PROPTEST_CASES="$PHPCLAW_FUZZ_CASES" timeout 600 \
        cargo test --no-default-features --profile ci --quiet --test "$name"
done

echo "== PHP tests against $module"
"$ROOT/php-tests/run.sh" "$module"

echo "== PHP tests under valgrind (USE_ZEND_ALLOC=0)"
"$ROOT/php-tests/valgrind.sh" "$module" LifecycleTest.php EncodingParityTest.php \
    RoutingMetadataTest.php ExceptionsTest.php
