<?php

declare(strict_types=1);

/*
 * The whole-turn benchmark's workspace: a generated Laravel-like application of about 2,000 files
 * (controllers, models, services, jobs, migrations, Blade views, tests, config, routes, a
 * composer.lock of 150 packages with full metadata, a vendor folder the walks skip, a .env).
 * Deterministic: the same seed gives the same bytes, so both children see the same tree.
 */

/** Create the workspace under $root (which must not exist yet); returns the number of files written. */
function turn_bench_workspace(string $root): int
{
    mt_srand(20260);
    $files = 0;
    $put = static function (string $rel, string $body) use ($root, &$files): void {
        $path = "$root/$rel";
        $dir = dirname($path);
        if (!is_dir($dir)) {
            mkdir($dir, 0777, true);
        }
        file_put_contents($path, $body);
        $files++;
    };
    $nouns = ['Order', 'Customer', 'Invoice', 'Product', 'Cart', 'Payment', 'Shipment', 'Coupon', 'Review', 'Post',
        'Page', 'Media', 'Setting', 'Report', 'Newsletter', 'Subscriber', 'Category', 'Tag', 'Team', 'User',
        'Role', 'Permission', 'Address', 'Refund', 'Warehouse', 'Supplier', 'Ticket', 'Comment', 'Vendor', 'Plan'];
    $verbs = ['index', 'show', 'store', 'update', 'destroy', 'export', 'import', 'search', 'archive', 'restore'];

    // app/: 30 nouns x (controller, API controller, model, service, repository, policy, two
    // requests, resource, observer, event, listener, job, mail, notification) = 450 classes,
    // then numbered variants until the tree holds about 2,000 files.
    $class = static function (string $ns, string $name, string $extends, array $methods, string $extra = ''): string {
        $body = "<?php\n\nnamespace $ns;\n\nuse Illuminate\\Support\\Facades\\Log;\nuse Illuminate\\Support\\Facades\\DB;\n\n";
        $body .= "/**\n * $name: generated for the phpclaw whole-turn benchmark.\n */\nclass $name" . ($extends !== '' ? " extends $extends" : '') . "\n{\n$extra";
        foreach ($methods as $m) {
            $n = mt_rand(1, 99999);
            $body .= "    /**\n     * Handle the {$m} step ({$n}).\n     */\n";
            $body .= "    public function {$m}(array \$input = []): array\n    {\n";
            $body .= "        \$limit = (int) (\$input['limit'] ?? 25);\n";
            $body .= "        \$rows = DB::table('{$m}_items')->where('status', 'active')->limit(\$limit)->get();\n";
            $body .= "        Log::info('{$name}::{$m} returned ' . count(\$rows) . ' rows');\n";
            $body .= "        return ['data' => \$rows, 'meta' => ['limit' => \$limit, 'seed' => {$n}]];\n    }\n\n";
        }
        return rtrim($body) . "\n}\n";
    };
    foreach ($nouns as $noun) {
        $lower = strtolower($noun);
        $plural = $lower . 's';
        $put("app/Http/Controllers/{$noun}Controller.php", $class('App\\Http\\Controllers', "{$noun}Controller", 'Controller', $verbs,
            "    public function __construct(private \\App\\Services\\{$noun}Service \$service)\n    {\n    }\n\n"));
        $put("app/Http/Controllers/Api/{$noun}ApiController.php", $class('App\\Http\\Controllers\\Api', "{$noun}ApiController", '\\App\\Http\\Controllers\\Controller', array_slice($verbs, 0, 6)));
        $put("app/Models/{$noun}.php", $class('App\\Models', $noun, 'Model', ['scopeActive', 'scopeRecent', 'owner', 'items'],
            "    protected \$table = '{$plural}';\n\n    protected \$fillable = ['name', 'status', 'total', 'notes'];\n\n    protected \$casts = ['total' => 'decimal:2', 'paid_at' => 'datetime'];\n\n"));
        $put("app/Services/{$noun}Service.php", $class('App\\Services', "{$noun}Service", '', ['list', 'find', 'create', 'update', 'delete', 'export']));
        $put("app/Repositories/{$noun}Repository.php", $class('App\\Repositories', "{$noun}Repository", '', ['all', 'paginate', 'findById', 'save']));
        $put("app/Policies/{$noun}Policy.php", $class('App\\Policies', "{$noun}Policy", '', ['viewAny', 'view', 'create', 'update', 'delete']));
        $put("app/Http/Requests/Store{$noun}Request.php", $class('App\\Http\\Requests', "Store{$noun}Request", 'FormRequest', ['rules', 'authorize']));
        $put("app/Http/Requests/Update{$noun}Request.php", $class('App\\Http\\Requests', "Update{$noun}Request", 'FormRequest', ['rules', 'authorize']));
        $put("app/Http/Resources/{$noun}Resource.php", $class('App\\Http\\Resources', "{$noun}Resource", 'JsonResource', ['toArray']));
        $put("app/Observers/{$noun}Observer.php", $class('App\\Observers', "{$noun}Observer", '', ['created', 'updated', 'deleted']));
        $put("app/Events/{$noun}Updated.php", $class('App\\Events', "{$noun}Updated", '', ['broadcastOn']));
        $put("app/Listeners/Send{$noun}Notification.php", $class('App\\Listeners', "Send{$noun}Notification", '', ['handle']));
        $put("app/Jobs/Process{$noun}.php", $class('App\\Jobs', "Process{$noun}", '', ['handle', 'failed']));
        $put("app/Mail/{$noun}Summary.php", $class('App\\Mail', "{$noun}Summary", 'Mailable', ['build']));
        $put("app/Notifications/{$noun}Changed.php", $class('App\\Notifications', "{$noun}Changed", 'Notification', ['via', 'toMail']));
        $put("database/factories/{$noun}Factory.php", $class('Database\\Factories', "{$noun}Factory", 'Factory', ['definition']));
        $put("database/seeders/{$noun}Seeder.php", $class('Database\\Seeders', "{$noun}Seeder", 'Seeder', ['run']));
        foreach (['index', 'show', 'create', 'edit', '_form', '_row', '_filters'] as $view) {
            $body = "@extends('layouts.app')\n\n@section('content')\n<div class=\"container\">\n  <h1>{{ __('{$plural}.{$view}') }}</h1>\n";
            for ($i = 0; $i < 12; $i++) {
                $body .= "  <div class=\"row\">@include('{$plural}._row', ['item' => \$items[$i] ?? null, 'n' => " . mt_rand(1, 999) . "])</div>\n";
            }
            $put("resources/views/{$plural}/{$view}.blade.php", $body . "</div>\n@endsection\n");
        }
        foreach (['Feature', 'Unit'] as $kind) {
            $put("tests/$kind/{$noun}Test.php", $class("Tests\\$kind", "{$noun}Test", 'TestCase', ['test_index_lists_items', 'test_store_validates', 'test_export_streams_csv']));
        }
        $put("lang/en/{$plural}.php", "<?php\n\nreturn [\n    'index' => '" . ucfirst($plural) . "',\n    'show' => '$noun details',\n    'create' => 'New $lower',\n    'edit' => 'Edit $lower',\n];\n");
    }
    // Migrations: two per noun plus numbered alterations.
    for ($i = 0; $i < 180; $i++) {
        $noun = $nouns[$i % count($nouns)];
        $table = strtolower($noun) . 's';
        $name = sprintf('2024_%02d_%02d_%06d_alter_%s_table_%d', 1 + $i % 12, 1 + $i % 28, $i * 37, $table, $i);
        $body = "<?php\n\nuse Illuminate\\Database\\Migrations\\Migration;\nuse Illuminate\\Database\\Schema\\Blueprint;\nuse Illuminate\\Support\\Facades\\Schema;\n\nreturn new class extends Migration\n{\n    public function up(): void\n    {\n        Schema::table('$table', function (Blueprint \$table) {\n";
        for ($c = 0; $c < 8; $c++) {
            $body .= "            \$table->string('column_{$i}_{$c}')->nullable();\n";
        }
        $put("database/migrations/$name.php", $body . "        });\n    }\n};\n");
    }
    // Numbered modules until the tree holds about 2,000 files (vendor not counted).
    $n = 0;
    while ($files < 1960) {
        $noun = $nouns[$n % count($nouns)];
        $module = sprintf('Module%02d', intdiv($n, 40));
        $put("app/Domain/$module/{$noun}Handler{$n}.php", $class("App\\Domain\\$module", "{$noun}Handler{$n}", '', ['handle', 'validate', 'transform']));
        $n++;
    }
    // Config, routes and the project files.
    foreach (['app', 'auth', 'cache', 'database', 'filesystems', 'logging', 'mail', 'queue', 'services', 'session', 'view', 'cors', 'broadcasting', 'sanctum', 'horizon'] as $cfg) {
        $body = "<?php\n\nreturn [\n";
        for ($i = 0; $i < 20; $i++) {
            $body .= "    '{$cfg}_option_$i' => env('" . strtoupper($cfg) . "_OPTION_$i', " . mt_rand(0, 500) . "),\n";
        }
        $put("config/$cfg.php", $body . "    'timezone' => 'UTC',\n];\n");
    }
    $web = "<?php\n\nuse Illuminate\\Support\\Facades\\Route;\n\n";
    $api = "<?php\n\nuse Illuminate\\Support\\Facades\\Route;\n\n";
    foreach ($nouns as $noun) {
        $plural = strtolower($noun) . 's';
        $web .= "Route::resource('$plural', \\App\\Http\\Controllers\\{$noun}Controller::class);\n";
        $web .= "Route::get('$plural/export', [\\App\\Http\\Controllers\\{$noun}Controller::class, 'export'])->name('$plural.export');\n";
        $api .= "Route::apiResource('$plural', \\App\\Http\\Controllers\\Api\\{$noun}ApiController::class);\n";
    }
    $put('routes/web.php', $web);
    $put('routes/api.php', $api);
    $put('routes/console.php', "<?php\n\nuse Illuminate\\Support\\Facades\\Artisan;\n\nArtisan::command('inspire', fn () => \$this->comment('Keep going.'));\n");
    $put('.env', "APP_NAME=Shop\nAPP_KEY=base64:c2VjcmV0LWtleS1mb3ItdGhlLWJlbmNo\nDB_PASSWORD=hunter2\n");
    $put('.env.example', "APP_NAME=Shop\nAPP_KEY=\nDB_PASSWORD=\n");
    $put('artisan', "#!/usr/bin/env php\n<?php\n\nrequire __DIR__.'/vendor/autoload.php';\n");
    $put('README.md', "# Shop\n\nA Laravel shop used by the phpclaw whole-turn benchmark.\n");
    $put('phpunit.xml', "<?xml version=\"1.0\"?>\n<phpunit bootstrap=\"vendor/autoload.php\"><testsuites><testsuite name=\"Feature\"><directory>tests/Feature</directory></testsuite></testsuites></phpunit>\n");
    $put('.gitignore', "/vendor\n/node_modules\n.env\n");
    $put('package.json', json_encode(['private' => true, 'type' => 'module', 'scripts' => ['dev' => 'vite', 'build' => 'vite build'],
        'devDependencies' => ['axios' => '^1.6.4', 'laravel-vite-plugin' => '^1.0.0', 'vite' => '^5.0.0', 'tailwindcss' => '^3.4.0']], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");
    $require = ['php' => '^8.2', 'laravel/framework' => '^11.0', 'laravel/sanctum' => '^4.0', 'guzzlehttp/guzzle' => '^7.8'];
    $put('composer.json', json_encode(['name' => 'acme/shop', 'type' => 'project', 'require' => $require,
        'require-dev' => ['phpunit/phpunit' => '^11.0', 'mockery/mockery' => '^1.6'],
        'autoload' => ['psr-4' => ['App\\' => 'app/', 'Database\\Factories\\' => 'database/factories/']]], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");
    // composer.lock: 150 packages with the metadata Composer writes (source, dist, require,
    // autoload, authors, description, keywords, support, funding, time).
    $packages = [];
    for ($i = 0; $i < 150; $i++) {
        $vendor = ['laravel', 'symfony', 'illuminate', 'guzzlehttp', 'league', 'nesbot', 'monolog', 'ramsey', 'brick', 'nunomaduro'][$i % 10];
        $name = "$vendor/package-$i";
        $packages[] = [
            'name' => $name, 'version' => 'v' . (1 + $i % 9) . '.' . ($i % 13) . '.' . ($i % 7),
            'source' => ['type' => 'git', 'url' => "https://github.com/$name.git", 'reference' => sha1($name)],
            'dist' => ['type' => 'zip', 'url' => "https://api.github.com/repos/$name/zipball/" . sha1($name), 'reference' => sha1($name), 'shasum' => ''],
            'require' => ['php' => '>=8.1', "$vendor/contracts" => '^' . (1 + $i % 5) . '.0', 'psr/log' => '^1.0|^2.0|^3.0'],
            'require-dev' => ['phpunit/phpunit' => '^10.5', 'mockery/mockery' => '^1.6'],
            'type' => 'library',
            'autoload' => ['psr-4' => [ucfirst($vendor) . "\\Package$i\\" => 'src/'], 'files' => ['src/helpers.php']],
            'notification-url' => 'https://packagist.org/downloads/',
            'license' => ['MIT'],
            'authors' => [['name' => "Maintainer $i", 'email' => "maintainer$i@example.com", 'homepage' => "https://example.com/$i"], ['name' => 'Community contributors', 'homepage' => "https://github.com/$name/contributors"]],
            'description' => "Package $i of the benchmark's lock file: a library that helps with a part of a web application (queues, mail, caching, HTTP).",
            'homepage' => "https://github.com/$name",
            'keywords' => ['laravel', 'framework', $vendor, "package-$i", 'php'],
            'support' => ['issues' => "https://github.com/$name/issues", 'source' => "https://github.com/$name/tree/v1.0.$i"],
            'funding' => [['url' => "https://github.com/sponsors/$vendor", 'type' => 'github'], ['url' => "https://tidelift.com/funding/github/packagist/$name", 'type' => 'tidelift']],
            'time' => sprintf('2024-%02d-%02dT10:%02d:00+00:00', 1 + $i % 12, 1 + $i % 28, $i % 60),
        ];
    }
    $put('composer.lock', json_encode(['_readme' => ['This file locks the dependencies of your project to a known state'],
        'content-hash' => md5('lock'), 'packages' => array_slice($packages, 0, 120), 'packages-dev' => array_slice($packages, 120),
        'aliases' => [], 'minimum-stability' => 'stable', 'stability-flags' => [], 'prefer-stable' => true, 'prefer-lowest' => false,
        'platform' => ['php' => '^8.2'], 'platform-dev' => [], 'plugin-api-version' => '2.6.0'], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");
    // Folders the walks skip: vendor, node_modules, storage; and an empty public/ asset folder.
    for ($i = 0; $i < 60; $i++) {
        $put(sprintf('vendor/laravel/framework/src/Illuminate/Part%02d.php', $i), $class('Illuminate', "Part$i", '', ['handle']));
    }
    $put('node_modules/vite/package.json', "{\"name\": \"vite\"}\n");
    $put('storage/logs/laravel.log', "[2024-01-01 00:00:00] local.INFO: started\n");
    $put('public/index.php', "<?php\n\nrequire __DIR__.'/../vendor/autoload.php';\n");
    return $files;
}

/** Remove a tree made by turn_bench_workspace (no link is followed). */
function turn_bench_remove(string $dir): void
{
    if (!is_dir($dir) || is_link($dir)) {
        @unlink($dir);
        return;
    }
    foreach (scandir($dir) as $e) {
        if ($e !== '.' && $e !== '..') {
            turn_bench_remove("$dir/$e");
        }
    }
    rmdir($dir);
}
