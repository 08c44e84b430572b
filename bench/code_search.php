<?php
// code_search and project_info over a generated tree (2000 PHP files, ~16 MB): the native tools
// against ripgrep (`rg`, same literal and regex) and against a plain-PHP implementation written
// below (RecursiveDirectoryIterator + strpos / preg_match; DirectoryIterator for the tree).
// Checked first: the same matching lines (file and line) from native and plain PHP, the same
// count from rg, the same tree from both. The literal searches also print the kernel's floor of
// the same walk (examples/code_search_floor.rs, when built) and the tool's time over it. Run:
//   php -d extension=<path>/libphpclaw.so bench/code_search.php

declare(strict_types=1);

require __DIR__.'/measure.php';

use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\ProjectTool;

const SKIP = ['vendor', 'node_modules', '.git', '.idea'];

/** Plain PHP: every matching line (file, line), the walk the reference does; `$where` gets
 * "file:line" of each hit when given (the check, not the timed runs). */
function plain_search(string $root, string $pattern, bool $regex, ?array &$where = null): int
{
    $it = new RecursiveIteratorIterator(new RecursiveCallbackFilterIterator(
        new RecursiveDirectoryIterator($root, FilesystemIterator::SKIP_DOTS),
        static fn (SplFileInfo $f): bool => !in_array($f->getFilename(), SKIP, true),
    ));
    $hits = 0;
    foreach ($it as $file) {
        if (!$file->isFile() || $file->getSize() > 1048576) {
            continue;
        }
        $lines = @file($file->getPathname(), FILE_IGNORE_NEW_LINES);
        if ($lines === false) {
            continue;
        }
        foreach ($lines as $i => $line) {
            if ($regex ? preg_match($pattern, $line) === 1 : str_contains($line, $pattern)) {
                $hits++;
                if ($where !== null) {
                    $where[] = substr($file->getPathname(), strlen($root) + 1).':'.($i + 1);
                }
            }
        }
    }
    return $hits;
}

/** Plain PHP project tree. */
function plain_tree(string $dir, int $depth, int $level = 0): array
{
    if ($level >= $depth) {
        return [];
    }
    $items = [];
    foreach (new DirectoryIterator($dir) as $e) {
        if ($e->isDot() || in_array($e->getFilename(), ['vendor', 'node_modules', '.git', '.idea', 'storage', 'cache'], true)) {
            continue;
        }
        if ($e->isDir()) {
            $items[$e->getFilename().'/'] = plain_tree($e->getPathname(), $depth, $level + 1);
        } else {
            $items[] = $e->getFilename();
        }
    }
    return $items;
}

function tree_fixture(): string
{
    $root = sys_get_temp_dir().'/phpclaw-bench-code-search';
    if (is_file($root.'/.done')) {
        return $root;
    }
    mt_srand(7);
    for ($i = 0; $i < 2000; $i++) {
        $dir = sprintf('%s/src/m%02d/p%02d', $root, intdiv($i, 100), intdiv($i, 10) % 10);
        @mkdir($dir, 0777, true);
        $body = "<?php\n\nnamespace App\\M$i;\n\n";
        while (strlen($body) < 8000) {
            $n = mt_rand();
            $body .= "    public function handle{$n}(array \$input): string { return \$this->render('view.$n', \$input); }\n";
        }
        if ($i % 50 === 0) {
            $body .= "    // needle: buildPayload(\$order)\n";
        }
        file_put_contents("$dir/Class$i.php", $body);
    }
    touch($root.'/.done');
    return $root;
}

/**
 * The kernel's floor of a literal search of $root (examples/code_search_floor.rs: the same walk
 * with plain system calls, nothing else), printed beside the tool's time: how far above it the
 * tool is. Skipped with a hint when the example is not built.
 *
 * @param array{float, float} $native the tool's [wall, cpu] per call in µs
 */
function print_floor(string $label, array $native, string $root, string $literal): void
{
    $bin = getenv('PHPCLAW_FLOOR') ?: __DIR__.'/../target/ci/examples/code_search_floor';
    $out = is_executable($bin) ? (string) shell_exec(escapeshellarg($bin).' '.escapeshellarg($root).' '.escapeshellarg($literal).' 30') : '';
    if (!preg_match('/^floor\|([\d.]+)\|([\d.]+)\|(\d+)\|/m', $out, $m)) {
        echo "  (no floor: cargo build --profile ci --no-default-features --example code_search_floor)\n";
        return;
    }
    [$wall, $cpu] = [(float) $m[1] * 1000, (float) $m[2] * 1000];
    printf("  %-44s floor  %10.2f us wall %10.2f us cpu (%d files read); native/floor %.2fx wall, %.2fx cpu\n",
        $label, $wall, $cpu, (int) $m[3], $native[0] / max($wall, 1e-9), $native[1] / max($cpu, 1e-9));
}

function best(callable $f, int $runs = 5): float
{
    $best = INF;
    for ($i = 0; $i < $runs; $i++) {
        $t = hrtime(true);
        $f();
        $best = min($best, (hrtime(true) - $t) / 1e6);
    }
    return $best;
}

$root = tree_fixture();
$bytes = (int) shell_exec('du -sb '.escapeshellarg($root.'/src').' | cut -f1');
printf("tree: %s (%d files, %.1f MB; %s)\n", $root, 2000, $bytes / 1e6, bench_load());
$tool = new CodeSearchTool($root);
foreach ([['buildPayload', false, 'buildPayload'], ['/build\w+\(\$ord/', true, 'build\w+\(\$ord']] as [$pattern, $regex, $rgPattern]) {
    $data = json_decode($tool->execute(['pattern' => $pattern, 'is_regex' => $regex]), true)['data'];
    $native = $data['total'];
    $where = [];
    $plain = plain_search($root, $pattern, $regex, $where);
    sort($where, SORT_STRING);
    $nativeWhere = array_map(fn (array $r): string => $r['file'].':'.$r['line'], $data['results']);
    sort($nativeWhere, SORT_STRING);
    if ($data['truncated'] || $nativeWhere !== $where) {
        fwrite(STDERR, "different lines for $pattern\n");
        exit(1);
    }
    // Summed here rather than with paste and bc, which the PHP 8.4 root of bench/matrix.sh lacks.
    $rg = array_sum(array_map('intval', preg_split('/\s+/', trim((string) shell_exec('rg -c --no-filename -j1 '.escapeshellarg($rgPattern).' '.escapeshellarg($root))))));
    if ($native !== $plain || $rg !== $plain) {
        fwrite(STDERR, "mismatch for $pattern: native $native plain $plain rg $rg\n");
        exit(1);
    }
    $tr = best(fn () => shell_exec('rg -n '.escapeshellarg($rgPattern).' '.escapeshellarg($root).' > /dev/null'));
    $tr1 = best(fn () => shell_exec('rg -n -j1 '.escapeshellarg($rgPattern).' '.escapeshellarg($root).' > /dev/null'));
    $label = sprintf('code_search %s, 2000 files', $regex ? 'regex' : 'literal');
    [$timed] = bench_compare($label, fn () => $tool->execute(['pattern' => $pattern, 'is_regex' => $regex]), fn () => plain_search($root, $pattern, $regex), 1, 5);
    $tn = $timed[0];
    if (!$regex) {
        print_floor($label, $timed, $root, $pattern);
    }
    printf("  %d hits; rg %.1f ms (rg -j1 %.1f ms); native/rg %.2fx, native/rg-j1 %.2fx (wall)\n",
        $native, $tr, $tr1, $tn / 1000 / $tr, $tn / 1000 / $tr1);
}
// The tree cache (php.ini phpclaw.search_cache_size): each child PHP times its first search of
// the 2,000 files (cache empty: it reads every file, and watches every folder) and the next one
// (warm), with the cache on (default budget, 16M: this ~16 MB tree does not fit whole), with a
// budget that holds it, and off. Medians of 5 children each.
$so = '';
foreach (file('/proc/self/maps') ?: [] as $line) {
    if (preg_match('#\s(/\S*libphpclaw\.so)$#', trim($line), $m)) {
        $so = $m[1];
        break;
    }
}
if ($so !== '') {
    $child = '<?php $t = new PhpClaw\Tools\CodeSearchTool(' . var_export($root, true) . ');
        $a = hrtime(true); $t->execute(["pattern" => "buildPayload"]); $b = hrtime(true);
        $t->execute(["pattern" => "buildPayload"]); $c = hrtime(true);
        echo ($b - $a) / 1e6, " ", ($c - $b) / 1e6;';
    $file = tempnam(sys_get_temp_dir(), 'phpclaw-bench-cache-');
    file_put_contents($file, $child);
    foreach (['16M (default)' => '16M', '64M' => '64M', '0 (off)' => '0'] as $label => $size) {
        $first = $next = [];
        for ($i = 0; $i < 5; $i++) {
            $out = (string) shell_exec(escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($so)
                . ' -d phpclaw.search_cache_size=' . $size . ' ' . escapeshellarg($file));
            [$f, $n] = array_map('floatval', explode(' ', trim($out)) + [1 => 0]);
            $first[] = $f;
            $next[] = $n;
        }
        sort($first);
        sort($next);
        printf("  code_search literal, 2000 files, search_cache_size=%-14s first search %6.2f ms, next %6.2f ms\n", $label, $first[2], $next[2]);
    }
    unlink($file);
}
// A small tree (one folder of 100 files): searched on the calling thread, CPU time about its wall time.
$small = json_decode($tool->execute(['pattern' => 'buildPayload', 'path' => 'src/m00']), true)['data']['total'];
if ($small !== plain_search($root.'/src/m00', 'buildPayload', false)) {
    fwrite(STDERR, "different counts on the small tree\n");
    exit(1);
}
[$timed] = bench_compare('code_search literal, 100 files', fn () => $tool->execute(['pattern' => 'buildPayload', 'path' => 'src/m00']),
    fn () => plain_search($root.'/src/m00', 'buildPayload', false), 5, 7);
print_floor('code_search literal, 100 files', $timed, $root.'/src/m00', 'buildPayload');
$project = new ProjectTool($root);
if (sorted_tree(json_decode($project->execute(['depth' => 3]), true)['data']['file_tree']) !== sorted_tree(plain_tree($root, 3))) {
    fwrite(STDERR, "different trees\n");
    exit(1);
}
bench_compare('project_info depth 3 (this tree, no files within)', fn () => $project->execute(['depth' => 3]), fn () => json_encode(plain_tree($root, 3)), 20);
