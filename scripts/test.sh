#!/usr/bin/env bash
# Set up a fresh Debian machine, build and install phpclaw, and run every test:
# the pure-Rust core (unit and property tests, then bounded fuzz runs), the PHP suite against
# the installed module with a throw-away MariaDB server on loopback for db_query, and the PHP
# suites again under valgrind (no invalid access, nothing the module allocated lost).
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

echo "== MariaDB for the db_query tests"
start_mariadb
export PHPCLAW_REQUIRE_MYSQL=1

echo "== PHP tests against $module"
"$ROOT/php-tests/run.sh" "$module"

# Every suite that runs in-process (StubsTest and PreloadTest only drive child processes).
echo "== PHP tests under valgrind (USE_ZEND_ALLOC=0)"
"$ROOT/php-tests/valgrind.sh" "$module" \
    $(cd "$ROOT/php-tests" && ls -- *Test.php | grep -v -x -e StubsTest.php -e PreloadTest.php)
