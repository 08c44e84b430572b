<?php

declare(strict_types=1);

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\ProjectTool;

final class CodeSearchToolTest extends TestCase
{
    private string $root;

    protected function setUp(): void
    {
        $this->root = sys_get_temp_dir().'/cs_'.bin2hex(random_bytes(4));
        mkdir($this->root.'/src/sub', 0777, true);
        mkdir($this->root.'/vendor', 0777, true);
        file_put_contents($this->root.'/src/b.php', "one\nalpha beta\nthree\n");
        file_put_contents($this->root.'/src/a.txt', "alpha\n");
        file_put_contents($this->root.'/src/sub/c.php', "x\ny\nALPHA gamma\n");
        file_put_contents($this->root.'/vendor/v.php', "alpha\n");
        file_put_contents($this->root.'/.env', "alpha=1\n");
        file_put_contents($this->root.'/big.php', str_repeat("alpha\n", 200000));
    }

    protected function tearDown(): void
    {
        exec('rm -rf '.escapeshellarg($this->root));
    }

    private function run_(array $in): array
    {
        return json_decode((new CodeSearchTool($this->root))->execute($in), true);
    }

    public function testLiteralSortedSkipsNoiseSecretsAndBigFiles(): void
    {
        $d = $this->run_(['pattern' => 'alpha'])['data'];
        $this->assertSame([['file' => 'src/a.txt', 'line' => 1], ['file' => 'src/b.php', 'line' => 2]], $d['results']);
        $this->assertSame(2, $d['total']);
        $this->assertFalse($d['truncated']);
    }

    public function testRegexWithFlagsAndContext(): void
    {
        $d = $this->run_(['pattern' => '/^alpha\b/i', 'is_regex' => true, 'extension' => '.php', 'context_lines' => 1])['data'];
        $this->assertSame([
            ['file' => 'src/b.php', 'line' => 2, 'match' => 'alpha beta', 'before' => ['one'], 'after' => ['three']],
            ['file' => 'src/sub/c.php', 'line' => 3, 'match' => 'ALPHA gamma', 'before' => ['y'], 'after' => []],
        ], $d['results']);
        $d = $this->run_(['pattern' => '{beta|gamma}', 'is_regex' => true])['data'];
        $this->assertSame(2, $d['total']);
    }

    /** @return array<string, array{string}> */
    public static function patterns(): array
    {
        return [
            'hash delim' => ['#al(?:pha)#'], 'braces nested' => ['{a{1}l}'], 'ungreedy' => ['/a.+?a/U'],
            'anchored' => ['/gamma/A'], 'extended' => ["/ a l p h a # c\n/x"], 'utf' => ['/\w+\s\w+/u'],
            'verb first' => ['/(*UCP)ALPHA/i'], 'named dup' => ['/(?<n>b)|(?<n>g)/J'], 'space before' => [' /beta/ '],
            'no capture' => ['/(a)(?<x>l)/n'],
        ];
    }

    /** @dataProvider patterns */
    #[DataProvider('patterns')]
    public function testRegexMatchesTheLinesPregMatches(string $pattern): void
    {
        $expected = [];
        foreach (['src/a.txt', 'src/b.php', 'src/sub/c.php'] as $f) {
            foreach (file($this->root.'/'.$f, FILE_IGNORE_NEW_LINES) as $i => $line) {
                if (preg_match($pattern, $line) === 1) {
                    $expected[] = ['file' => $f, 'line' => $i + 1];
                }
            }
        }
        $this->assertSame($expected, $this->run_(['pattern' => $pattern, 'is_regex' => true])['data']['results']);
    }

    /** @return array<string, array{string}> */
    public static function refused(): array
    {
        return [
            'bare' => ['beta|gamma'], 'alnum delim' => ['abca'], 'backslash' => ['\\a\\'], 'unclosed' => ['/abc'],
            'bad flag' => ['/a/k'], 'e flag' => ['/a/e'], 'bad body' => ['/(/'], 'unclosed brace' => ['{a'],
        ];
    }

    /** @dataProvider refused */
    #[DataProvider('refused')]
    public function testRefusedAsPhpRefuses(string $pattern): void
    {
        $this->assertFalse(@preg_match($pattern, ''));
        $this->expectException(ToolException::class);
        $this->expectExceptionMessage('code_search: invalid regex pattern.');
        $this->run_(['pattern' => $pattern, 'is_regex' => true]);
    }

    /**
     * A line needing more than 200000 match steps is skipped, exactly the lines preg_match gives
     * up on at the reference's pcre.backtrack_limit, with one summary warning per search; the
     * ambient setting is left alone.
     */
    public function testBacktrackCeilingSkipsWhatPhpSkipsAndWarnsOnce(): void
    {
        $dir = $this->root.'/bt';
        mkdir($dir);
        $lines = [];
        foreach ([8, 12, 16, 17, 18, 20, 24] as $i => $n) {
            $lines[] = str_repeat('a', $n).'!';
            file_put_contents("$dir/l$i.txt", str_repeat('a', $n)."!\n");
        }
        file_put_contents("$dir/ok.txt", "aaa\nbbb\n");
        $pattern = '/(a+)+$/';
        $ambient = ini_get('pcre.backtrack_limit');
        ini_set('pcre.backtrack_limit', '200000');
        $php = count(array_filter($lines, static fn (string $l): bool => preg_match($pattern, $l) === false));
        ini_set('pcre.backtrack_limit', (string) $ambient);
        $this->assertSame(4, $php, 'the fixture straddles the ceiling');

        $log = $this->root.'/error.log';
        $old = ini_set('error_log', $log);
        try {
            $d = json_decode((new CodeSearchTool($dir))->execute(['pattern' => $pattern, 'is_regex' => true]), true)['data'];
        } finally {
            ini_set('error_log', (string) $old);
        }
        $this->assertSame([['file' => 'ok.txt', 'line' => 1]], $d['results']);
        $this->assertSame((string) $ambient, ini_get('pcre.backtrack_limit'));
        $logged = file($log, FILE_IGNORE_NEW_LINES) ?: [];
        $this->assertCount(1, $logged);
        $this->assertStringEndsWith(
            "[phpClaw] CodeSearchTool: skipped $php/9 line(s): regex exceeded the 200000-step backtrack ceiling.",
            $logged[0]
        );

        // Nothing skipped: no warning.
        $old = ini_set('error_log', $log);
        unlink($log);
        try {
            (new CodeSearchTool($dir))->execute(['pattern' => '/a+!/', 'is_regex' => true]);
        } finally {
            ini_set('error_log', (string) $old);
        }
        $this->assertFileDoesNotExist($log);
    }

    /** A float pattern is cast as PHP casts it: 14 significant digits, so 0.1 + 0.2 is "0.3". */
    public function testAFloatPatternIsCastAsPhpCastsIt(): void
    {
        file_put_contents($this->root.'/src/rate.txt', "tax = 0.3\nexact = 0.30000000000000004\n");
        $d = $this->run_(['pattern' => 0.1 + 0.2])['data'];
        $this->assertSame((string) (0.1 + 0.2), $d['pattern']);
        $this->assertSame([['file' => 'src/rate.txt', 'line' => 1], ['file' => 'src/rate.txt', 'line' => 2]], $d['results']);
        $d = $this->run_(['pattern' => 1e15])['data'];
        $this->assertSame('1.0E+15', $d['pattern']);
    }

    public function testBareAlternationRefused(): void
    {
        $this->expectException(ToolException::class);
        $this->expectExceptionMessage('code_search: invalid regex pattern.');
        $this->run_(['pattern' => 'beta|gamma', 'is_regex' => true]);
    }

    public function testPagingAtAndPastLimits(): void
    {
        file_put_contents($this->root.'/src/many.txt', str_repeat("hit\n", 1001));
        $d = $this->run_(['pattern' => 'hit'])['data'];
        $this->assertTrue($d['truncated']);
        $this->assertSame($d['total'], $d['next_offset']);
        $this->assertLessThanOrEqual(8192, array_sum(array_map(fn ($r) => strlen(json_encode($r)) + 1, $d['results'])));
        $d = $this->run_(['pattern' => 'hit', 'offset' => 1])['data'];
        $this->assertSame(2, $d['results'][0]['line']);
    }

    public function testFileSizeLimitAtAndPast(): void
    {
        $at = "needle\n".str_repeat('x', 1048576 - 7);
        file_put_contents($this->root.'/src/at.txt', $at);
        file_put_contents($this->root.'/src/past.txt', $at.'x');
        $this->assertSame(1048576, filesize($this->root.'/src/at.txt'));
        $d = $this->run_(['pattern' => 'needle'])['data'];
        $this->assertSame([['file' => 'src/at.txt', 'line' => 1]], $d['results']);
    }

    public function testSecurityFolderRefusedAsSearchPath(): void
    {
        mkdir($this->root.'/.ssh');
        $this->expectException(ToolException::class);
        $this->expectExceptionMessage("code_search: the '.ssh' folder is blocked.");
        $this->run_(['pattern' => 'a', 'path' => '.ssh']);
    }

    public function testErrors(): void
    {
        foreach ([[['pattern' => ''], 'code_search: pattern is required.'], [['pattern' => 'a', 'path' => 'nope'], 'code_search: directory not found: nope'], [['pattern' => 'a', 'path' => '..'], 'code_search: path escapes workspace root - blocked.']] as [$in, $msg]) {
            try {
                $this->run_($in);
                $this->fail('no exception');
            } catch (ToolException $e) {
                $this->assertSame($msg, $e->getMessage());
            }
        }
    }

    public function testProjectInfo(): void
    {
        touch($this->root.'/artisan');
        file_put_contents($this->root.'/composer.lock', json_encode(['packages' => [['name' => 'a/b', 'version' => '1.0']]]));
        $r = json_decode((new ProjectTool($this->root))->execute(['depth' => 9]), true);
        $this->assertSame('laravel', $r['data']['framework']);
        $this->assertSame([['name' => 'a/b', 'version' => '1.0']], $r['data']['packages']);
        $this->assertSame(4, $r['meta']['depth']);
        $this->assertSame(['.env', 'artisan', 'big.php', 'composer.lock', 'src/' => ['a.txt', 'b.php', 'sub/' => ['c.php']]], $r['data']['file_tree']);
        $this->expectException(ToolException::class);
        (new ProjectTool('/'))->execute([]);
    }
}
