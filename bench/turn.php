<?php
// Whole agent turns, phpClaw's PHP against the extension, in one sitting.
//
// phpClaw's own Agent loop (from a local copy of its PHP source, see
// ../shared/reference/README.md) runs scripted turns with a scripted provider (no network): 100
// tools registered (phpClaw's ten built-in tools and 90 adapter tools written in PHP on the
// lifecycle traits), the ToolRouter on, and per turn a mix of code_search, project_info,
// file_read, file_edit, shell_exec (allowed and refused) and adapter calls on a generated
// Laravel-like workspace of about 2,000 files. The same turns run in two child PHPs, one without
// and one with `-d extension=`, alternated over several rounds. Reported per turn, both ways with
// ratios: wall and CPU time (getrusage of the process, all its threads, and of its children), the
// split (schemas + router, each tool call, phpClaw's output guard, the rest; taken from hooks on
// agent.iteration, tool.before and tool.after, which both sides register), peak memory
// (memory_get_peak_usage) and peak RSS (VmHWM). The results given back to the model must be the
// same both ways after the documented sorting (README, "Where the native tools deliberately
// differ"); the ones that differ are named and the run fails.
//
// Run: PHPCLAW_SO=<path>/libphpclaw.so php bench/turn.php
//   PHPCLAW_REFERENCE  the reference copy (default ../ref/phpclaw-core beside the checkout);
//                      absent: the benchmark says so and exits 0.
//   PHPCLAW_TURN_ROUNDS (default 5), PHPCLAW_TURN_REPS (measured runs of each turn per child,
//   default 3), PHPCLAW_TURN_WARMUP (unmeasured runs first, default 2).

declare(strict_types=1);

require __DIR__ . '/turn/workspace.php';
require __DIR__ . '/turn/compare.php';

$repo = dirname(__DIR__);
$reference = (string) (getenv('PHPCLAW_REFERENCE') ?: dirname($repo) . '/ref/phpclaw-core');
if (!is_file("$reference/autoload.php") || !is_file("$reference/src/Agent/Agent.php")) {
    echo "bench/turn.php: skipped, phpClaw's PHP source is not at $reference\n"
        . "  (make the local copy as ../shared/reference/README.md describes, or set PHPCLAW_REFERENCE)\n";
    exit(0);
}
$reference = (string) realpath($reference);
$so = (string) getenv('PHPCLAW_SO');
if ($so === '' || !is_file($so)) {
    fwrite(STDERR, "bench/turn.php: set PHPCLAW_SO to the module's path\n");
    exit(2);
}
$so = (string) realpath($so);
$setting = static fn (string $name, int $default): int => is_numeric(getenv($name)) ? (int) getenv($name) : $default;
$rounds = max(1, $setting('PHPCLAW_TURN_ROUNDS', 5));
$reps = max(1, $setting('PHPCLAW_TURN_REPS', 3));
$warmup = max(0, $setting('PHPCLAW_TURN_WARMUP', 2));

$workspace = sys_get_temp_dir() . '/phpclaw-bench-turn-' . getmypid();
turn_bench_remove($workspace);
$files = turn_bench_workspace($workspace);
register_shutdown_function(static fn () => turn_bench_remove($workspace));

/** Run one child; returns its decoded report. */
$child = static function (string $mode) use ($so, $workspace, $reference, $warmup, $reps): array {
    $cmd = [PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'memory_limit=1G'];
    if ($mode === 'ext') {
        array_push($cmd, '-d', "extension=$so");
    }
    array_push($cmd, __DIR__ . '/turn/child.php', $workspace, $reference, $mode, (string) $warmup, (string) $reps);
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $stdout = (string) stream_get_contents($pipes[1]);
    $stderr = (string) stream_get_contents($pipes[2]);
    $rc = proc_close($p);
    if (trim($stderr) !== '') {
        fwrite(STDERR, "bench/turn.php: the $mode child wrote:\n$stderr");
    }
    $report = json_decode($stdout, true);
    if ($rc !== 0 || !is_array($report)) {
        fwrite(STDERR, "bench/turn.php: the $mode child failed (exit $rc)\n" . substr($stdout, 0, 2000) . "\n");
        exit(1);
    }
    return $report;
};

$load = static fn (): string => implode(' ', array_slice(explode(' ', (string) @file_get_contents('/proc/loadavg')), 0, 3));
$loadBefore = $load();
$reports = ['php' => [], 'ext' => []];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($r % 2 === 0 ? ['php', 'ext'] : ['ext', 'php'] as $mode) {
        $reports[$mode][] = $child($mode);
    }
}

// The answers first: every child of both sides must have given the model the same results.
$differences = turn_bench_differences($reports);

$turnNames = array_keys($reports['php'][0]['turns']);
printf("phpClaw whole turns: phpClaw's Agent + ToolRouter (16 tools a turn), 100 tools registered (10 built-in, 90 PHP adapters),\n");
printf("workspace of %d files; %d round(s) alternated, each child %d warm-up + %d measured runs a turn; medians; opcache on, PHP %s\n",
    $files, $rounds, $warmup, $reps, $reports['php'][0]['php']);
printf("CPU = getrusage(SELF) + getrusage(CHILDREN): every thread of the PHP process and the commands shell_exec ran;\n");
printf("split from hooks on agent.iteration, tool.before and tool.after (registered on both sides); the scripted provider\n");
printf("JSON-encodes each request as a real one would (in the rest); setup = a request building its tools, registry and agent\n");
printf("load average %s before, %s after (%d CPUs); output guard %s\n", $loadBefore, $load(), (int) shell_exec('nproc'),
    $reports['php'][0]['guard_timed'] ? 'timed apart from the tools' : 'counted inside each tool (its class file was not found)');

/** Median of a list of numbers. */
$median = static function (array $v): float {
    sort($v);
    $n = count($v);
    return $n === 0 ? 0.0 : ($n % 2 === 1 ? (float) $v[intdiv($n, 2)] : ($v[$n / 2 - 1] + $v[$n / 2]) / 2);
};
/** Every measured run of a turn on one side. */
$runs = static fn (string $mode, string $turn): array => array_merge(...array_map(static fn (array $rep): array => $rep['turns'][$turn]['runs'], $reports[$mode]));
$ratio = static fn (float $a, float $b): string => $b > 0 ? sprintf('%5.1fx', $a / $b) : '    -';
$row = static function (string $what, float $pw, float $ew, float $pc, float $ec) use ($ratio): void {
    printf("  %-38s %9.3f %9.3f %s | %9.3f %9.3f %s\n", $what, $pw / 1e6, $ew / 1e6, $ratio($pw, $ew), $pc / 1e6, $ec / 1e6, $ratio($pc, $ec));
};

$totals = ['php' => [0.0, 0.0], 'ext' => [0.0, 0.0]];
// Sums of the parts' medians: what the extension replaces (schemas + router + the tool calls) and
// phpClaw's own code that runs the same both ways (its output guard, the agent loop).
$layer = [0.0, 0.0, 0.0, 0.0];
$own = [0.0, 0.0, 0.0, 0.0];
$add = static function (array &$sum, array $v): void {
    foreach ($v as $i => $x) {
        $sum[$i] += $x;
    }
};
$toolTable = [];
foreach ($turnNames as $turn) {
    $p = $runs('php', $turn);
    $e = $runs('ext', $turn);
    $first = $reports['php'][0]['turns'][$turn]['first'];
    printf("\n== turn '%s': %d tool calls in %d model requests; %d results given back (%s)\n", $turn, count($first['labels']),
        count($first['offered']), count($first['results']), in_array($turn, $differences['turns'], true) ? 'DIFFERENT' : 'same both ways');
    if ($first['not_offered'] !== []) {
        printf("  (called without being offered by the router: %s)\n", implode(', ', array_unique($first['not_offered'])));
    }
    printf("  %-38s %9s %9s %6s | %9s %9s %6s\n", 'ms', 'PHP wall', 'ext wall', 'ratio', 'PHP CPU', 'ext CPU', 'ratio');
    $pw = $median(array_column($p, 'wall_ns'));
    $ew = $median(array_column($e, 'wall_ns'));
    $pc = $median(array_column($p, 'cpu_us'));
    $ec = $median(array_column($e, 'cpu_us'));
    $row('whole turn', $pw, $ew, $pc * 1e3, $ec * 1e3);
    $totals['php'][0] += $pw;
    $totals['php'][1] += $pc;
    $totals['ext'][0] += $ew;
    $totals['ext'][1] += $ec;
    $part = static fn (array $rs, callable $get, int $i): float => $median(array_map(static fn (array $x) => $get($x)[$i], $rs));
    $both = static function (string $what, callable $get) use ($p, $e, $part, $row): array {
        $v = [$part($p, $get, 0), $part($e, $get, 0), $part($p, $get, 1) * 1e3, $part($e, $get, 1) * 1e3];
        $row($what, ...$v);
        return $v;
    };
    $add($layer, $both('schemas + router', static fn (array $x) => $x['split']['schemas+router'] ?? [0, 0]));
    foreach (array_unique($first['labels']) as $label) {
        $v = $both("  $label", static fn (array $x) => $x['split']['tools'][$label] ?? [0, 0]);
        $toolTable[$label][] = $v;
        $add($layer, $v);
    }
    $add($own, $both("  phpClaw's output guard", static fn (array $x) => $x['split']['guard']));
    $rest = static function (array $x): array {
        $w = $x['wall_ns'] - ($x['split']['schemas+router'][0] ?? 0) - $x['split']['guard'][0];
        $c = $x['cpu_us'] - ($x['split']['schemas+router'][1] ?? 0) - $x['split']['guard'][1];
        foreach ($x['split']['tools'] as [$tw, $tc]) {
            $w -= $tw;
            $c -= $tc;
        }
        return [$w, $c];
    };
    $add($own, $both('rest (agent loop, provider, hooks)', $rest));
    $both('setup (tools, registry; not in turn)', static fn (array $x) => $x['setup']);
    printf("  %-38s %9.1f %9.1f %s   (MiB)\n", 'peak memory (Zend heap)', $median(array_column($p, 'peak_bytes')) / 1048576,
        $median(array_column($e, 'peak_bytes')) / 1048576, $ratio($median(array_column($p, 'peak_bytes')), $median(array_column($e, 'peak_bytes'))));
    printf("  %-38s %9.1f %9.1f %s   (MiB)\n", 'peak RSS (VmHWM)', $median(array_column($p, 'rss_hwm_kib')) / 1024,
        $median(array_column($e, 'rss_hwm_kib')) / 1024, $ratio($median(array_column($p, 'rss_hwm_kib')), $median(array_column($e, 'rss_hwm_kib'))));
}

printf("\n== all turns (sum of the medians)\n");
$row('whole turns', $totals['php'][0], $totals['ext'][0], $totals['php'][1] * 1e3, $totals['ext'][1] * 1e3);
$row('  what the extension replaces', ...$layer);
$row('  phpClaw\'s own code (guard, loop)', ...$own);
printf("\n== per tool call (median within each turn, summed over the turns that make it)\n");
ksort($toolTable);
foreach ($toolTable as $label => $vs) {
    $s = [0.0, 0.0, 0.0, 0.0];
    foreach ($vs as $v) {
        foreach ($v as $i => $x) {
            $s[$i] += $x;
        }
    }
    $row($label, ...$s);
}

if ($differences['lines'] !== []) {
    fwrite(STDERR, "\nbench/turn.php: FAILED, the results given back to the model differ:\n  " . implode("\n  ", $differences['lines']) . "\n");
    exit(1);
}
printf("\nresults given back to the model: the same both ways in every run (after the documented sorting)\n");
foreach ($differences['notes'] as $note) {
    printf("note: %s\n", $note);
}
