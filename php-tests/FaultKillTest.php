<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\FileWriteTool;
use PhpClawTests\Support\Files;
use PHPUnit\Framework\TestCase;

/**
 * Fault: a worker killed with SIGKILL while file_write writes a large file. The target must hold
 * a whole version (the old one or a new one), never a partial one; what the dead writer leaves
 * is a temp file recognisable by its name (`.phpclaw-write-XXXXXX`), which the next successful
 * write into the same folder removes once it is older than a minute (and no writer holds it).
 */
final class FaultKillTest extends TestCase
{
    private const BASE = 4 * 1024 * 1024;

    private string $ws;

    protected function setUp(): void
    {
        if (!function_exists('posix_kill')) {
            self::markTestSkipped('needs the posix extension');
        }
        $this->ws = sys_get_temp_dir() . '/phpclaw-kill-' . bin2hex(random_bytes(6));
        mkdir($this->ws, 0755, true);
        $this->ws = (string) realpath($this->ws);
    }

    protected function tearDown(): void
    {
        Files::remove($this->ws);
    }

    /** Version `i` of the file: one letter, and a length that tells which letter it must be. */
    private static function version(int $i): string
    {
        return str_repeat(chr(ord('a') + $i % 26), self::BASE + $i % 26);
    }

    private static function assertWhole(string $content): void
    {
        $len = strlen($content);
        self::assertGreaterThanOrEqual(self::BASE, $len, 'a partial file');
        $i = $len - self::BASE;
        self::assertLessThan(26, $i, 'a file of no version');
        self::assertTrue($content === self::version($i), "not a whole version ($len bytes)");
    }

    /** @return list<string> */
    private function strays(): array
    {
        $out = [];
        foreach (scandir($this->ws) ?: [] as $name) {
            if (str_starts_with($name, '.phpclaw-')) {
                $out[] = $name;
            }
        }
        return $out;
    }

    public function testAKilledWriterLeavesAWholeFileAndARecognisableStray(): void
    {
        file_put_contents($this->ws . '/big.txt', self::version(0));
        $code = '<?php $t = new PhpClaw\Tools\FileWriteTool(' . var_export($this->ws, true) . ');'
            . ' for ($i = 1; ; $i++) { $t->execute(["path" => "big.txt", "content" => str_repeat(chr(ord("a") + $i % 26), '
            . self::BASE . ' + $i % 26)]); }';
        $script = $this->ws . '/../' . basename($this->ws) . '-writer.php';
        file_put_contents($script, $code);
        $killedMidWrite = 0;
        try {
            for ($round = 0; $round < 8; $round++) {
                $proc = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . PHPCLAW_MODULE, $script],
                    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
                self::assertIsResource($proc);
                $pid = proc_get_status($proc)['pid'];
                usleep(100000 + 37000 * $round);
                // Kill while a temp file is being filled, when one is caught in the act.
                $deadline = microtime(true) + 1;
                while (microtime(true) < $deadline && $this->strays() === []) {
                    usleep(200);
                }
                $killedMidWrite += $this->strays() === [] ? 0 : 1;
                posix_kill($pid, SIGKILL);
                proc_close($proc);
                clearstatcache();
                self::assertWhole((string) file_get_contents($this->ws . '/big.txt'));
                foreach ($this->strays() as $name) {
                    self::assertMatchesRegularExpression('/^\.phpclaw-write-[A-Za-z0-9]{6}$/', $name);
                }
            }
        } finally {
            @unlink($script);
        }
        self::assertGreaterThan(0, $killedMidWrite, 'no round killed the writer mid-write');
        $strays = $this->strays();
        self::assertNotSame([], $strays, 'a writer killed mid-write left no temp file: nothing to clean');

        // A fresh stray is kept (it may be a live writer's); one older than a minute is removed
        // by the next write into the folder.
        $tool = new FileWriteTool($this->ws);
        $tool->execute(['path' => 'other.txt', 'content' => 'x']);
        clearstatcache();
        self::assertSame($strays, $this->strays());
        foreach ($strays as $name) {
            touch($this->ws . '/' . $name, time() - 120);
        }
        // One that only looks like a stray (another length) is not the tools' and stays.
        file_put_contents($this->ws . '/.phpclaw-write-notours', 'keep');
        touch($this->ws . '/.phpclaw-write-notours', time() - 120);
        $tool->execute(['path' => 'other.txt', 'content' => 'y']);
        clearstatcache();
        self::assertSame(['.phpclaw-write-notours'], $this->strays());
        self::assertWhole((string) file_get_contents($this->ws . '/big.txt'));
    }

    public function testAStrayHeldByALiveWriterIsNotSwept(): void
    {
        // A writer holds a lock on its temp file for as long as it writes.
        $stray = $this->ws . '/.phpclaw-edit-Ab12Cd';
        file_put_contents($stray, 'in progress');
        touch($stray, time() - 3600);
        $h = fopen($stray, 'r');
        self::assertTrue(flock($h, LOCK_EX));
        $child = \PhpClawTests\Support\Subprocess::withModule('<?php (new PhpClaw\Tools\FileWriteTool('
            . var_export($this->ws, true) . '))->execute(["path" => "n.txt", "content" => "n"]);');
        self::assertSame(0, $child['code'], $child['stderr']);
        clearstatcache();
        self::assertFileExists($stray);
        flock($h, LOCK_UN);
        fclose($h);
        (new FileWriteTool($this->ws))->execute(['path' => 'n.txt', 'content' => 'm']);
        clearstatcache();
        self::assertFileDoesNotExist($stray);
    }
}
