#!/usr/bin/env bash
# The per-tool benchmarks of bench/run.sh (those that print "ratio|" lines: file_read,
# file_write_edit, shell, code_search, project_info) against the release module on each PHP of
# the matrix, and one table side by side: per case, PHP's time over native's (wall and CPU) on
# 8.2 NTS, 8.4 NTS and 8.2 ZTS, then the absolute wall and CPU µs per call behind them.
#
#   bench/matrix.sh [LEG…]        (as root; LEG: nts82 nts84 zts82, default all three)
#
#   nts82  the host's php with target/release/libphpclaw.so (cargo build --release first).
#   nts84  Debian 13's php8.4 in the root scripts/leg-php84.sh makes, run through its --exec
#          (which waits for the leg's lock); the module is the one that leg built last,
#          $PHPCLAW_CACHE/target-php84/release/libphpclaw.so (this script does not build it).
#   zts82  the thread-safe PHP scripts/leg-zts.sh built, $PHPCLAW_CACHE/php8.2-zts/bin/php,
#          with a release module built against it into $PHPCLAW_CACHE/target-zts.
# PHPCLAW_CACHE defaults to /var/cache/phpclaw. Not run: bench/turn.php (needs phpClaw's
# reference copy), the soak, and the benches without ratio lines (lifecycle, router,
# shell_sandbox). Prefix with `nice -n 19` on a busy machine: the ratios compare both sides
# round by round under the same load, the absolute figures do not.
# The benches work under sys_get_temp_dir(): the disk's /tmp on the host legs, a tmpfs in the
# 8.4 root (the leg mounts one). No ratio case syncs (file_write/file_edit sync only with
# phpclaw.durable_writes=1; bench/file_write_edit.php prints those figures apart, without a
# ratio line, and they are not comparable across legs).
# MATRIX_DIR=DIR keeps each leg's ratio lines in DIR/LEG and reuses those already there (so the
# legs can be run at different times and tabled together); without it nothing is kept.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${PHPCLAW_CACHE:-/var/cache/phpclaw}"
BENCHES=(file_read file_write_edit shell code_search project_info)

# bench/matrix.sh --run PHP SO: run the benches with that php and module and print only their
# ratio lines (the rest goes to stderr). Used on the host and inside the PHP 8.4 root.
if [ "${1:-}" = --run ]; then
    php_bin=$2 so=$3
    "$php_bin" -d extension="$so" -r 'echo "php|", PHP_VERSION, "|", PHP_ZTS ? "ZTS" : "NTS", "|", phpversion("phpclaw"), "\n";'
    for bench in "${BENCHES[@]}"; do
        echo "== bench/$bench.php ($php_bin)" >&2
        "$php_bin" -d extension="$so" "$ROOT/bench/$bench.php" | tee -a /dev/stderr | grep '^ratio|' || {
            echo "bench/$bench.php failed on $php_bin" >&2
            exit 1
        }
    done
    exit 0
fi

LEGS=("$@")
[ ${#LEGS[@]} -gt 0 ] || LEGS=(nts82 nts84 zts82)
if [ -n "${MATRIX_DIR:-}" ]; then
    OUT=$MATRIX_DIR
    mkdir -p "$OUT"
else
    OUT="$(mktemp -d)"
    trap 'rm -rf "$OUT"' EXIT
fi

for leg in "${LEGS[@]}"; do
    if [ -s "$OUT/$leg" ]; then
        echo "== matrix: $leg: reusing $OUT/$leg" >&2
        continue
    fi
    echo "== matrix: $leg" >&2
    case $leg in
    nts82)
        (cd "$ROOT" && cargo build --release --quiet)
        "$0" --run php "$ROOT/target/release/libphpclaw.so" >"$OUT/$leg.part"
        ;;
    nts84)
        so="$CACHE/target-php84/release/libphpclaw.so"
        [ -f "$so" ] || { echo "matrix: no $so; run scripts/leg-php84.sh first" >&2; exit 1; }
        # Inside the root this checkout is /work/phpclaw and the target folder /opt/target.
        "$ROOT/scripts/leg-php84.sh" --exec bash bench/matrix.sh --run php8.4 \
            /opt/target/release/libphpclaw.so >"$OUT/$leg.part"
        ;;
    zts82)
        zphp="$CACHE/php8.2-zts/bin/php"
        [ -x "$zphp" ] || { echo "matrix: no $zphp; run scripts/leg-zts.sh first" >&2; exit 1; }
        (cd "$ROOT" && PHP="$zphp" PHP_CONFIG="$CACHE/php8.2-zts/bin/php-config" \
            CARGO_TARGET_DIR="$CACHE/target-zts" cargo build --release --quiet)
        "$0" --run "$zphp" "$CACHE/target-zts/release/libphpclaw.so" >"$OUT/$leg.part"
        ;;
    *)
        echo "matrix: unknown leg $leg (nts82, nts84, zts82)" >&2
        exit 2
        ;;
    esac
    mv "$OUT/$leg.part" "$OUT/$leg"
done

# The tables: cases in the order of the first leg, one column pair per leg.
awk -F'|' -v legs="${LEGS[*]}" -v dir="$OUT" '
# One table: a row per case, a column per leg holding a / b in format fmt ("-" where the leg
# has no such case).
function table(title, a, b, fmt,    i, l, k) {
    printf "%s", title
    printf "%-52s", "case"
    for (l = 1; l <= n; l++) printf " %25s", head[l]
    printf "\n"
    for (i = 1; i <= cases; i++) {
        printf "%-52s", order[i]
        for (l = 1; l <= n; l++) {
            k = l SUBSEP order[i]
            printf " %25s", (k in a) ? sprintf(fmt, a[k], b[k]) : "-"
        }
        printf "\n"
    }
}
BEGIN {
    n = split(legs, leg, " ")
    for (l = 1; l <= n; l++) {
        f = dir "/" leg[l]
        while ((getline line < f) > 0) {
            split(line, c, "|")
            if (c[1] == "php") { head[l] = "PHP " c[2] " " c[3]; continue }
            if (c[1] != "ratio") continue
            if (!(c[2] in seen)) { seen[c[2]] = 1; order[++cases] = c[2] }
            k = l SUBSEP c[2]
            nw[k] = c[3]; nc[k] = c[4]; pw[k] = c[5]; pc[k] = c[6]; rw[k] = c[7]; rc[k] = c[8]
        }
        close(f)
    }
    table("\nPHP time over native time, per call (wall x / CPU x; above 1: native is faster)\n", rw, rc, "%8s / %-8s")
    table("\nWall µs per call, native / plain PHP\n", nw, pw, "%9s / %-9s")
    table("\nCPU µs per call, native / plain PHP\n", nc, pc, "%9s / %-9s")
}'
