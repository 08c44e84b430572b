<?php
// file_write: this worker's own note rewritten (read back byte for byte), and a refusal.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\FileWriteTool;

use function PhpClawSoak\{expect, refused, request_id, serve, success, ws};

serve(static function (): array {
    $write = new FileWriteTool(ws());
    $path = 'notes/worker-' . getmypid() . '.md';
    $content = str_repeat('- request ' . request_id() . "\n", 1 + request_id() % 200);
    $data = success($write->execute(['path' => $path, 'content' => $content]))['data'];
    expect($data['bytes_written'] === strlen($content), 'wrong byte count: ' . json_encode($data));
    expect(file_get_contents(ws() . '/' . $path) === $content, "$path does not hold what was written");

    refused(fn () => $write->execute(['path' => 'app/Backdoor.php', 'content' => '<?php']), 'Writing .php files is blocked by default. Enable allowPhpWrite to permit it.');

    return ['refusals' => 1];
});
