<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\DatabaseQueryTool;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;

/**
 * Fault: a full disk, on a small tmpfs the test mounts (root only; skipped otherwise). Each tool
 * that writes must fail cleanly: file_write, file_edit and zip_package with a ToolException and
 * the original file untouched, shell_exec's and db_query's spill files with the discard note;
 * and nothing of theirs may be left on the full disk.
 */
final class FaultDiskFullTest extends TestCase
{
    /** Size of the tmpfs. */
    private const DISK = 2 * 1024 * 1024;

    /** What stays free once the filler is written. */
    private const FREE = 128 * 1024;

    private string $mnt = '';

    private string $outside = '';

    protected function setUp(): void
    {
        if (!function_exists('posix_getuid') || posix_getuid() !== 0) {
            self::markTestSkipped('mounting a tmpfs needs root');
        }
        $this->mnt = sys_get_temp_dir() . '/phpclaw-full-' . bin2hex(random_bytes(6));
        mkdir($this->mnt, 0755);
        exec('mount -t tmpfs -o size=' . self::DISK . ',mode=0755 tmpfs ' . escapeshellarg($this->mnt) . ' 2>&1', $out, $code);
        if ($code !== 0) {
            rmdir($this->mnt);
            $this->mnt = '';
            self::markTestSkipped('cannot mount a tmpfs here: ' . implode(' ', $out));
        }
        $this->outside = sys_get_temp_dir() . '/phpclaw-full-src-' . bin2hex(random_bytes(6));
        mkdir($this->outside, 0755);
    }

    protected function tearDown(): void
    {
        if ($this->mnt !== '') {
            exec("umount -l " . escapeshellarg($this->mnt));
            @rmdir($this->mnt);
        }
        if ($this->outside !== '') {
            Files::remove($this->outside);
        }
    }

    /** Fill the disk up to FREE bytes left (a filler file in the mount's root). */
    private function fill(): void
    {
        $filler = $this->mnt . '/filler';
        $h = fopen($filler, 'w');
        $chunk = str_repeat("\0", 65536);
        while (@fwrite($h, $chunk) === 65536) {
        }
        fflush($h);
        $full = (int) fstat($h)['size'];
        ftruncate($h, max(0, $full - self::FREE));
        fclose($h);
        clearstatcache();
        $free = (int) disk_free_space($this->mnt);
        self::assertGreaterThan(0, $free);
        self::assertLessThanOrEqual(self::FREE + 8192, $free);
    }

    /** Everything in the mount but the filler and `$keep`. @return list<string> */
    private function leftovers(array $keep): array
    {
        $out = [];
        $it = new \RecursiveIteratorIterator(
            new \RecursiveDirectoryIterator($this->mnt, \FilesystemIterator::SKIP_DOTS),
            \RecursiveIteratorIterator::SELF_FIRST,
        );
        foreach ($it as $path => $info) {
            $rel = substr((string) $path, strlen($this->mnt) + 1);
            if ($rel !== 'filler' && !in_array($rel, $keep, true) && !$info->isDir()) {
                $out[] = $rel;
            }
        }
        sort($out);
        return $out;
    }

    private static function thrown(callable $call): ToolException
    {
        try {
            $call();
        } catch (ToolException $e) {
            return $e;
        }
        self::fail('expected a ToolException');
    }

    public function testFileWriteOnAFullDisk(): void
    {
        $ws = $this->mnt . '/ws';
        mkdir($ws);
        file_put_contents("$ws/a.txt", 'ORIGINAL');
        $this->fill();
        $tool = new FileWriteTool($ws);
        $big = str_repeat('x', 4 * self::FREE);

        $e = self::thrown(fn () => $tool->execute(['path' => 'a.txt', 'content' => $big]));
        self::assertSame('file_write: failed to write: a.txt', $e->getMessage());
        self::assertSame('ORIGINAL', file_get_contents("$ws/a.txt"));

        $e = self::thrown(fn () => $tool->execute(['path' => 'new/b.txt', 'content' => $big]));
        self::assertSame('file_write: failed to write: new/b.txt', $e->getMessage());
        self::assertFileDoesNotExist("$ws/new/b.txt");
        self::assertSame(['ws/a.txt'], $this->leftovers([]));

        // What fits still works: the failure left nothing that holds space.
        $r = json_decode($tool->execute(['path' => 'a.txt', 'content' => 'SMALL']), true);
        self::assertTrue($r['success']);
        self::assertSame('SMALL', file_get_contents("$ws/a.txt"));
    }

    public function testFileEditOnAFullDisk(): void
    {
        $ws = $this->mnt . '/ws';
        mkdir($ws);
        $original = "<?php\n// MARK\n" . str_repeat("line\n", 10000);
        file_put_contents("$ws/a.php", $original);
        (new FileReadTool($ws))->execute(['path' => 'a.php', 'limit' => 1]);
        $this->fill();
        $tool = new FileEditTool($ws);
        // The edited copy needs the original's size again plus the growth: more than is free.
        $e = self::thrown(fn () => $tool->execute(['path' => 'a.php', 'old_str' => '// MARK', 'new_str' => str_repeat('y', self::FREE)]));
        self::assertSame('file_edit: failed to write: a.php', $e->getMessage());
        self::assertSame($original, file_get_contents("$ws/a.php"));
        self::assertSame(['ws/a.php'], $this->leftovers([]));
    }

    public function testZipPackageOnAFullTempDisk(): void
    {
        // The workspace is elsewhere; the archive goes to the temp folder, which is full.
        mkdir($this->outside . '/plugin');
        for ($i = 0; $i < 4; $i++) {
            file_put_contents($this->outside . "/plugin/blob$i.bin", random_bytes(256 * 1024));
        }
        file_put_contents($this->mnt . '/pkg.zip', 'OLD ARCHIVE');
        $this->fill();
        $code = <<<'PHP'
<?php
$t = new PhpClaw\Tools\ZipPackagerTool($argv[1]);
try {
    echo $t->execute(['source_dir' => 'plugin', 'output_name' => 'pkg']);
} catch (PhpClaw\Exceptions\ToolException $e) {
    echo get_class($e), ': ', $e->getMessage();
}
PHP;
        $run = Subprocess::withModule(str_replace('$argv[1]', var_export($this->outside, true), $code), ['sys_temp_dir=' . $this->mnt]);
        self::assertSame('', $run['stderr']);
        self::assertSame('PhpClaw\Exceptions\ToolException: zip_package: cannot create ' . $this->mnt . '/pkg.zip', $run['stdout']);
        self::assertSame('OLD ARCHIVE', file_get_contents($this->mnt . '/pkg.zip'));
        self::assertSame([], $this->leftovers(['pkg.zip']));
    }

    public function testShellSpillOnAFullTempDisk(): void
    {
        $script = $this->outside . '/flood.sh';
        file_put_contents($script, "#!/bin/sh\nhead -c 1000000 /dev/zero | tr '\\000' a\n");
        chmod($script, 0755);
        $code = '<?php echo json_decode((new PhpClaw\Tools\ShellTool([' . var_export($script, true) . ']))'
            . '->execute(["command" => ' . var_export($script, true) . ']), true)["data"]["output"];';
        $this->fill();
        $run = Subprocess::withModule($code, ['sys_temp_dir=' . $this->mnt, 'phpclaw.shell_sandbox=off']);
        self::assertSame('', $run['stderr']);
        self::assertSame(str_repeat('a', 8192) . "\n... [truncated; " . (1000000 - 8192) . ' more bytes discarded]', $run['stdout']);
        self::assertSame([], $this->leftovers([]));
    }

    public function testDbSpillOnAFullDisk(): void
    {
        $pdo = new \PDO('sqlite::memory:');
        $pdo->exec('CREATE TABLE t (id INTEGER, body TEXT)');
        $ins = $pdo->prepare('INSERT INTO t VALUES (?, ?)');
        for ($i = 1; $i <= 150; $i++) {
            $ins->execute([$i, str_repeat('b', 4000)]);
        }
        $this->fill();
        $r = json_decode((new DatabaseQueryTool($pdo, $this->mnt))->execute(['sql' => 'SELECT id, body FROM t']), true);
        self::assertTrue($r['success']);
        self::assertArrayNotHasKey('spill_path', $r['data']);
        self::assertMatchesRegularExpression('/^\d+ more rows discarded\. /', $r['data']['hint']);
        self::assertSame([], $this->leftovers([]));
    }
}
