<?php
// http_request to the soak's loopback server (phpclaw.test_allow_loopback=1 in the pool's
// php.ini): a GET, a POST echoed back, a body past the 8192-byte cap, and an SSRF refusal.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\HttpTool;

use function PhpClawSoak\{env, expect, refused, request_id, serve, success};

serve(static function (): array {
    $http = new HttpTool();
    $base = env('SOAK_HTTP');
    $data = success($http->execute(['url' => "$base/small"]))['data'];
    expect($data['status'] === 200 && $data['body'] === 'soak ok', 'GET: ' . json_encode($data));

    $sent = 'request ' . request_id();
    $data = success($http->execute(['url' => "$base/echo", 'method' => 'POST', 'body' => $sent]))['data'];
    expect($data['status'] === 200 && $data['body'] === $sent, 'POST: ' . json_encode($data));

    $data = success($http->execute(['url' => "$base/big"]))['data'];
    expect($data['body'] === str_repeat('b', 8192) . "\n[Response truncated at 8192 bytes]", 'big: ' . strlen($data['body']) . ' bytes');

    refused(fn () => $http->execute(['url' => 'http://169.254.169.254/latest/meta-data/']), "Requests to '169.254.169.254' are blocked (private/internal address).");

    return ['refusals' => 1];
});
