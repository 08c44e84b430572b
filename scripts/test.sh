#!/usr/bin/env bash
# Set up a fresh Debian machine, build and install phpclaw, and run every test:
# - host leg (PHP 8.2 NTS, Debian 12): the pure-Rust core (unit and property tests, then
#   bounded fuzz runs), the PHP suite against the installed module with a throw-away MariaDB
#   server on loopback for db_query, and the PHP suites again under valgrind (no invalid
#   access, nothing the module allocated lost);
# - PHP 8.4 NTS leg: the suite in a Debian 13 root (scripts/leg-php84.sh, PHPUnit 11);
# - PHP 8.2 ZTS leg: the suite on a thread-safe PHP built from Debian's source
#   (scripts/leg-zts.sh);
# - the PECL/PIE build path from a clean copy (scripts/pecl-check.sh);
# - a short php-fpm + nginx soak (bench/soak/run.sh).
# PHPCLAW_LEGS chooses legs (default: "host php84 zts pecl soak"); the roots, PHP builds and
# cargo target dirs of the other legs are cached under /var/cache/phpclaw.
source "$(dirname "$0")/common.sh"
LEGS=" ${PHPCLAW_LEGS:-host php84 zts pecl soak} "
TIMES=()
FAILED=()
T0=$SECONDS
# Run one named step, record how long it took and whether it failed; a failed step does not
# stop the others (each leg's result is worth seeing), the script fails at the end.
timed() {
    local name=$1 t=$SECONDS rc=0
    shift
    echo "== $name"
    "$@" || rc=$?
    TIMES+=("$(printf '%-58s %5ds%s' "$name" $((SECONDS - t)) "$([ $rc = 0 ] || echo "  FAILED ($rc)")")")
    [ $rc = 0 ] || FAILED+=("$name")
}
summary() {
    echo "== time per step"
    printf '   %s\n' "${TIMES[@]}"
    echo "   total $((SECONDS - T0))s"
}

host_suite() {
    timed "core tests" cargo test --no-default-features --profile ci --quiet
    # Each parser's fuzz target again with more cases; longer runs: raise PHPCLAW_FUZZ_CASES.
    fuzz() {
        local target name rc=0
        for target in "$ROOT"/tests/fuzz_*.rs; do
            name="$(basename "$target" .rs)"
            PROPTEST_CASES="$PHPCLAW_FUZZ_CASES" timeout 600 \
                cargo test --no-default-features --profile ci --quiet --test "$name" || rc=1
        done
        return $rc
    }
    timed "bounded fuzz runs (PROPTEST_CASES=${PHPCLAW_FUZZ_CASES:=4096})" fuzz
    timed "PHP 8.2 NTS suite against $module" "$ROOT/php-tests/run.sh" "$module"
    # Every suite that runs in-process (StubsTest and PreloadTest only drive child processes;
    # FaultLargeTreeTest skips itself under valgrind; FaultShellTest is all `unconfined`).
    timed "PHP suites under valgrind (USE_ZEND_ALLOC=0)" "$ROOT/php-tests/valgrind.sh" "$module" \
        $(cd "$ROOT/php-tests" && ls -- *Test.php | grep -v -x -e StubsTest.php -e PreloadTest.php \
            -e FaultLargeTreeTest.php -e FaultShellTest.php)
}

setup
start_mariadb
trap 'summary; stop_mariadb' EXIT
export PHPCLAW_REQUIRE_MYSQL=1
cd "$ROOT"
if [[ $LEGS == *" host "* ]]; then
    timed "build and install (PHP 8.2 NTS)" build_and_install
    module="$(php-config --extension-dir)/phpclaw.so"
    [ ${#FAILED[@]} -gt 0 ] || host_suite
fi
# These two make roots, mounts and a PHP build under /var/cache: root (sudo -E keeps the
# MariaDB settings when the script is not run as root).
[[ $LEGS != *" php84 "* ]] || timed "leg: PHP 8.4 NTS (Debian 13 root)" $SUDO ${SUDO:+-E} bash "$ROOT/scripts/leg-php84.sh"
[[ $LEGS != *" zts "* ]] || timed "leg: PHP 8.2 ZTS" $SUDO ${SUDO:+-E} bash "$ROOT/scripts/leg-zts.sh"
[[ $LEGS != *" pecl "* ]] || timed "leg: phpize build from a clean copy" bash "$ROOT/scripts/pecl-check.sh"
[[ $LEGS != *" soak "* ]] || timed "leg: php-fpm soak" bash "$ROOT/bench/soak/run.sh" 60
if [ ${#FAILED[@]} -gt 0 ]; then
    printf 'phpclaw: FAILED: %s\n' "${FAILED[@]}" >&2
    exit 1
fi
echo "phpclaw: every leg passed"
