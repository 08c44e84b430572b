<?php
// project_info: framework, packages and a two-level tree of the workspace.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\ProjectTool;

use function PhpClawSoak\{expect, serve, success, ws};

serve(static function (): array {
    $data = success((new ProjectTool(ws()))->execute(['depth' => 2]))['data'];
    expect($data['framework'] === 'laravel' && $data['packages'] === [['name' => 'laravel/framework', 'version' => 'v11.9.2']], 'project: ' . json_encode($data));
    expect(isset($data['file_tree']['app/']), 'no app/ in the tree');

    return [];
});
