<?php
// file_write and file_edit of a small file through PHP: the native tools against plain-PHP
// versions of the same steps (name checks, symlink walk, realpath, temp file + rename,
// json_encode), one process, one workspace. Neither side syncs (as phpClaw); the native tools
// with php.ini `phpclaw.durable_writes` on (fsync of the file and its folder) are timed apart,
// printed without a ratio line: that figure is the cost of the disk flushes. The cases run in
// alternated rounds (each round: every case for iterations/rounds calls) and the medians of the
// rounds are shown, so a change of load on a shared machine hits every case alike.
// Run: php -d extension=<path>/libphpclaw.so bench/file_write_edit.php [iterations] [rounds]

declare(strict_types=1);

use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;

/** Plain-PHP atomic write: temp file in the same folder, copy the mode, rename. */
function plain_atomic(string $target, string $content): void
{
    $tmp = tempnam(dirname($target), '.plain-');
    if ($tmp === false || file_put_contents($tmp, $content, LOCK_EX) !== strlen($content)) {
        throw new RuntimeException('write failed');
    }
    $mode = @fileperms($target);
    if ($mode !== false) {
        chmod($tmp, $mode & 0777);
    }
    if (!rename($tmp, $target)) {
        @unlink($tmp);
        throw new RuntimeException('rename failed');
    }
}

/** Plain-PHP checks on a relative path: traversal, names, extensions, folders, symlinks. */
function plain_checks(string $root, string $rel): string
{
    static $names = ['.htaccess', 'id_rsa', 'wp-config.php', 'composer.json', '.gitignore', 'credentials.json'];
    static $exts = ['php', 'phtml', 'phar', 'sh', 'bash', 'exe', 'bat', 'cmd', 'ps1', 'key', 'pem', 'env'];
    static $dirs = ['vendor', 'node_modules', '.git', '.ssh', 'core', 'system', 'sysext'];
    if (str_contains($rel, '..')) {
        throw new RuntimeException('traversal');
    }
    $base = strtolower(basename($rel));
    if (str_starts_with($base, '.env') || in_array($base, $names, true)) {
        throw new RuntimeException('blocked');
    }
    if (in_array(strtolower(pathinfo($rel, PATHINFO_EXTENSION)), $exts, true)) {
        throw new RuntimeException('blocked');
    }
    $walked = $root;
    foreach (preg_split('#[/\\\\]#', $rel) as $seg) {
        if (in_array(strtolower($seg), $dirs, true)) {
            throw new RuntimeException('blocked');
        }
        $walked .= '/' . $seg;
        if (is_link($walked)) {
            throw new RuntimeException('symlink');
        }
    }
    $real = realpath(dirname($walked));
    if ($real === false || !str_starts_with($real . '/', $root . '/')) {
        throw new RuntimeException('outside');
    }
    return $real . '/' . basename($walked);
}

function plain_write(string $root, array $input): string
{
    $rel = ltrim(trim((string) ($input['path'] ?? '')), '/');
    $content = (string) ($input['content'] ?? '');
    $abs = plain_checks($root, $rel);
    plain_atomic($abs, $content);
    return json_encode(['success' => true, 'data' => ['path' => $rel, 'bytes_written' => strlen($content)], 'meta' => ['mode' => 'write', 'message' => 'Written ' . strlen($content) . " bytes to $rel."], 'warnings' => []], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
}

function plain_edit(string $root, array $input): string
{
    $rel = (string) $input['path'];
    $abs = plain_checks($root, $rel);
    $contents = (string) file_get_contents($abs);
    if (str_contains(substr($contents, 0, 8192), "\0") || substr_count($contents, $input['old_str']) !== 1) {
        throw new RuntimeException('no unique match');
    }
    $pos = strpos($contents, $input['old_str']);
    plain_atomic($abs, str_replace($input['old_str'], $input['new_str'], $contents));
    $line = substr_count(substr($contents, 0, (int) $pos), "\n") + 1;
    return json_encode(['success' => true, 'data' => ['status' => 'edited', 'file' => $rel, 'line_changed' => $line], 'meta' => ['mode' => 'edit', 'line_changed' => $line], 'warnings' => []], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
}

$n = (int) ($argv[1] ?? 2000);
$rounds = max(1, (int) ($argv[2] ?? 10));
$ws = sys_get_temp_dir() . '/phpclaw-bench-fwe-' . bin2hex(random_bytes(4));
mkdir($ws . '/notes', 0755, true);
$root = (string) realpath($ws);
$write = new FileWriteTool($ws);
$edit = new FileEditTool($ws);
$text = str_repeat("a line of notes\n", 64);

function timed(int $n, callable $f): array
{
    $f(0);
    $t0 = hrtime(true);
    $r0 = getrusage();
    for ($i = 1; $i <= $n; $i++) {
        $f($i);
    }
    $r1 = getrusage();
    $wall = (hrtime(true) - $t0) / 1e3 / $n;
    $cpu = (($r1['ru_utime.tv_sec'] - $r0['ru_utime.tv_sec']) * 1e6 + ($r1['ru_utime.tv_usec'] - $r0['ru_utime.tv_usec'])
        + ($r1['ru_stime.tv_sec'] - $r0['ru_stime.tv_sec']) * 1e6 + ($r1['ru_stime.tv_usec'] - $r0['ru_stime.tv_usec'])) / $n;
    return [$wall, $cpu];
}

// Same answers first.
if ($write->execute(['path' => 'notes/a.txt', 'content' => $text]) !== plain_write($root, ['path' => 'notes/a.txt', 'content' => $text])) {
    fwrite(STDERR, "file_write answers differ\n");
    exit(1);
}
(new FileReadTool($ws))->execute(['path' => 'notes/a.txt']);
file_put_contents($ws . '/notes/a.txt', $text . "MARK0\n");
$native = $edit->execute(['path' => 'notes/a.txt', 'old_str' => 'MARK0', 'new_str' => 'MARK1']);
file_put_contents($ws . '/notes/a.txt', $text . "MARK0\n");
$plain = plain_edit($root, ['path' => 'notes/a.txt', 'old_str' => 'MARK0', 'new_str' => 'MARK1']);
if ($native !== $plain) {
    fwrite(STDERR, "file_edit answers differ\n$native\n$plain\n");
    exit(1);
}

$flip = fn (int $i): array => ['path' => 'notes/a.txt', 'old_str' => 'MARK' . ($i % 2), 'new_str' => 'MARK' . (1 - $i % 2)];
$reset = fn () => file_put_contents($ws . '/notes/a.txt', $text . "MARK0\n");
$cases = [
    'file_write native' => fn ($i) => $write->execute(['path' => 'notes/a.txt', 'content' => $text]),
    'file_write plain PHP' => fn ($i) => plain_write($root, ['path' => 'notes/a.txt', 'content' => $text]),
    'file_edit native' => fn ($i) => $edit->execute($flip($i)),
    'file_edit plain PHP' => fn ($i) => plain_edit($root, $flip($i)),
    'file_write durable' => fn ($i) => $write->execute(['path' => 'notes/a.txt', 'content' => $text]),
    'file_edit durable' => fn ($i) => $edit->execute($flip($i)),
];
$per = max(1, intdiv($n, $rounds));
$seen = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($cases as $name => $f) {
        ini_set('phpclaw.durable_writes', str_ends_with($name, 'durable') ? '1' : '0');
        if (str_starts_with($name, 'file_edit')) {
            $reset();
        }
        $seen[$name][] = timed($per, $f);
    }
}
ini_set('phpclaw.durable_writes', '0');
$median = static function (array $v): float {
    sort($v);
    $m = intdiv(count($v), 2);
    return count($v) % 2 ? $v[$m] : ($v[$m - 1] + $v[$m]) / 2;
};
$rows = [];
foreach ($seen as $name => $runs) {
    $rows[$name] = [$median(array_column($runs, 0)), $median(array_column($runs, 1))];
}
$n = $per * $rounds;

printf("%-22s %12s %12s   (%d iterations in %d alternated rounds, medians; 1 KB file)\n", 'operation', 'wall µs/op', 'CPU µs/op', $n, $rounds);
foreach ($rows as $name => [$wall, $cpu]) {
    printf("%-22s %12.1f %12.1f\n", $name, $wall, $cpu);
}
foreach (['file_write', 'file_edit'] as $op) {
    [$nw, $nc] = $rows["$op native"];
    [$pw, $pc] = $rows["$op plain PHP"];
    printf("ratio|%s 1 KB file|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f\n", $op, $nw, $nc, $pw, $pc, $pw / $nw, $pc / $nc);
}
foreach (glob($ws . '/notes/*') ?: [] as $f) {
    unlink($f);
}
rmdir($ws . '/notes');
rmdir($ws);
