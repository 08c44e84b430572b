#!/usr/bin/env bash
# Run the benchmarks against the release build (built if needed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && cargo build --release --quiet)
php -d extension="$ROOT/target/release/libphpclaw.so" "$ROOT/bench/lifecycle.php"
php -d extension="$ROOT/target/release/libphpclaw.so" "$ROOT/bench/router.php"
