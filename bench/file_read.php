<?php
// file_read of a small file through PHP: the native FileReadTool against a plain-PHP version of
// the same steps (guard, path checks, symlink walk, realpath, sniff, read, json_encode) written
// below, in one process, same workspace, same answers checked first.
// Run: php -d extension=<path>/libphpclaw.so bench/file_read.php

declare(strict_types=1);

use PhpClaw\Tools\FileReadTool;

/** A plain-PHP file_read: the reference's algorithm, reduced to the path a small file takes. */
final class PlainFileRead
{
    private const EXTENSIONS = ['env', 'key', 'pem', 'crt', 'p12', 'pfx', 'cer', 'der', 'jks', 'keystore', 'truststore', 'sqlite', 'sqlite3', 'db', 'mdb', 'kdbx', 'kwallet'];
    private const FILENAMES = ['wp-config.php', 'wp-config-sample.php', 'config.php', 'configuration.php', 'database.php', 'settings.php', 'local_settings.php', 'settings.local.php', 'local.php', 'app.php', 'env.php', 'config.local.php', 'config.prod.php', 'settings.inc.php', 'parameters.php', 'parameters.yml', 'parameters.yaml', '.htpasswd', '.htaccess', '.htdigest', 'nginx.conf', 'httpd.conf', 'php.ini', '.npmrc', '.pypirc', '.netrc', '.envrc', '.my.cnf', '.pgpass', 'credentials.json', 'service-account.json', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa', 'known_hosts', 'authorized_keys', 'docker-compose.yml', 'docker-compose.yaml', '.dockerenv'];
    private const DIRS = ['.git', '.ssh', '.gnupg', '.aws', '.azure', '.gcloud', '.kube', '.docker', '.config', 'wp-admin', 'wp-includes', 'vendor', 'node_modules'];
    private ?string $root = null;

    public function __construct(private string $configured, private int $maxBytes = 16384)
    {
    }

    private function check(string $path): void
    {
        $base = strtolower(basename($path));
        if ($base === '.env' || str_starts_with($base, '.env.')) {
            throw new RuntimeException("Access to '$base' files is blocked.");
        }
        $ext = strtolower(pathinfo($path, PATHINFO_EXTENSION));
        if ($ext !== '' && in_array($ext, self::EXTENSIONS, true)) {
            throw new RuntimeException("Files with extension '.$ext' are blocked.");
        }
        if (in_array($base, self::FILENAMES, true)) {
            throw new RuntimeException("Access to '$base' is blocked.");
        }
        foreach (preg_split('/[\/\\\\]/', $path) ?: [] as $seg) {
            if ($seg !== '' && in_array(strtolower($seg), self::DIRS, true)) {
                throw new RuntimeException("Reading from the '$seg' directory is blocked.");
            }
        }
    }

    public function execute(array $input): string
    {
        $this->root ??= realpath($this->configured) ?: $this->configured;
        $rel = ltrim(trim((string) ($input['path'] ?? '')), '/\\');
        if ($rel === '') {
            throw new RuntimeException('No file path provided.');
        }
        $this->check($rel);
        $segments = [];
        foreach (preg_split('/[\/\\\\]/', $rel) ?: [] as $seg) {
            if ($seg === '' || $seg === '.') {
                continue;
            }
            if ($seg === '..') {
                if ($segments === []) {
                    throw new RuntimeException('Path traversal detected: access denied.');
                }
                array_pop($segments);
                continue;
            }
            $segments[] = $seg;
        }
        $walked = $this->root;
        foreach ($segments as $seg) {
            $walked .= '/' . $seg;
            if (is_link($walked)) {
                throw new RuntimeException('Access denied: path contains a symlink.');
            }
        }
        $abs = realpath($walked);
        if ($abs === false || !str_starts_with($abs . '/', $this->root . '/')) {
            throw new RuntimeException('File not found: ' . $rel);
        }
        $this->check(substr($abs, strlen($this->root) + 1));
        if (!is_file($abs)) {
            throw new RuntimeException('Path is not a file: ' . $rel);
        }
        $h = fopen($abs, 'r');
        $sample = (string) fread($h, 8192);
        if (str_contains($sample, "\0")) {
            throw new RuntimeException('Binary file; not readable as text: ' . $rel);
        }
        rewind($h);
        $content = (string) fread($h, $this->maxBytes);
        $size = fstat($h)['size'];
        fclose($h);
        $truncated = $size > $this->maxBytes;
        if ($truncated) {
            $content .= "\n[File truncated at {$this->maxBytes} bytes]";
        }
        return json_encode([
            'success' => true,
            'data' => ['path' => $rel, 'content' => $content],
            'meta' => ['mode' => 'read', 'bytes' => strlen($content), 'truncated' => $truncated],
            'warnings' => [],
        ], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
    }
}

/** CPU time (user + system) of this process so far, in microseconds. */
function cpu_us(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] * 1e6 + $u['ru_utime.tv_usec'] + $u['ru_stime.tv_sec'] * 1e6 + $u['ru_stime.tv_usec'];
}

/**
 * Median of $rounds timings of $n calls of $fn, in microseconds per call: [wall, cpu]. CPU time
 * is reported too because a loaded machine inflates wall time with run-queue waits.
 *
 * @return array{float, float}
 */
function us_per_call(callable $fn, int $n, int $rounds = 7): array
{
    $wall = [];
    $cpu = [];
    for ($r = 0; $r < $rounds; $r++) {
        $c = cpu_us();
        $s = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $fn();
        }
        $wall[] = (hrtime(true) - $s) / $n / 1000;
        $cpu[] = (cpu_us() - $c) / $n;
    }
    sort($wall);
    sort($cpu);
    return [$wall[intdiv($rounds, 2)], $cpu[intdiv($rounds, 2)]];
}

$ws = sys_get_temp_dir() . '/phpclaw-bench-fr-' . getmypid();
@mkdir($ws . '/logs', 0755, true);
file_put_contents($ws . '/logs/app.log', str_repeat("2026-01-01 INFO request served in 12 ms\n", 20));

$input = ['path' => 'logs/app.log'];
$native = new FileReadTool($ws);
$plain = new PlainFileRead($ws);
if ($native->execute($input) !== $plain->execute($input)) {
    fwrite(STDERR, "mismatch between native and plain envelopes\n");
    exit(1);
}
$n = 20000;
$nativeUs = us_per_call(fn () => $native->execute($input), $n);
$plainUs = us_per_call(fn () => $plain->execute($input), $n);
$lines = ['path' => 'logs/app.log', 'offset' => 5, 'limit' => 3, 'line_numbers' => true];
$nativeLinesUs = us_per_call(fn () => $native->execute($lines), $n);

printf("file_read of an %d-byte file (median of 7 x %d calls; load average %.1f)\n", filesize($ws . '/logs/app.log'), $n, sys_getloadavg()[0]);
printf("                                      wall us/call   cpu us/call\n");
printf("  native FileReadTool                  %8.2f      %8.2f\n", ...$nativeUs);
printf("  plain-PHP file_read                  %8.2f      %8.2f   (%.1fx the native cpu time)\n", ...[...$plainUs, $plainUs[1] / $nativeUs[1]]);
printf("  native, offset/limit/line_numbers    %8.2f      %8.2f\n", ...$nativeLinesUs);
printf("ratio|file_read small file|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f\n", ...[...$nativeUs, ...$plainUs, $plainUs[0] / $nativeUs[0], $plainUs[1] / $nativeUs[1]]);

unlink($ws . '/logs/app.log');
rmdir($ws . '/logs');
rmdir($ws);
