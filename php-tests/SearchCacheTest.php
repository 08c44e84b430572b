<?php

declare(strict_types=1);

use PHPUnit\Framework\TestCase;
use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClawTests\Support\Subprocess;

/**
 * code_search's tree cache (php.ini `phpclaw.search_cache_size`): a search after any change
 * gives what a search of the disk gives, in the same process (the cache on, as by default)
 * and across a fork; `0` turns it off; the setting is php.ini-only and shown by `--ri`.
 */
final class SearchCacheTest extends TestCase
{
    private string $ws;

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-search-cache-' . bin2hex(random_bytes(4));
        mkdir($this->ws . '/app/Models', 0777, true);
        file_put_contents($this->ws . '/app/Models/User.php', "class User\n");
        file_put_contents($this->ws . '/app/Models/notes.txt', "plain\n");
        file_put_contents($this->ws . '/app/a.php', "needle one\n");
    }

    protected function tearDown(): void
    {
        exec('rm -rf ' . escapeshellarg($this->ws));
    }

    /** @return list<string> "file:line" of each row */
    private static function hits(string $ws, string $pattern): array
    {
        $d = json_decode((new CodeSearchTool($ws))->execute(['pattern' => $pattern]), true)['data'];

        return array_map(static fn (array $r): string => $r['file'] . ':' . $r['line'], $d['results']);
    }

    public function testEveryChangeBetweenSearchesIsSeen(): void
    {
        self::assertSame(['app/a.php:1'], self::hits($this->ws, 'needle'));
        self::assertSame(['app/a.php:1'], self::hits($this->ws, 'needle'));
        file_put_contents($this->ws . '/app/a.php', "x\nneedle two\n");
        self::assertSame(['app/a.php:2'], self::hits($this->ws, 'needle'));
        file_put_contents($this->ws . '/app/Models/b.php', "needle\n");
        self::assertSame(['app/Models/b.php:1', 'app/a.php:2'], self::hits($this->ws, 'needle'));
        unlink($this->ws . '/app/Models/b.php');
        (new FileWriteTool($this->ws))->execute(['path' => 'app/Models/b.txt', 'content' => "needle\n"]);
        self::assertSame(['app/Models/b.txt:1', 'app/a.php:2'], self::hits($this->ws, 'needle'));
        (new FileReadTool($this->ws))->execute(['path' => 'app/Models/notes.txt']);
        (new FileEditTool($this->ws))->execute(['path' => 'app/Models/notes.txt', 'old_str' => 'plain', 'new_str' => 'needle']);
        self::assertSame(['app/Models/b.txt:1', 'app/Models/notes.txt:1', 'app/a.php:2'], self::hits($this->ws, 'needle'));
        rename($this->ws . '/app/Models', $this->ws . '/Models');
        self::assertSame(['Models/b.txt:1', 'Models/notes.txt:1', 'app/a.php:2'], self::hits($this->ws, 'needle'));
        unlink($this->ws . '/app/a.php');
        symlink('/etc/hostname', $this->ws . '/app/a.php');
        self::assertSame(['Models/b.txt:1', 'Models/notes.txt:1'], self::hits($this->ws, 'needle'));
    }

    public function testAForkedChildAndItsParentEachSeeChangesMadeAfterTheFork(): void
    {
        $code = '<?php
            $ws = ' . var_export($this->ws, true) . ';
            $hits = function (string $p) use ($ws) {
                $d = json_decode((new PhpClaw\Tools\CodeSearchTool($ws))->execute(["pattern" => $p]), true)["data"];
                return implode(",", array_map(fn ($r) => $r["file"] . ":" . $r["line"], $d["results"]));
            };
            echo $hits("needle"), "\n";
            $pid = pcntl_fork();
            if ($pid === 0) {
                file_put_contents("$ws/app/a.php", "x\nneedle child\n");
                echo "child ", $hits("needle"), "\n";
                exit(0);
            }
            pcntl_waitpid($pid, $status);
            echo "parent ", $hits("needle"), "\n";
            file_put_contents("$ws/app/a.php", "x\nx\nneedle parent\n");
            echo "parent ", $hits("needle"), "\n";';
        $probe = Subprocess::withModule('<?php echo function_exists("pcntl_fork") ? "yes" : "no";');
        if ($probe['stdout'] !== 'yes') {
            self::markTestSkipped('this PHP has no pcntl');
        }
        $r = Subprocess::withModule($code);
        self::assertSame("app/a.php:1\nchild app/a.php:2\nparent app/a.php:2\nparent app/a.php:3\n", $r['stdout'], $r['stderr']);
    }

    public function testZeroTurnsItOffAndTheSettingIsPhpIniOnly(): void
    {
        $entry = ini_get_all('phpclaw')['phpclaw.search_cache_size'];
        self::assertSame(INI_SYSTEM, $entry['access']);
        self::assertSame('16M', $entry['global_value']);
        self::assertFalse(ini_set('phpclaw.search_cache_size', '0'));
        $ri = Subprocess::php(['-n', '-d', 'extension=' . PHPCLAW_MODULE, '--ri', 'phpclaw']);
        self::assertStringContainsString('phpclaw.search_cache_size => 16M => 16M', $ri['stdout']);
        $code = '<?php
            $ws = ' . var_export($this->ws, true) . ';
            $s = fn () => (new PhpClaw\Tools\CodeSearchTool($ws))->execute(["pattern" => "needle"]);
            $one = $s();
            file_put_contents("$ws/app/a.php", "x\nneedle\n");
            echo ini_get("phpclaw.search_cache_size"), " ", json_decode($one, true)["data"]["results"][0]["line"], " ",
                json_decode($s(), true)["data"]["results"][0]["line"];';
        foreach (['0', '1K', 'garbage'] as $size) {
            file_put_contents($this->ws . '/app/a.php', "needle\n");
            $r = Subprocess::withModule($code, ["phpclaw.search_cache_size=$size"]);
            self::assertSame("$size 1 2", $r['stdout'], $r['stderr']);
        }
    }
}
