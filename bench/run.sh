#!/usr/bin/env bash
# Run every benchmark against the release build (built if needed). Each compares the native
# side with its baseline in the same process (a plain-PHP version, PHP's own functions, rg).
# Every tool benchmark prints "ratio|case|native wall|native cpu|PHP wall|PHP cpu|wall x|cpu x"
# lines (µs per call; CPU from getrusage: user + system, every thread of the process and its
# waited-for children; "x" is PHP's time over native's, above 1 when native is faster); the
# table at the end gathers them.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && cargo build --release --quiet)
# code_search's floor (bench/code_search.php), in the core tests' profile: no PHP in it, and
# target/release/libphpclaw.so is left alone.
(cd "$ROOT" && cargo build --profile ci --no-default-features --example code_search_floor --quiet)
SO="$ROOT/target/release/libphpclaw.so"
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
for bench in lifecycle router file_read file_write_edit shell code_search project_info; do
    echo "== bench/$bench.php"
    php -d extension="$SO" "$ROOT/bench/$bench.php" | tee -a "$OUT" | grep -v '^ratio|' || true
done
echo "== bench/shell_sandbox.php"
PHPCLAW_SO="$SO" php "$ROOT/bench/shell_sandbox.php" | tee -a "$OUT" | grep -v '^ratio|' || true
echo "== bench/turn.php"
PHPCLAW_SO="$SO" php "$ROOT/bench/turn.php"
echo
echo "== native vs PHP, per call (µs; x = PHP / native, wall and CPU)"
printf '%-50s %12s %12s %12s %12s %7s %7s\n' case 'native wall' 'native cpu' 'PHP wall' 'PHP cpu' 'wall x' 'cpu x'
grep '^ratio|' "$OUT" | while IFS='|' read -r _ name nw nc pw pc rw rc; do
    printf '%-50s %12s %12s %12s %12s %7s %7s\n' "$name" "$nw" "$nc" "$pw" "$pc" "$rw" "$rc"
done
