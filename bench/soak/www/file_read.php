<?php
// file_read: a slice with line numbers, and two refusals (a secret, a traversal).

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\FileReadTool;

use function PhpClawSoak\{expect, refused, serve, success, ws};

serve(static function (): array {
    $read = new FileReadTool(ws());
    $data = success($read->execute(['path' => 'app/Models/Order.php', 'offset' => 5, 'limit' => 3, 'line_numbers' => true]))['data'];
    expect($data['content'] === "5\tfinal class Order\n6\t{\n7\t    public const TAX = 0.2;" && $data['next_offset'] === 8, 'wrong slice: ' . json_encode($data));

    refused(fn () => $read->execute(['path' => '.env']), "Access to '.env' files is blocked.");
    refused(fn () => $read->execute(['path' => '../../etc/passwd']), 'Path traversal detected: access denied.');

    return ['refusals' => 2];
});
