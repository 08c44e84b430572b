<?php
// Timing helpers shared by the benchmarks: wall time (hrtime) and CPU time (getrusage: user +
// system of this process, every thread included, plus its waited-for children), and the
// "ratio" lines bench/run.sh gathers into its closing table.

declare(strict_types=1);

/** CPU time (user + system) so far, in microseconds: this process (all threads) and its children. */
function bench_cpu_us(): float
{
    $t = 0.0;
    foreach ([getrusage(0), getrusage(1)] as $u) {
        $t += $u['ru_utime.tv_sec'] * 1e6 + $u['ru_utime.tv_usec'] + $u['ru_stime.tv_sec'] * 1e6 + $u['ru_stime.tv_usec'];
    }
    return $t;
}

/**
 * Medians over $rounds rounds of $n calls of $fn, per call in microseconds: [wall, cpu].
 *
 * @return array{float, float}
 */
function bench_us(callable $fn, int $n, int $rounds = 7): array
{
    $wall = [];
    $cpu = [];
    for ($r = 0; $r < $rounds; $r++) {
        $c = bench_cpu_us();
        $s = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $fn();
        }
        $wall[] = (hrtime(true) - $s) / $n / 1000;
        $cpu[] = (bench_cpu_us() - $c) / $n;
    }
    sort($wall);
    sort($cpu);
    return [$wall[intdiv($rounds, 2)], $cpu[intdiv($rounds, 2)]];
}

/**
 * Time the native and the PHP side alternately (round by round, so both see the same load),
 * then print both and the "ratio" line run.sh collects: PHP's time over native's, wall and CPU
 * (above 1: native is faster).
 *
 * @return array{array{float, float}, array{float, float}} [native, php], each [wall, cpu] in µs
 */
function bench_compare(string $label, callable $native, callable $php, int $n, int $rounds = 7): array
{
    $nw = $nc = $pw = $pc = [];
    for ($r = 0; $r < $rounds; $r++) {
        [$w, $c] = bench_us($native, $n, 1);
        $nw[] = $w;
        $nc[] = $c;
        [$w, $c] = bench_us($php, $n, 1);
        $pw[] = $w;
        $pc[] = $c;
    }
    $med = static function (array $v): float {
        sort($v);
        return $v[intdiv(count($v), 2)];
    };
    $native = [$med($nw), $med($nc)];
    $php = [$med($pw), $med($pc)];
    printf("  %-44s native %10.2f us wall %10.2f us cpu | PHP %10.2f us wall %10.2f us cpu\n", $label, ...[...$native, ...$php]);
    printf("ratio|%s|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f\n", $label, $native[0], $native[1], $php[0], $php[1],
        $php[0] / max($native[0], 1e-9), $php[1] / max($native[1], 1e-9));
    return [$native, $php];
}

/** The load average, for the header of each benchmark. */
function bench_load(): string
{
    return sprintf('load average %.1f', sys_getloadavg()[0]);
}

/**
 * A project_info file tree with each folder's files and subfolders sorted by name, recursively:
 * trees listed in any order compare equal (the native tools sort, phpClaw's PHP does not).
 */
function sorted_tree(array $tree): array
{
    $files = [];
    $dirs = [];
    foreach ($tree as $k => $v) {
        if (is_int($k)) {
            $files[] = $v;
        } else {
            $dirs[$k] = is_array($v) ? sorted_tree($v) : $v;
        }
    }
    sort($files, SORT_STRING);
    ksort($dirs, SORT_STRING);
    return [$files, $dirs];
}
