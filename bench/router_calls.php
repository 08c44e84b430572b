<?php

declare(strict_types=1);

/*
 * Fixed-count ToolRouter::filter calls on bench/router.php's 100 tools, for instruction counts:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     php -d extension=target/release/libphpclaw.so bench/router_calls.php <message> <calls>
 *
 * Run with 0 and N calls; (Ir(N) - Ir(0)) / N is the cost of one call. Messages: short, named,
 * snake, vague, paste. A third argument `fresh` passes a new (equal) schemas array on every
 * call, as a site that builds its tool list per request does: the content path.
 */

use PhpClaw\Tools\ToolRouter;

require __DIR__ . '/router_workload.php';

$which = $argv[1] ?? 'short';
$calls = max(0, (int) ($argv[2] ?? 100));

[$schemas, $metadata, $messages] = router_bench_workload();
$message = $messages[$which] ?? $which;
$fresh = ($argv[3] ?? '') === 'fresh';
$router = new ToolRouter(0);
$router->filter($schemas, $message, 'claude-haiku-4-5', $metadata); // warm the caches
for ($i = 0; $i < $calls; $i++) {
    if ($fresh) {
        $copy = $schemas;
        $copy[0] = $schemas[0]; // a write: a new outer array with the same content
        $router->filter($copy, $message, 'claude-haiku-4-5', $metadata);
    } else {
        $router->filter($schemas, $message, 'claude-haiku-4-5', $metadata);
    }
}
