<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;

/**
 * php.ini `phpclaw.durable_writes`: off by default (file_write and file_edit write a temp file
 * and rename it, as phpClaw does), on request they also sync the temp file before the rename
 * and the folder after it. Settable anywhere (`ini_set()` included) and read on every call.
 */
final class DurableWritesTest extends TestCase
{
    private string $ws;

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-durable-' . bin2hex(random_bytes(6));
        mkdir($this->ws . '/sub', 0755, true);
    }

    protected function tearDown(): void
    {
        ini_restore('phpclaw.durable_writes');
        Files::remove($this->ws);
    }

    /** A write, a read and an edit of `sub/a.txt` in `$ws`, as PHP code. */
    private static function script(string $ws, string $before = ''): string
    {
        return '<?php ' . $before . '
            $ws = ' . var_export($ws, true) . ';
            (new PhpClaw\Tools\FileWriteTool($ws))->execute(["path" => "sub/a.txt", "content" => "one"]);
            (new PhpClaw\Tools\FileReadTool($ws))->execute(["path" => "sub/a.txt"]);
            (new PhpClaw\Tools\FileEditTool($ws))->execute(["path" => "sub/a.txt", "old_str" => "one", "new_str" => "two"]);
            echo file_get_contents("$ws/sub/a.txt");';
    }

    public function testOffByDefaultSettableAnywhereAndShownByPhpRi(): void
    {
        $entry = ini_get_all('phpclaw')['phpclaw.durable_writes'];
        self::assertSame(INI_ALL, $entry['access']);
        self::assertSame('0', $entry['global_value']);
        $ri = Subprocess::php(['-n', '-d', 'extension=' . PHPCLAW_MODULE, '--ri', 'phpclaw']);
        self::assertStringContainsString('phpclaw.durable_writes => 0 => 0', $ri['stdout']);
        $child = Subprocess::withModule('<?php var_export([ini_get("phpclaw.durable_writes"), ini_set("phpclaw.durable_writes", "1"), ini_get("phpclaw.durable_writes")]);');
        self::assertSame("array (\n  0 => '0',\n  1 => '0',\n  2 => '1',\n)", $child['stdout'], $child['stderr']);
    }

    public function testWritesAndEditsWorkWithTheSettingOnAndOff(): void
    {
        foreach (['1', '0', 'On', 'Off'] as $value) {
            self::assertNotFalse(ini_set('phpclaw.durable_writes', $value));
            $json = (new FileWriteTool($this->ws))->execute(['path' => "sub/$value.txt", 'content' => 'one']);
            self::assertTrue(json_decode($json, true)['success']);
            (new FileReadTool($this->ws))->execute(['path' => "sub/$value.txt"]);
            (new FileEditTool($this->ws))->execute(['path' => "sub/$value.txt", 'old_str' => 'one', 'new_str' => 'two']);
            self::assertSame('two', file_get_contents($this->ws . "/sub/$value.txt"));
            self::assertSame([], glob($this->ws . '/sub/.phpclaw-*'));
        }
    }

    public function testTheSettingDecidesWhetherAnythingIsSynced(): void
    {
        exec('strace -V 2>/dev/null', $out, $code);
        if ($code !== 0) {
            self::markTestSkipped('strace unavailable');
        }
        $cases = [
            'default' => [[], '', 0],
            'php.ini on' => [['phpclaw.durable_writes=1'], '', 4],
            'ini_set on' => [[], 'ini_set("phpclaw.durable_writes", "1");', 4],
            'php.ini on, ini_set off' => [['phpclaw.durable_writes=1'], 'ini_set("phpclaw.durable_writes", "0");', 0],
        ];
        foreach ($cases as $name => [$ini, $before, $syncs]) {
            $file = tempnam(sys_get_temp_dir(), 'phpclaw-child-');
            file_put_contents($file, self::script($this->ws, $before));
            $log = $file . '.strace';
            $args = ['-n', '-d', 'extension=' . PHPCLAW_MODULE];
            foreach ($ini as $setting) {
                array_push($args, '-d', $setting);
            }
            $cmd = array_merge(['strace', '-f', '-qq', '-e', 'trace=fsync,fdatasync,sync_file_range', '-o', $log, PHP_BINARY], $args, [$file]);
            $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            $stdout = stream_get_contents($pipes[1]);
            $stderr = stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            $exit = proc_close($p);
            $trace = (string) @file_get_contents($log);
            @unlink($file);
            @unlink($log);
            if ($exit !== 0 && str_contains($stderr, 'ptrace')) {
                self::markTestSkipped('ptrace not permitted here: ' . $stderr);
            }
            self::assertSame('two', $stdout, "$name: $stderr");
            // Two per write when durable (the temp file, then the folder): one write, one edit.
            self::assertSame($syncs, preg_match_all('/\b(fsync|fdatasync|sync_file_range)\(/', $trace), "$name:\n$trace");
        }
    }
}
