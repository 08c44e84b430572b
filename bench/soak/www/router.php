<?php
// ToolRouter over 100 tools with routing metadata (bench/router_workload.php): the benchmark's
// five messages, plus one that differs on every request, each ranked to the model's budget.

declare(strict_types=1);

require __DIR__ . '/_soak.php';
require dirname(__DIR__, 2) . '/router_workload.php';

use PhpClaw\Tools\ToolRouter;

use function PhpClawSoak\{expect, request_id, serve};

serve(static function (): array {
    [$schemas, $metadata, $messages] = router_bench_workload();
    $messages[] = 'export the invoices of customer ' . request_id() . ' and count their orders';
    $router = new ToolRouter();
    foreach ($messages as $label => $message) {
        $picked = $router->filter($schemas, $message, 'claude-haiku-4-5', $metadata);
        expect(count($picked) >= 6 && count($picked) < 100, "$label: " . count($picked) . ' tools picked');
    }
    $names = array_column($router->filter($schemas, $messages['snake'], 'claude-haiku-4-5', $metadata), 'name');
    expect(in_array('customer_search', $names, true), 'customer_search not picked: ' . implode(',', $names));

    return [];
});
