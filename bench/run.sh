#!/usr/bin/env bash
# Run every benchmark against the release build (built if needed). Each compares the native
# side with its baseline in the same process (a plain-PHP version, PHP's own functions, rg).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && cargo build --release --quiet)
for bench in lifecycle router file_read file_write_edit shell code_search; do
    echo "== bench/$bench.php"
    php -d extension="$ROOT/target/release/libphpclaw.so" "$ROOT/bench/$bench.php"
done
echo "== bench/shell_sandbox.php"
PHPCLAW_SO="$ROOT/target/release/libphpclaw.so" php "$ROOT/bench/shell_sandbox.php"
echo "== bench/turn.php"
PHPCLAW_SO="$ROOT/target/release/libphpclaw.so" php "$ROOT/bench/turn.php"
