<?php
// phpclaw demo: the native built-in tools at work on a sample Laravel-style workspace that this
// script creates (with an embedded SQLite database) and removes again.
// Run with the module loaded: php -d extension=phpclaw demo/tools.php

declare(strict_types=1);

namespace PhpClaw\Skills {
    // phpClaw's skill registry, reduced to what load_skill reads. A phpClaw site has the real one.
    if (!class_exists(SkillRegistry::class)) {
        final class DemoSkill
        {
            public function __construct(private string $name, private string $description, private string $content)
            {
            }

            public function name(): string { return $this->name; }

            public function description(): string { return $this->description; }

            public function content(): string { return $this->content; }
        }

        final class SkillRegistry
        {
            /** @return list<DemoSkill> */
            public static function all(): array
            {
                return [new DemoSkill('refunds', 'How the shop refunds an order.', "1. Find the order.\n2. Refund through the payment provider.\n3. Mark it refunded.")];
            }

            public static function count(): int { return count(self::all()); }

            /** @return list<string> */
            public static function names(): array { return array_map(static fn (DemoSkill $s) => $s->name(), self::all()); }
        }
    }
}

namespace {
    use PhpClaw\Exceptions\ToolException;
    use PhpClaw\Tools\CodeSearchTool;
    use PhpClaw\Tools\DatabaseQueryTool;
    use PhpClaw\Tools\FileEditTool;
    use PhpClaw\Tools\FileReadTool;
    use PhpClaw\Tools\FileWriteTool;
    use PhpClaw\Tools\HttpTool;
    use PhpClaw\Tools\LoadSkillTool;
    use PhpClaw\Tools\ProjectTool;
    use PhpClaw\Tools\ShellTool;
    use PhpClaw\Tools\ZipPackagerTool;

    /** Writes the sample shop: a few PHP classes, a secret .env and a SQLite database. */
    function make_workspace(): string
    {
        $ws = sys_get_temp_dir() . '/phpclaw-demo-' . getmypid();
        $files = [
            'artisan' => "#!/usr/bin/env php\n<?php\n// Laravel's console entry point\n",
            'composer.json' => json_encode(['name' => 'acme/shop', 'require' => ['php' => '^8.2', 'laravel/framework' => '^11.0']], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES),
            'composer.lock' => json_encode(['packages' => [['name' => 'laravel/framework', 'version' => 'v11.9.2'], ['name' => 'guzzlehttp/guzzle', 'version' => '7.8.1']]], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES),
            '.env' => "APP_KEY=base64:c2VjcmV0\nDB_PASSWORD=hunter2\n",
            'app/Models/Order.php' => "<?php\n\nnamespace App\\Models;\n\nfinal class Order\n{\n    public const TAX = 0.2;\n\n    public function total(array \$lines): float\n    {\n        return array_sum(\$lines) * (1 + self::TAX);\n    }\n}\n",
            'app/Http/Controllers/OrderController.php' => "<?php\n\nnamespace App\\Http\\Controllers;\n\nuse App\\Models\\Order;\n\nfinal class OrderController\n{\n    public function show(Order \$order): array\n    {\n        return ['total' => \$order->total([10, 20])];\n    }\n\n    public function refund(int \$id): void\n    {\n    }\n}\n",
            'routes/web.php' => "<?php\n\nRoute::get('/orders/{order}', [OrderController::class, 'show']);\nRoute::post('/orders/{id}/refund', [OrderController::class, 'refund']);\n",
            'vendor/laravel/framework/src/Order.php' => "<?php // vendor code: code_search skips it\n",
        ];
        foreach ($files as $path => $body) {
            @mkdir(dirname("$ws/$path"), 0777, true);
            file_put_contents("$ws/$path", $body);
        }
        @mkdir("$ws/database");
        $db = new PDO("sqlite:$ws/database/shop.sqlite");
        $db->exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL, status TEXT)');
        $insert = $db->prepare('INSERT INTO orders (customer, total, status) VALUES (?, ?, ?)');
        foreach ([['Ada', 120.5, 'paid'], ['Grace', 99.0, 'refunded'], ['Linus', 15.25, 'paid'], ['Ada', 42.0, 'open']] as $row) {
            $insert->execute($row);
        }
        return $ws;
    }

    function remove_tree(string $dir): void
    {
        $items = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($dir, FilesystemIterator::SKIP_DOTS), RecursiveIteratorIterator::CHILD_FIRST);
        foreach ($items as $item) {
            $item->isDir() && !$item->isLink() ? rmdir($item->getPathname()) : unlink($item->getPathname());
        }
        rmdir($dir);
    }

    /** Runs one call and prints its envelope (or the exception a refusal throws), shortened. */
    function show(string $label, object $tool, array $input): ?array
    {
        try {
            $out = $tool->execute($input);
        } catch (ToolException $e) {
            $out = $e::class . ': ' . $e->getMessage();
        }
        printf("%s %s\n  %s\n\n", $label, json_encode($input, JSON_UNESCAPED_SLASHES), (function_exists('mb_strimwidth') ? mb_strimwidth($out, 0, 400, '…') : substr($out, 0, 400)));
        return json_decode($out, true);
    }

    $ws = make_workspace();
    chdir($ws);
    printf("Sample workspace: %s\n\n", $ws);
    try {
        show('project_info: platform, packages, tree', new ProjectTool($ws), ['depth' => 2]);

        $search = new CodeSearchTool($ws);
        show('code_search: a literal (vendor/ skipped)', $search, ['pattern' => 'Order', 'extension' => 'php']);
        show('code_search: a PCRE pattern as preg_match takes it', $search, ['pattern' => '/function\s+(total|refund)\(/i', 'is_regex' => true, 'context_lines' => 1]);

        $read = new FileReadTool($ws);
        show('file_read: a slice with line numbers', $read, ['path' => 'app/Models/Order.php', 'offset' => 5, 'limit' => 4, 'line_numbers' => true]);
        show('file_read: a secret file is refused', $read, ['path' => '.env']);
        show('file_read: escaping the workspace is refused', $read, ['path' => '../../etc/passwd']);

        $edit = new FileEditTool($ws);
        show('file_edit: one unique match replaced', $edit, ['path' => 'app/Models/Order.php', 'old_str' => 'TAX = 0.2;', 'new_str' => 'TAX = 0.21;']);
        show('file_edit: zero matches fail', $edit, ['path' => 'app/Models/Order.php', 'old_str' => 'TAX = 0.5;', 'new_str' => 'x']);

        $write = new FileWriteTool($ws);
        show('file_write: atomic write of a note', $write, ['path' => 'notes/todo.md', 'content' => "- check the 0.21 tax rate\n"]);
        show('file_write: PHP files need allowPhpWrite', $write, ['path' => 'app/Backdoor.php', 'content' => '<?php system($_GET["c"]);']);

        $shell = new ShellTool(['ls', 'wc']);
        show('shell_exec: argv run directly, no shell', $shell, ['command' => 'wc -l routes/web.php']);
        show('shell_exec: metacharacters are refused', $shell, ['command' => 'ls; cat .env']);
        show('shell_exec: a hard-blocked program', $shell, ['command' => 'rm -rf /']);

        $http = new HttpTool();
        show('http_request: cloud metadata refused (SSRF)', $http, ['url' => 'http://169.254.169.254/latest/meta-data/']);
        show('http_request: a decimal loopback refused', $http, ['url' => 'http://2130706433/']);

        $db = new DatabaseQueryTool(new PDO("sqlite:$ws/database/shop.sqlite"), $ws);
        show('db_query: a read through the given PDO', $db, ['sql' => 'SELECT customer, SUM(total) AS spent FROM orders WHERE status = ? GROUP BY customer ORDER BY spent DESC', 'params' => ['paid']]);
        show('db_query: writes never reach the database', $db, ['sql' => 'DELETE FROM orders']);
        show('db_query: nor do stacked statements', $db, ['sql' => 'SELECT 1; DROP TABLE orders']);

        $zip = new ZipPackagerTool($ws);
        foreach (['shop-app', '../shop-app'] as $name) {
            $label = $name === 'shop-app' ? 'zip_package: a folder under one top folder' : 'zip_package: a name keeps only [A-Za-z0-9_-]';
            $made = show($label, $zip, ['source_dir' => 'app', 'output_name' => $name]);
            @unlink($made['data']['zip_path'] ?? '');
        }

        show('load_skill: instructions by name', new LoadSkillTool(), ['name' => 'refunds']);
        printf("LoadSkillTool::systemPromptSection():\n%s\n", LoadSkillTool::systemPromptSection());
    } finally {
        chdir(sys_get_temp_dir());
        remove_tree($ws);
    }
}
