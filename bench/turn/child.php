<?php

declare(strict_types=1);

/*
 * One side of the whole-turn benchmark, run by bench/turn.php in a child PHP (with or without
 * `-d extension=`): phpClaw's own Agent, ToolRegistry and ToolRouter from the reference copy (or
 * the module's native classes, which win over the autoloader) run the scripted turns on the
 * workspace. Prints one JSON document: per turn, the measured runs and the first run's results.
 *
 *   php [-d extension=...] bench/turn/child.php WORKSPACE REFERENCE MODE WARMUP REPS
 *
 * MODE is "php" or "ext" and must match whether the module is loaded.
 */

namespace PhpClawBench\Turn;

use PhpClaw\Agent\Agent;
use PhpClaw\Guards\ToolOutputGuard;
use PhpClaw\Hooks\HookRegistry;
use PhpClaw\Tools\DatabaseQueryTool;
use PhpClaw\Tools\ToolRegistry;
use PhpClaw\Tools\ToolRouter;

[, $workspace, $reference, $mode, $warmup, $reps] = $argv + array_fill(0, 6, '');
if (($mode === 'ext') !== extension_loaded('phpclaw') || !in_array($mode, ['php', 'ext'], true)) {
    fwrite(STDERR, "child: mode $mode but the module is " . (extension_loaded('phpclaw') ? '' : 'not ') . "loaded\n");
    exit(2);
}
require $reference . '/autoload.php';
require __DIR__ . '/tools.php';
require __DIR__ . '/provider.php';
require __DIR__ . '/turns.php';
require __DIR__ . '/compare.php';

/** CPU time of this process (all its threads) and of its waited-for children, in microseconds. */
function cpu_us(): int
{
    $s = getrusage(0);
    $c = getrusage(1);
    return $s['ru_utime.tv_sec'] * 1000000 + $s['ru_utime.tv_usec'] + $s['ru_stime.tv_sec'] * 1000000 + $s['ru_stime.tv_usec']
        + $c['ru_utime.tv_sec'] * 1000000 + $c['ru_utime.tv_usec'] + $c['ru_stime.tv_sec'] * 1000000 + $c['ru_stime.tv_usec'];
}

/** Peak resident set size since the last reset, in KiB (VmHWM). */
function rss_hwm_kib(): int
{
    return preg_match('/^VmHWM:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $m) === 1 ? (int) $m[1] : 0;
}

/** Time marks the hooks and the guard leave during a turn: [what, wall ns, cpu µs]. */
final class Marks
{
    /** @var list<array{0: string, 1: int, 2: int}> */
    public static array $marks = [];

    public static function add(string $what): void
    {
        self::$marks[] = [$what, hrtime(true), cpu_us()];
    }
}

// phpClaw's ToolOutputGuard is final; to time it apart from the tools, this process loads the
// reference copy's class with the one word `final` taken out (read at run time, never copied),
// and extends it. Without that class file the guard is counted inside each tool's time.
$guardFile = $reference . '/src/Guards/ToolOutputGuard.php';
$guardTimed = false;
if (is_file($guardFile)) {
    $source = (string) file_get_contents($guardFile);
    $open = preg_replace('/^final class ToolOutputGuard\b/m', 'class ToolOutputGuard', $source, 1, $count);
    if ($count === 1) {
        $tmp = sys_get_temp_dir() . '/phpclaw-bench-turn-guard-' . getmypid() . '.php';
        file_put_contents($tmp, $open);
        require $tmp;
        unlink($tmp);
        $guardTimed = true;
    }
}

if ($guardTimed) {
    /** phpClaw's output guard, timed: what the agent spends sanitising each tool result. */
    final class TimedOutputGuard extends ToolOutputGuard
    {
        public function sanitise(string $toolResult, string $toolName = ''): string
        {
            Marks::add('guard.start');
            $out = parent::sanitise($toolResult, $toolName);
            Marks::add('guard.end');
            return $out;
        }
    }
}

HookRegistry::on('agent.iteration', static fn (array $c) => Marks::add('iteration'));
HookRegistry::on('tool.before', static fn (array $c) => Marks::add('tool.before'));
HookRegistry::on('tool.after', static fn (array $c) => Marks::add('tool.after'));

chdir($workspace);
$pdo = new \PDO('sqlite::memory:');
$pdo->exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL)');
$provider = new ScriptedProvider();
$out = ['mode' => $mode, 'php' => PHP_VERSION, 'opcache' => (bool) ini_get('opcache.enable_cli'), 'guard_timed' => $guardTimed, 'turns' => []];

foreach (turns() as $name => $turn) {
    $originals = [];
    foreach ($turn['restore'] as $rel) {
        $originals[$rel] = file_get_contents($rel);
    }
    $labels = array_merge(...array_map(static fn (array $batch): array => array_column($batch, 0), $turn['steps']));
    $toolNames = array_merge(...array_map(static fn (array $batch): array => array_column($batch, 1), $turn['steps']));
    $runs = [];
    $first = null;
    for ($r = 0; $r < (int) $warmup + (int) $reps; $r++) {
        gc_collect_cycles();
        // A request's setup: the tools, the registry, the router and the agent.
        $s0 = hrtime(true);
        $c0 = cpu_us();
        $registry = new ToolRegistry();
        $registry->register(array_merge(builtin_tools($workspace), [new DatabaseQueryTool($pdo)], adapter_tools()));
        $agent = new Agent(provider: $provider, tools: $registry, toolOutputGuard: $guardTimed ? new TimedOutputGuard() : null, toolRouter: new ToolRouter(maxToolsPerTurn: 16));
        $setupWall = hrtime(true) - $s0;
        $setupCpu = cpu_us() - $c0;
        $provider->script($turn['steps'], $turn['text']);

        memory_reset_peak_usage();
        @file_put_contents('/proc/self/clear_refs', '5'); // VmHWM restarts from the current RSS
        Marks::$marks = [];
        Marks::add('start');
        $response = $agent->run($turn['message']);
        Marks::add('end');
        $peak = memory_get_peak_usage();
        $hwm = rss_hwm_kib();

        foreach ($originals as $rel => $bytes) {
            file_put_contents($rel, $bytes);
        }
        if ($r < (int) $warmup) {
            continue;
        }
        // The split: start → first iteration is schemas + router; tool.before → tool.after of
        // each call is that tool (the output guard inside it counted apart); the rest is the
        // agent loop, the provider's request encoding and the hooks.
        $marks = Marks::$marks;
        $start = $marks[0];
        $end = $marks[count($marks) - 1];
        $split = ['schemas+router' => null, 'tools' => [], 'guard' => [0, 0]];
        $open = null;
        $guard = null;
        $call = 0;
        foreach ($marks as $m) {
            if ($m[0] === 'iteration' && $split['schemas+router'] === null) {
                $split['schemas+router'] = [$m[1] - $start[1], $m[2] - $start[2]];
            } elseif ($m[0] === 'tool.before') {
                $open = $m;
                $guardWithin = [0, 0];
            } elseif ($m[0] === 'guard.start') {
                $guard = $m;
            } elseif ($m[0] === 'guard.end' && $guard !== null) {
                $split['guard'][0] += $m[1] - $guard[1];
                $split['guard'][1] += $m[2] - $guard[2];
                if ($open !== null) {
                    $guardWithin[0] += $m[1] - $guard[1];
                    $guardWithin[1] += $m[2] - $guard[2];
                }
                $guard = null;
            } elseif ($m[0] === 'tool.after' && $open !== null) {
                $label = $labels[$call++] ?? 'unscripted';
                $prev = $split['tools'][$label] ?? [0, 0];
                $split['tools'][$label] = [$prev[0] + $m[1] - $open[1] - $guardWithin[0], $prev[1] + $m[2] - $open[2] - $guardWithin[1]];
                $open = null;
            }
        }
        $run = [
            'wall_ns' => $end[1] - $start[1],
            'cpu_us' => $end[2] - $start[2],
            'setup' => [$setupWall, $setupCpu],
            'split' => $split,
            'peak_bytes' => $peak,
            'rss_hwm_kib' => $hwm,
            // Every measured run's answers, as the check compares them (the first run's in full below).
            'results_md5' => turn_bench_results_md5($toolNames, array_values($provider->results)),
        ];
        $runs[] = $run;
        if ($first === null) {
            $first = [
                'labels' => $labels,
                'tools' => $toolNames,
                'results' => array_values($provider->results),
                'offered' => $provider->offered,
                'text' => $response->text,
                'tools_called' => $response->toolsCalled,
                'request_bytes' => $provider->requestBytes,
                'not_offered' => $provider->notOffered,
            ];
        }
    }
    $out['turns'][$name] = ['runs' => $runs, 'first' => $first];
}
echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
