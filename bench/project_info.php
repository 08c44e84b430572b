<?php
// project_info through PHP: the native ProjectTool against a plain-PHP project tool written
// below (the reference's steps: guard, depth clamp, marker files, file_get_contents +
// json_decode of composer.lock, DirectoryIterator tree, json_encode of the envelope), in one
// process, alternated round by round, wall and CPU time. Fixtures (kept under the temp dir):
//   - a folder holding only a generated composer.lock of 150 packages with full metadata
//     (bench/composer_lock.php, ~500 KB): the native tool against the plain-PHP tool, and against
//     PHP's bare json_decode of the same file;
//   - a Laravel-like project of ~5,000 files within depth 3 (plus vendor/, storage/ and deeper
//     folders): depth 3, native against plain PHP (target: at least 3x).
// Checked first: the same packages and the same tree (each folder sorted: the native tree is
// sorted by name, DirectoryIterator's is not) from both.
// Run: php -d extension=<path>/libphpclaw.so bench/project_info.php

declare(strict_types=1);

require __DIR__.'/PlainLifecycle.php';
require __DIR__.'/measure.php';
require __DIR__.'/composer_lock.php';

use PhpClaw\Tools\ProjectTool;

/** A plain-PHP project_info: the reference's algorithm, in plain PHP of our own. */
final class PlainProject
{
    use PhpClawBench\PlainLifecycle;

    private const MARKERS = ['wordpress' => ['wp-config.php', 'wp-load.php'], 'joomla' => ['configuration.php', 'libraries/src'],
        'opencart' => ['system/startup.php'], 'prestashop' => ['config/defines.inc.php'], 'laravel' => ['artisan'],
        'symfony' => ['bin/console'], 'magento' => ['bin/magento'], 'drupal' => ['core/lib/Drupal.php']];
    private const SKIP = ['vendor', 'node_modules', '.git', '.idea', 'storage', 'cache'];

    public function __construct(private string $root)
    {
    }

    public function requiredCapability(): string { return 'phpclaw.tools'; }
    protected function runningInConsole(): bool { return false; }
    protected function callerHasCapability(string $capability): bool { return true; }
    protected function maxRecoveryAttempts(): int { return 0; }

    protected function plan(array $input): array
    {
        $forbidden = $this->guardCapability('inspect this project');
        if ($forbidden !== null) {
            return ['input' => $input, 'result' => $forbidden];
        }
        if (dirname($this->root) === $this->root || !is_dir($this->root)) {
            throw new RuntimeException('bad root');
        }
        return ['input' => ['depth' => max(1, min(4, (int) ($input['depth'] ?? 2)))], 'result' => null];
    }

    protected function perform(array $input): array
    {
        $framework = 'unknown';
        foreach (self::MARKERS as $name => $files) {
            foreach ($files as $f) {
                if (file_exists($this->root.'/'.$f)) {
                    $framework = $name;
                    break 2;
                }
            }
        }
        $packages = [];
        $lock = $this->root.'/composer.lock';
        if (is_file($lock)) {
            $data = json_decode((string) file_get_contents($lock), true);
            foreach ((array) (($data['packages'] ?? []) ?: []) as $p) {
                $packages[] = ['name' => (string) ($p['name'] ?? ''), 'version' => (string) ($p['version'] ?? '')];
            }
        }
        return ['framework' => $framework, 'root' => $this->root, 'packages' => $packages,
            'file_tree' => $this->tree($this->root, (int) $input['depth'])];
    }

    private function tree(string $dir, int $depth, int $level = 0): array
    {
        if ($level >= $depth) {
            return [];
        }
        $items = [];
        try {
            foreach (new DirectoryIterator($dir) as $e) {
                if ($e->isDot() || in_array($e->getFilename(), self::SKIP, true)) {
                    continue;
                }
                if ($e->isDir()) {
                    $items[$e->getFilename().'/'] = $this->tree($e->getPathname(), $depth, $level + 1);
                } else {
                    $items[] = $e->getFilename();
                }
            }
        } catch (Throwable) {
            return [];
        }
        return $items;
    }

    protected function verify(array $execution, array $input): array { return ['result' => null]; }

    protected function complete(array $execution, array $input): string
    {
        return $this->success($execution, ['mode' => 'project_info', 'depth' => (int) $input['depth']]);
    }

    /** Core tools encode verbatim (no entity decoding). */
    protected function encodeResult(array $result): string
    {
        return json_encode($result, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
    }
}

function lock_fixture(): string
{
    $root = sys_get_temp_dir().'/phpclaw-bench-project-lock';
    @mkdir($root);
    if (!is_file($root.'/composer.lock') || filesize($root.'/composer.lock') !== strlen(composer_lock_text(150))) {
        write_composer_lock($root.'/composer.lock', 150);
    }
    return $root;
}

function tree_fixture(): string
{
    $root = sys_get_temp_dir().'/phpclaw-bench-project-tree';
    if (is_file($root.'/.done')) {
        return $root;
    }
    $folders = ['app/Models' => 700, 'app/Services' => 600, 'app/Jobs' => 300, 'database/migrations' => 800,
        'database/seeders' => 200, 'resources/views' => 700, 'tests/Feature' => 600, 'tests/Unit' => 400,
        'config' => 60, 'routes' => 8, 'lang/en' => 300, 'public/js' => 200, 'app/Http/Controllers/Api' => 200,
        'resources/views/admin/users' => 100, 'vendor/laravel/framework/src' => 500, 'storage/logs' => 50];
    foreach ($folders as $dir => $n) {
        @mkdir("$root/$dir", 0777, true);
        for ($i = 0; $i < $n; $i++) {
            file_put_contents(sprintf('%s/%s/File%04d.php', $root, $dir, $i), "<?php\n// $dir $i\n");
        }
    }
    foreach (['artisan', 'composer.json', 'package.json', 'README.md', '.editorconfig', 'phpunit.xml'] as $f) {
        file_put_contents("$root/$f", "x\n");
    }
    touch($root.'/.done');
    return $root;
}

echo "project_info through PHP (", bench_load(), ")\n";
$lockRoot = lock_fixture();
$lockFile = $lockRoot.'/composer.lock';
$treeRoot = tree_fixture();
foreach ([[$lockRoot, 1], [$treeRoot, 3]] as [$root, $depth]) {
    $n = json_decode((new ProjectTool($root))->execute(['depth' => $depth]), true)['data'];
    $p = json_decode((new PlainProject($root))->execute(['depth' => $depth]), true)['data'];
    if ($n['packages'] !== $p['packages'] || $n['framework'] !== $p['framework']
        || sorted_tree($n['file_tree']) !== sorted_tree($p['file_tree'])) {
        fwrite(STDERR, "different answers for $root\n");
        exit(1);
    }
}
$count = static function (array $t) use (&$count): int {
    $n = 0;
    foreach ($t as $k => $v) {
        $n += is_int($k) ? 1 : 1 + $count($v);
    }
    return $n;
};
$tree = json_decode((new ProjectTool($treeRoot))->execute(['depth' => 3]), true)['data']['file_tree'];
printf("composer.lock: %d bytes, 150 packages; tree: %d entries within depth 3\n", filesize($lockFile), $count($tree));

$native = new ProjectTool($lockRoot);
$plain = new PlainProject($lockRoot);
bench_compare('project_info lock (150 pkgs) vs plain PHP', fn () => $native->execute(['depth' => 1]), fn () => $plain->execute(['depth' => 1]), 20);
bench_compare('project_info lock vs bare json_decode', fn () => $native->execute(['depth' => 1]), fn () => json_decode((string) file_get_contents($lockFile), true), 20);
$native = new ProjectTool($treeRoot);
$plain = new PlainProject($treeRoot);
// The tree is names only: no stat per entry (PHP's isDir() costs one per entry).
bench_compare('project_info depth 3 (5k entries) vs plain PHP', fn () => $native->execute(['depth' => 3]), fn () => $plain->execute(['depth' => 3]), 5);
