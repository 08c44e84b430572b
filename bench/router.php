<?php

declare(strict_types=1);

/*
 * Router and tidying benchmark: the native ToolRouter::filter against bench/PlainRouter.php
 * (a plain-PHP router with the same behaviour) on 100 tools with routing metadata, and
 * ToolInput::tidy against a plain-PHP tidy on a 10-argument call. Both routers must pick the
 * same tools for every message; the run stops if they do not.
 *
 *   php -d extension=target/release/libphpclaw.so bench/router.php [iterations]
 */

use PhpClaw\Tools\ToolInput;
use PhpClaw\Tools\ToolRouter;
use PhpClawBench\PlainRouter;

require __DIR__ . '/PlainRouter.php';
require __DIR__ . '/router_workload.php';

if (!extension_loaded('phpclaw')) {
    fwrite(STDERR, "load the module: php -d extension=/path/to/libphpclaw.so bench/router.php\n");
    exit(1);
}

$iterations = max(1, (int) ($argv[1] ?? 2000));

[$schemas, $metadata, $messages] = router_bench_workload();
$messages['paste 6 KB'] = $messages['paste'];
unset($messages['paste']);

// ---- a 10-argument call ---------------------------------------------------------------
$toolSchema = ['type' => 'object', 'properties' => [], 'required' => ['id']];
foreach (['id', 'q', 'status', 'page', 'per_page', 'ratio', 'from', 'to', 'sort', 'tags'] as $k) {
    $toolSchema['properties'][$k] = ['type' => 'string'];
}
$toolSchema['properties']['id'] = ['type' => 'integer', 'minimum' => 1];
$toolSchema['properties']['page'] = ['type' => 'integer', 'minimum' => 1];
$toolSchema['properties']['per_page'] = ['type' => 'integer', 'minimum' => 1, 'maximum' => 100];
$toolSchema['properties']['ratio'] = ['type' => 'number', 'minimum' => 0, 'maximum' => 1];
$toolSchema['properties']['status'] = ['type' => 'string', 'enum' => ['any', '*']];
$call = ['id' => '42', 'q' => ' ', 'status' => '*', 'page' => '0', 'per_page' => 500, 'ratio' => '0.25',
    'from' => null, 'to' => '%', 'sort' => 'asc', 'tags' => ['a', 'b']];

/** The tidying rules in plain PHP, for the baseline. */
function plain_tidy(array $args, array $schema): array
{
    $props = (array) ($schema['properties'] ?? []);
    $required = (array) ($schema['required'] ?? []);
    foreach ($args as $key => $value) {
        $spec = $props[$key] ?? null;
        if (!is_array($spec)) {
            continue;
        }
        $optional = !in_array($key, $required, true);
        if ($optional && ($value === null || (is_string($value) && (
            ($t = trim($value)) === '' || (($t === '*' || $t === '%') && !in_array($t, (array) ($spec['enum'] ?? []), true))
        )))) {
            unset($args[$key]);
            continue;
        }
        $type = $spec['type'] ?? null;
        if (($type === 'integer' || $type === 'number') && is_numeric($value)) {
            $n = $type === 'integer' ? (int) $value : (float) $value;
            if (isset($spec['minimum']) && $n < $spec['minimum']) {
                $n = $spec['minimum'];
            } elseif (isset($spec['maximum']) && $n > $spec['maximum']) {
                $n = $spec['maximum'];
            }
            $args[$key] = $n;
        }
    }

    return $args;
}

/** Microseconds per call of $fn over $n runs (after a warm-up). */
function per_call(callable $fn, int $n): float
{
    for ($i = 0; $i < min(50, $n); $i++) {
        $fn();
    }
    $t = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $fn();
    }

    return (hrtime(true) - $t) / 1000 / $n;
}

$names = static fn (array $s): array => array_map(static fn (array $x): string => $x['name'], $s);
$native = new ToolRouter(0);
$plain = new PlainRouter(0);
$model = 'claude-haiku-4-5';

printf("phpclaw router bench: %d tools, %d iterations, model %s (budget 6), PHP %s%s\n",
    count($schemas), $iterations, $model, PHP_VERSION, ini_get('opcache.enable_cli') ? ', opcache on' : '');
printf("%-12s %12s %12s %8s\n", 'message', 'native µs', 'plain µs', 'ratio');
foreach ($messages as $label => $message) {
    $a = $names($native->filter($schemas, $message, $model, $metadata));
    $b = $names($plain->filter($schemas, $message, $model, $metadata));
    if ($a !== $b) {
        fwrite(STDERR, "routers disagree on '{$label}': native " . implode(',', $a) . ' / plain ' . implode(',', $b) . "\n");
        exit(1);
    }
    $n = per_call(static fn () => $native->filter($schemas, $message, $model, $metadata), $iterations);
    $p = per_call(static fn () => $plain->filter($schemas, $message, $model, $metadata), max(1, intdiv($iterations, 10)));
    printf("%-12s %12.1f %12.1f %7.1fx\n", $label, $n, $p, $p / $n);
}

$conf = per_call(static fn () => $native->confidence($schemas, $messages['short'], $metadata), $iterations);
printf("%-12s %12.1f\n", 'confidence', $conf);
$route = per_call(static fn () => $native->route($schemas, $messages['short'], $model, $metadata, 'minimal', ['file_get'], str_repeat('s', 2000), [$messages['short']]), $iterations);
printf("%-12s %12.1f   (route(): minimal profile, stage 3 at 3000 tokens)\n", 'route', $route);

if (ToolInput::tidy($call, $toolSchema) !== plain_tidy($call, $toolSchema)) {
    fwrite(STDERR, "tidy results differ\n");
    exit(1);
}
$tn = per_call(static fn () => ToolInput::tidy($call, $toolSchema), $iterations * 10);
$tp = per_call(static fn () => plain_tidy($call, $toolSchema), $iterations * 10);
printf("%-12s %12.2f %12.2f %7.1fx   (10 arguments)\n", 'tidy', $tn, $tp, $tp / $tn);
$big = str_repeat('x', 50000);
$cn = per_call(static fn () => ToolInput::capResult($big), $iterations * 10);
printf("%-12s %12.2f   (50 KB result cut at 2500 tokens)\n", 'capResult', $cn);
