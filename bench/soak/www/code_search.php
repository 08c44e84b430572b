<?php
// code_search: a literal and a PCRE pattern over the workspace's 400-odd PHP files.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\CodeSearchTool;

use function PhpClawSoak\{expect, serve, success, ws};

serve(static function (): array {
    $search = new CodeSearchTool(ws());
    $data = success($search->execute(['pattern' => 'class Order', 'extension' => 'php']))['data'];
    expect($data['total'] === 2 && $data['results'][1] === ['file' => 'app/Models/Order.php', 'line' => 5], 'literal: ' . json_encode($data));

    $data = success($search->execute(['pattern' => '/function\s+(total|refund)\(/i', 'is_regex' => true, 'context_lines' => 1]))['data'];
    expect($data['total'] === 2 && $data['results'][1]['match'] === '    public function total(array $lines): float', 'regex: ' . json_encode($data));

    return [];
});
