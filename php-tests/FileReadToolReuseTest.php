<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\FileReadTool;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * One FileReadTool instance used again and again while the workspace changes under it: the
 * root is kept open between calls (and checked again each time), files are opened beneath it
 * in one step. Every answer must be the one a fresh tool gives.
 */
final class FileReadToolReuseTest extends TestCase
{
    private string $base;
    private string $ws;

    protected function setUp(): void
    {
        $this->base = sys_get_temp_dir() . '/phpclaw-frr-' . bin2hex(random_bytes(6));
        $this->ws = $this->base . '/ws';
        mkdir($this->ws, 0755, true);
        mkdir($this->base . '/outside', 0755, true);
        file_put_contents($this->base . '/outside/secret.txt', 'secret');
    }

    protected function tearDown(): void
    {
        self::remove($this->base);
    }

    private static function remove(string $path): void
    {
        if (is_link($path) || (file_exists($path) && !is_dir($path))) {
            @unlink($path);
            return;
        }
        if (!is_dir($path)) {
            return;
        }
        foreach (scandir($path) ?: [] as $entry) {
            if ($entry !== '.' && $entry !== '..') {
                self::remove($path . '/' . $entry);
            }
        }
        @rmdir($path);
    }

    private function put(string $relative, string $content): void
    {
        $abs = $this->ws . '/' . $relative;
        if (!is_dir(dirname($abs))) {
            mkdir(dirname($abs), 0755, true);
        }
        file_put_contents($abs, $content);
    }

    private static function content(FileReadTool $tool, string $path): string
    {
        return json_decode($tool->execute(['path' => $path]), true, 512, JSON_THROW_ON_ERROR)['data']['content'];
    }

    private static function refusal(FileReadTool $tool, string $path): string
    {
        try {
            $tool->execute(['path' => $path]);
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail("expected a refusal for $path");
    }

    public function testTheSameAnswersAsAFreshTool(): void
    {
        $this->put('logs/app.log', "one\n");
        $tool = new FileReadTool($this->ws);
        for ($i = 0; $i < 3; $i++) {
            self::assertSame($tool->execute(['path' => 'logs/app.log']), (new FileReadTool($this->ws))->execute(['path' => 'logs/app.log']));
        }
        $json = $tool->execute(['path' => 'logs/app.log']);
        self::assertSame('{"success":true,"data":{"path":"logs/app.log","content":"one\n"},"meta":{"mode":"read","bytes":4,"truncated":false},"warnings":[]}', $json);
    }

    public function testARootReplacedBetweenCallsIsReadAfresh(): void
    {
        $this->put('a.txt', 'old');
        $tool = new FileReadTool($this->ws);
        self::assertSame('old', self::content($tool, 'a.txt'));
        rename($this->ws, $this->base . '/old-ws');
        mkdir($this->ws);
        file_put_contents($this->ws . '/a.txt', 'new');
        self::assertSame('new', self::content($tool, 'a.txt'));
        self::remove($this->ws);
        self::assertSame('Workspace root not found: ' . realpath($this->base) . '/ws', self::refusal($tool, 'a.txt'));
        mkdir($this->ws);
        file_put_contents($this->ws . '/a.txt', 'again');
        self::assertSame('again', self::content($tool, 'a.txt'));
    }

    public function testSymlinksThatAppearAfterAReadAreRefused(): void
    {
        $this->put('a.txt', 'a');
        $this->put('dir/b.txt', 'b');
        $tool = new FileReadTool($this->ws);
        self::assertSame('a', self::content($tool, 'a.txt'));
        self::assertSame('b', self::content($tool, 'dir/b.txt'));
        unlink($this->ws . '/a.txt');
        symlink($this->base . '/outside/secret.txt', $this->ws . '/a.txt');
        self::assertSame('Access denied: path contains a symlink.', self::refusal($tool, 'a.txt'));
        self::remove($this->ws . '/dir');
        symlink($this->base . '/outside', $this->ws . '/dir');
        self::assertSame('Access denied: path contains a symlink.', self::refusal($tool, 'dir/secret.txt'));
        symlink('dir', $this->ws . '/inner');
        self::assertSame('Access denied: path contains a symlink.', self::refusal($tool, 'inner/secret.txt'));
    }

    public function testFollowedSymlinksStillStayInside(): void
    {
        $this->put('real/r.txt', 'r');
        symlink($this->ws . '/real', $this->ws . '/in');
        symlink($this->base . '/outside', $this->ws . '/out');
        $tool = new FileReadTool($this->ws, followSymlinks: true);
        self::assertSame('r', self::content($tool, 'in/r.txt'));
        self::assertSame('r', self::content($tool, 'in/r.txt'));
        self::assertSame('Path traversal detected: access denied.', self::refusal($tool, 'out/secret.txt'));
    }

    public function testWhatIsNotARegularFileIsRefused(): void
    {
        $this->put('x', 'x');
        $tool = new FileReadTool($this->ws);
        self::assertSame('x', self::content($tool, 'x'));
        unlink($this->ws . '/x');
        mkdir($this->ws . '/x');
        self::assertSame('Path is not a file: x', self::refusal($tool, 'x'));
        rmdir($this->ws . '/x');
        self::assertSame('File not found: x', self::refusal($tool, 'x'));
        if (function_exists('posix_mkfifo')) {
            posix_mkfifo($this->ws . '/pipe', 0600);
            self::assertSame('Path is not a file: pipe', self::refusal($tool, 'pipe'), 'a FIFO is refused, not waited on');
        }
        self::assertSame('File not found: x/y', self::refusal($tool, 'x/y'));
    }

    public function testBlockedNamesOnThePlainPath(): void
    {
        $this->put('.env', 'K=V');
        $this->put('vendor/a.txt', 'a');
        $this->put('keys/id_rsa', 'k');
        $tool = new FileReadTool($this->ws);
        self::assertSame("Access to '.env' files is blocked.", self::refusal($tool, '.env'));
        self::assertSame("Reading from the 'vendor' directory is blocked.", self::refusal($tool, 'vendor/a.txt'));
        self::assertSame("Access to 'id_rsa' is blocked.", self::refusal($tool, 'keys/id_rsa'));
        $open = new FileReadTool($this->ws, noiseBlockedDirs: []);
        self::assertSame('a', self::content($open, 'vendor/a.txt'));
    }

    /** @return array<string, array{int}> */
    public static function sizes(): array
    {
        $out = [];
        foreach ([0, 1, 799, 8191, 8192, 8193, 16383, 16384, 16385, 40000] as $n) {
            $out["$n bytes"] = [$n];
        }
        return $out;
    }

    /** @dataProvider sizes */
    #[DataProvider('sizes')]
    public function testEverySizeAroundTheSampleAndTheCap(int $n): void
    {
        $text = substr(str_repeat("0123456789abcdef\n", intdiv($n, 17) + 1), 0, $n);
        $this->put('f.txt', $text);
        $tool = new FileReadTool($this->ws);
        $answer = json_decode($tool->execute(['path' => 'f.txt']), true, 512, JSON_THROW_ON_ERROR);
        $want = $n > 16384 ? substr($text, 0, 16384) . "\n[File truncated at 16384 bytes]" : $text;
        self::assertSame($want, $answer['data']['content']);
        self::assertSame($n > 16384, $answer['meta']['truncated']);
        self::assertSame(strlen($want), $answer['meta']['bytes']);
    }
}
