<?php

declare(strict_types=1);

namespace PhpClawTests\Support;

/** Runs a child PHP process and captures its exit code and output. */
final class Subprocess
{
    /**
     * @param list<string> $args arguments after the php binary (ini flags, script, …)
     * @return array{code: int, stdout: string, stderr: string}
     */
    public static function php(array $args, ?string $stdin = null): array
    {
        $cmd = array_merge([PHP_BINARY], $args);
        $pipes = [];
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!is_resource($proc)) {
            throw new \RuntimeException('cannot start ' . PHP_BINARY);
        }
        fwrite($pipes[0], $stdin ?? '');
        fclose($pipes[0]);
        $stdout = stream_get_contents($pipes[1]);
        $stderr = stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        $code = proc_close($proc);

        return ['code' => $code, 'stdout' => (string) $stdout, 'stderr' => (string) $stderr];
    }

    /**
     * The PHPUnit script that runs this suite, for nested PHPUnit runs: they must use the same
     * PHPUnit (9.6 on Debian 12, 11 on Debian 13), never one found by a fixed path.
     */
    public static function phpunit(): string
    {
        $script = realpath($_SERVER['argv'][0] ?? '');
        if ($script === false || !is_file($script)) {
            $script = getenv('PHPUNIT');
        }
        if (!is_string($script) || !is_file($script)) {
            throw new \RuntimeException('cannot tell which PHPUnit runs the suite (set PHPUNIT)');
        }

        return $script;
    }

    /** The configuration file for the PHPUnit that runs this suite (as run.sh picks it). */
    public static function phpunitConfig(): string
    {
        $major = (int) \PHPUnit\Runner\Version::id();

        return dirname(__DIR__) . ($major >= 10 ? '/phpunit11.xml' : '/phpunit.xml');
    }

    /**
     * Run PHP code in a child that loads the module under test (with -n: no php.ini).
     *
     * @param list<string> $ini extra -d settings
     * @return array{code: int, stdout: string, stderr: string}
     */
    public static function withModule(string $code, array $ini = []): array
    {
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-child-');
        file_put_contents($file, $code);
        try {
            $args = ['-n', '-d', 'extension=' . PHPCLAW_MODULE, '-d', 'display_errors=stderr', '-d', 'error_reporting=-1'];
            foreach ($ini as $setting) {
                $args[] = '-d';
                $args[] = $setting;
            }
            $args[] = $file;

            return self::php($args);
        } finally {
            unlink($file);
        }
    }
    /**
     * Start PHP code in a child that loads the module under test, without waiting for it: the
     * children of one test run at the same time. Finish each with {@see finish()}.
     *
     * @param list<string> $ini extra -d settings
     * @return array{proc: resource, pipes: array<int, resource>, file: string}
     */
    public static function start(string $code, array $ini = []): array
    {
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-child-');
        file_put_contents($file, $code);
        $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . PHPCLAW_MODULE, '-d', 'display_errors=stderr', '-d', 'error_reporting=-1'];
        foreach ($ini as $setting) {
            $cmd[] = '-d';
            $cmd[] = $setting;
        }
        $cmd[] = $file;
        $pipes = [];
        $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!is_resource($proc)) {
            unlink($file);
            throw new \RuntimeException('cannot start ' . PHP_BINARY);
        }

        return ['proc' => $proc, 'pipes' => $pipes, 'file' => $file];
    }

    /**
     * Wait for a child {@see start()} began and collect its exit code and output.
     *
     * @param array{proc: resource, pipes: array<int, resource>, file: string} $child
     * @return array{code: int, stdout: string, stderr: string}
     */
    public static function finish(array $child): array
    {
        $stdout = stream_get_contents($child['pipes'][1]);
        $stderr = stream_get_contents($child['pipes'][2]);
        fclose($child['pipes'][1]);
        fclose($child['pipes'][2]);
        $code = proc_close($child['proc']);
        @unlink($child['file']);

        return ['code' => $code, 'stdout' => (string) $stdout, 'stderr' => (string) $stderr];
    }
}
