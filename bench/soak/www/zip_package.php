<?php
// zip_package: the workspace's app/ folder (402 files) packed into the temp folder, checked and
// removed; and a refusal.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\ZipPackagerTool;

use function PhpClawSoak\{expect, refused, request_id, serve, success, ws};

serve(static function (): array {
    $zip = new ZipPackagerTool(ws());
    $name = 'soak-' . request_id();
    $data = success($zip->execute(['source_dir' => 'app', 'output_name' => $name]))['data'];
    $path = sys_get_temp_dir() . "/$name.zip";
    expect($data['zip_path'] === $path && $data['files'] === 402, 'zip: ' . json_encode($data));
    $head = (string) file_get_contents($path, false, null, 0, 4);
    $size = filesize($path);
    unlink($path);
    expect($head === "PK\x03\x04" && $size === $data['size_bytes'], "not the archive announced: $size bytes");

    refused(fn () => $zip->execute(['source_dir' => '../..', 'output_name' => 'escape']), 'zip_package: source_dir escapes workspace root - blocked.');

    return ['refusals' => 1];
});
