<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\MutatingToolInterface;
use PhpClaw\Tools\Contracts\ResettableInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\Subprocess;
use PhpClawTests\Support\Files;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native FileEditTool on a fresh temporary workspace per test: the class shape, the
 * read-before-edit gate (with phpClaw's FileReadLog, with the extension's own log, and per
 * request), unique matching, the size cap at and past the limit, binaries, the sandbox,
 * symlinks, the atomic write and the guard. Reads go through the native FileReadTool, so the
 * tests hold whichever log is in use.
 */
final class FileEditToolTest extends TestCase
{
    private string $ws;

    /** @var list<string> */
    private array $cleanup = [];

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-fet-' . bin2hex(random_bytes(6));
        mkdir($this->ws, 0755, true);
        (new FileEditTool($this->ws))->reset();
    }

    protected function tearDown(): void
    {
        (new FileEditTool($this->ws))->reset();
        foreach ([...$this->cleanup, $this->ws] as $path) {
            Files::remove($path);
        }
    }

    private function outside(string $suffix = ''): string
    {
        $path = sys_get_temp_dir() . '/phpclaw-fet-out-' . bin2hex(random_bytes(6)) . $suffix;
        $this->cleanup[] = $path;
        return $path;
    }

    private function seed(string $relative, string $content): void
    {
        $abs = $this->ws . '/' . $relative;
        if (!is_dir(dirname($abs))) {
            mkdir(dirname($abs), 0755, true);
        }
        file_put_contents($abs, $content);
    }

    /** Seed a file and read it through the native file_read, as a run would. */
    private function seedRead(string $relative, string $content, bool $follow = false): void
    {
        $this->seed($relative, $content);
        (new FileReadTool($this->ws, followSymlinks: $follow))->execute(['path' => $relative]);
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        return json_decode($json, true, 512, JSON_THROW_ON_ERROR);
    }

    private function refusal(array $input, ?FileEditTool $tool = null): string
    {
        try {
            ($tool ?? new FileEditTool($this->ws))->execute($input);
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail('expected a ToolException for ' . json_encode($input));
    }

    private static function edit(string $path, string $old, string $new): array
    {
        return ['path' => $path, 'old_str' => $old, 'new_str' => $new];
    }

    /** @return list<string> */
    private function strays(string $dir): array
    {
        return glob($dir . '/.phpclaw-edit-*') ?: [];
    }

    // ---- Class shape -------------------------------------------------------------------

    public function testClassShape(): void
    {
        $class = new \ReflectionClass(FileEditTool::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        foreach ([ToolInterface::class, AuthorizableToolInterface::class, ToolRoutingInterface::class, MutatingToolInterface::class, ResettableInterface::class] as $iface) {
            self::assertTrue($class->implementsInterface($iface), $iface);
        }
        self::assertSame('storage/phpclaw', FileEditTool::DEFAULT_WORKSPACE_SUBPATH);
        self::assertSame(2097152, FileEditTool::DEFAULT_MAX_BYTES);
        $params = $class->getConstructor()->getParameters();
        // phpClaw's four parameters in its order, then ours.
        self::assertSame(['workspaceRoot', 'followSymlinks', 'noiseBlockedDirs', 'maxBytes', 'allowHardLinks'], array_map(fn ($p) => $p->getName(), $params));
        self::assertSame([null, false, ['vendor', 'node_modules'], 2097152, false], array_map(fn ($p) => $p->getDefaultValue(), $params));
        self::assertFalse($class->hasMethod('workspaceRoot'), 'the reference has no public workspaceRoot() on file_edit');
    }

    public function testNameDescriptionSchemaRouting(): void
    {
        $tool = new FileEditTool($this->ws);
        self::assertSame('file_edit', $tool->name());
        self::assertSame('Edit a file by replacing old_str with new_str. old_str must appear exactly once. Copy old_str from the file text only, never the line-number prefix file_read adds. Use for targeted fixes; use file_write only for whole new files.', $tool->description());
        $schema = $tool->inputSchema();
        self::assertSame('object', $schema['type']);
        self::assertSame(['path', 'old_str', 'new_str'], array_keys($schema['properties']));
        self::assertSame(['path', 'old_str', 'new_str'], $schema['required']);
        $meta = $tool->routingMetadata();
        self::assertInstanceOf(ToolRoutingMetadata::class, $meta);
        self::assertSame(['filesystem', 'code'], $meta->domains);
        self::assertSame(['edit', 'replace', 'modify', 'patch', 'change'], $meta->tags);
        self::assertSame(['edit file', 'replace string'], $meta->intents);
        self::assertSame(['change the timeout in config.php'], $meta->examples);
        self::assertSame([], FileEditTool::examples());
        self::assertSame('phpclaw_use_tools', $tool->requiredCapability());
    }

    public function testMaxBytesAccessorAndValidation(): void
    {
        self::assertSame(2097152, (new FileEditTool($this->ws))->maxBytes());
        self::assertSame(1, (new FileEditTool($this->ws, maxBytes: 1))->maxBytes());
        try {
            new FileEditTool($this->ws, maxBytes: 0);
            self::fail('expected InvalidArgumentException');
        } catch (\InvalidArgumentException $e) {
            self::assertSame('maxBytes must be greater than 0.', $e->getMessage());
        }
    }

    public function testConstructorTypes(): void
    {
        $this->expectException(\TypeError::class);
        new FileEditTool($this->ws, noiseBlockedDirs: 'vendor');
    }

    public function testMissingWorkspaceFailsAtExecuteNotConstruction(): void
    {
        $tool = new FileEditTool($this->outside());
        self::assertInstanceOf(FileEditTool::class, $tool);
        self::assertStringStartsWith('Workspace root not found: ', $this->refusal(self::edit('a.txt', 'a', 'b'), $tool));
    }

    // ---- Editing -----------------------------------------------------------------------

    public function testUniqueMatchIsReplacedWithTheEnvelope(): void
    {
        $this->seedRead('a.txt', "line one\nTARGET\nline three\n");
        $json = (new FileEditTool($this->ws))->execute(self::edit('a.txt', 'TARGET', 'FIXED'));
        self::assertSame('{"success":true,"data":{"status":"edited","file":"a.txt","line_changed":2},"meta":{"mode":"edit","line_changed":2},"warnings":[]}', $json);
        self::assertSame("line one\nFIXED\nline three\n", file_get_contents($this->ws . '/a.txt'));
        self::assertSame([], $this->strays($this->ws));
    }

    public function testLegacyFileKeyAndNullPath(): void
    {
        $this->seedRead('legacy.txt', "alpha\nTARGET\nomega\n");
        $tool = new FileEditTool($this->ws);
        $out = $tool->execute(['file' => 'legacy.txt', 'old_str' => 'TARGET', 'new_str' => 'ONE']);
        self::assertSame('legacy.txt', self::decode($out)['data']['file']);
        $tool->execute(['path' => null, 'file' => 'legacy.txt', 'old_str' => 'ONE', 'new_str' => 'TWO']);
        self::assertSame("alpha\nTWO\nomega\n", file_get_contents($this->ws . '/legacy.txt'));
        // path wins over file when both are given.
        self::assertSame('file_edit: file not found: ghost.txt', $this->refusal(['path' => 'ghost.txt', 'file' => 'legacy.txt', 'old_str' => 'TWO', 'new_str' => 'x']));
    }

    public function testStartEndDeletionAndLiteralText(): void
    {
        $tool = new FileEditTool($this->ws);
        $this->seedRead('a.txt', "START\nmiddle\nEND");
        self::assertSame(1, self::decode($tool->execute(self::edit('a.txt', 'START', 'BEGIN')))['data']['line_changed']);
        self::assertSame(3, self::decode($tool->execute(self::edit('a.txt', 'END', 'FINISH')))['data']['line_changed']);
        $tool->execute(self::edit('a.txt', "middle\n", ''));
        self::assertSame("BEGIN\nFINISH", file_get_contents($this->ws . '/a.txt'));
        $tricky = "price: \$100\\total\nline two";
        $this->seedRead('b.txt', "before\n{$tricky}\nafter\n");
        $tool->execute(self::edit('b.txt', $tricky, '$1 \\0'));
        self::assertSame("before\n\$1 \\0\nafter\n", file_get_contents($this->ws . '/b.txt'));
    }

    public function testZeroAndSeveralMatchesFailWithoutQuotingTheText(): void
    {
        $this->seedRead('a.txt', "SECRET_MARKER\nSECRET_MARKER\nSECRET_MARKER\n");
        $tool = new FileEditTool($this->ws);
        $m = $this->refusal(self::edit('a.txt', 'SECRET_MARKER', 'REPLACEMENT_HERE'), $tool);
        self::assertSame('file_edit: old_str matches 3 locations in a.txt - add more surrounding context to make it unique.', $m);
        $this->seedRead('b.txt', "dup\ndup\n");
        self::assertSame('file_edit: old_str matches 2 locations in b.txt - add more surrounding context to make it unique.', $this->refusal(self::edit('b.txt', 'dup', 'X'), $tool));
        $m = $this->refusal(self::edit('a.txt', 'UNIQUE_OLD_XYZ', 'UNIQUE_NEW_XYZ'), $tool);
        self::assertSame('file_edit: old_str not found in a.txt. Match must be exact including whitespace.', $m);
        self::assertSame("dup\ndup\n", file_get_contents($this->ws . '/b.txt'));
        // substr_count semantics: occurrences do not overlap.
        $this->seedRead('c.txt', 'aaa');
        $tool->execute(self::edit('c.txt', 'aa', 'b'));
        self::assertSame('ba', file_get_contents($this->ws . '/c.txt'));
    }

    public function testRequiredInputs(): void
    {
        foreach ([
            ['path' => '', 'old_str' => 'a', 'new_str' => 'b'],
            ['path' => 'a.txt', 'old_str' => '', 'new_str' => 'b'],
            ['old_str' => 'a'],
            ['path' => 'a.txt'],
            [],
        ] as $input) {
            self::assertSame('file_edit: path and old_str are required.', $this->refusal($input));
        }
    }

    public function testMissingNewStrDeletes(): void
    {
        $this->seedRead('a.txt', 'keep DROP keep');
        (new FileEditTool($this->ws))->execute(['path' => 'a.txt', 'old_str' => 'DROP ']);
        self::assertSame('keep keep', file_get_contents($this->ws . '/a.txt'));
    }

    // ---- The read-before-edit gate -----------------------------------------------------

    public function testAFileNotReadIsRefusedAndResetForgetsReads(): void
    {
        $this->seed('a.txt', 'ORIGINAL');
        $tool = new FileEditTool($this->ws);
        self::assertSame('file_edit: file_read must be called on a.txt before editing it.', $this->refusal(self::edit('a.txt', 'ORIGINAL', 'X'), $tool));
        (new FileReadTool($this->ws))->execute(['path' => 'a.txt']);
        $tool->execute(self::edit('a.txt', 'ORIGINAL', 'ONE'));
        $tool->reset();
        self::assertSame('file_edit: file_read must be called on a.txt before editing it.', $this->refusal(self::edit('a.txt', 'ONE', 'TWO'), $tool));
        (new FileReadTool($this->ws))->execute(['path' => 'a.txt', 'offset' => 1, 'limit' => 1]);
        $tool->execute(self::edit('a.txt', 'ONE', 'TWO'));
        (new FileReadTool($this->ws))->reset();
        self::assertSame('file_edit: file_read must be called on a.txt before editing it.', $this->refusal(self::edit('a.txt', 'TWO', 'THREE'), $tool));
        self::assertSame('TWO', file_get_contents($this->ws . '/a.txt'));
    }

    public function testAReadIsScopedToItsWorkspaceAndFile(): void
    {
        $this->seedRead('a.txt', 'A');
        $this->seed('b.txt', 'B');
        self::assertSame('file_edit: file_read must be called on b.txt before editing it.', $this->refusal(self::edit('b.txt', 'B', 'X')));
        // The same workspace reached through another spelling of its root is the same log.
        (new FileEditTool($this->ws . '/'))->execute(self::edit('a.txt', 'A', 'X'));
        // A parent folder used as a workspace is another workspace.
        $sub = basename($this->ws);
        mkdir($this->ws . '/inner');
        $this->seedRead('inner/c.txt', 'C');
        self::assertSame(
            'file_edit: file_read must be called on c.txt before editing it.',
            $this->refusal(self::edit('c.txt', 'C', 'X'), new FileEditTool($this->ws . '/inner')),
        );
        self::assertNotSame('', $sub);
    }

    public function testAFailedReadDoesNotCount(): void
    {
        $this->seed('bin.dat', "a\0b");
        try {
            (new FileReadTool($this->ws))->execute(['path' => 'bin.dat']);
        } catch (ToolException) {
        }
        self::assertSame('file_edit: file_read must be called on bin.dat before editing it.', $this->refusal(self::edit('bin.dat', 'a', 'b')));
    }

    private const CHILD_PRELUDE = <<<'PHP'
        <?php
        use PhpClaw\Tools\FileEditTool;
        use PhpClaw\Tools\FileReadTool;
        $ws = $argv[1] ?? getenv('WS');
        function attempt(callable $f): string {
            try { return (string) $f(); } catch (\Throwable $e) { return get_class($e) . ': ' . $e->getMessage(); }
        }
        PHP;

    public function testTheExtensionsOwnLogWithoutPhpClaw(): void
    {
        $this->seed('a.txt', 'ORIGINAL');
        $code = self::CHILD_PRELUDE . <<<'PHP'

            $ws = getenv('WS');
            echo class_exists('PhpClaw\Tools\Concerns\FileReadLog') ? "phpclaw-log\n" : "own-log\n";
            $edit = new FileEditTool($ws);
            echo attempt(fn () => $edit->execute(['path' => 'a.txt', 'old_str' => 'ORIGINAL', 'new_str' => 'ONE'])), "\n";
            (new FileReadTool($ws))->execute(['path' => 'a.txt']);
            echo attempt(fn () => json_decode($edit->execute(['path' => 'a.txt', 'old_str' => 'ORIGINAL', 'new_str' => 'ONE']), true)['data']['status']), "\n";
            (new FileReadTool($ws))->reset();
            echo attempt(fn () => $edit->execute(['path' => 'a.txt', 'old_str' => 'ONE', 'new_str' => 'TWO'])), "\n";
            (new FileReadTool($ws))->execute(['path' => 'a.txt']);
            $edit->reset();
            echo attempt(fn () => $edit->execute(['path' => 'a.txt', 'old_str' => 'ONE', 'new_str' => 'TWO'])), "\n";
            $p = new ReflectionProperty(FileEditTool::class, 'readLog');
            var_export($p->getValue());
            PHP;
        putenv('WS=' . $this->ws);
        $run = Subprocess::withModule($code);
        putenv('WS');
        self::assertSame('', $run['stderr']);
        self::assertSame(
            "own-log\n"
            . "PhpClaw\\Exceptions\\ToolException: file_edit: file_read must be called on a.txt before editing it.\n"
            . "edited\n"
            . "PhpClaw\\Exceptions\\ToolException: file_edit: file_read must be called on a.txt before editing it.\n"
            . "PhpClaw\\Exceptions\\ToolException: file_edit: file_read must be called on a.txt before editing it.\n"
            . 'NULL',
            $run['stdout'],
        );
        self::assertSame('ONE', file_get_contents($this->ws . '/a.txt'));
    }

    public function testPhpClawsFileReadLogIsUsedWhenInstalled(): void
    {
        $this->seed('a.txt', 'ORIGINAL');
        $this->seed('b.txt', 'B');
        $code = <<<'PHP'
            <?php
            namespace PhpClaw\Tools\Concerns;
            final class FileReadLog {
                public static array $read = [];
                public static function markRead(string $root, string $path): void { self::$read[$root][$path] = true; }
                public static function wasRead(string $root, string $path): bool { return isset(self::$read[$root][$path]); }
                public static function all(): array { return array_map(fn ($p) => array_keys($p), self::$read); }
                public static function reset(): void { self::$read = []; }
            }
            namespace Child;
            use PhpClaw\Tools\Concerns\FileReadLog;
            use PhpClaw\Tools\FileEditTool;
            use PhpClaw\Tools\FileReadTool;
            $ws = getenv('WS');
            $root = realpath($ws);
            // A read recorded by PHP code (phpClaw's own FileReadTool) opens the gate.
            FileReadLog::markRead($root, $root . '/a.txt');
            $edit = new FileEditTool($ws);
            echo json_decode($edit->execute(['path' => 'a.txt', 'old_str' => 'ORIGINAL', 'new_str' => 'ONE']), true)['data']['status'], "\n";
            // A native read lands in phpClaw's log.
            (new FileReadTool($ws))->execute(['path' => 'b.txt']);
            echo json_encode(FileReadLog::all(), JSON_UNESCAPED_SLASHES) === json_encode([$root => [$root . '/a.txt', $root . '/b.txt']], JSON_UNESCAPED_SLASHES) ? "shared\n" : "not shared\n";
            $edit->reset();
            echo json_encode(FileReadLog::all()), "\n";
            var_export((new \ReflectionProperty(FileEditTool::class, 'readLog'))->getValue());
            PHP;
        putenv('WS=' . $this->ws);
        $run = Subprocess::withModule($code);
        putenv('WS');
        self::assertSame('', $run['stderr']);
        self::assertSame("edited\nshared\n[]\nNULL", $run['stdout']);
    }

    public function testTheOwnLogStartsEmptyWithEveryRequest(): void
    {
        $this->seed('a.txt', 'ORIGINAL');
        $docroot = $this->outside();
        mkdir($docroot);
        file_put_contents($docroot . '/index.php', <<<'PHP'
            <?php
            $ws = $_GET['ws'];
            try {
                if (($_GET['op'] ?? '') !== 'edit') {
                    (new PhpClaw\Tools\FileReadTool($ws))->execute(['path' => 'a.txt']);
                }
                if (($_GET['op'] ?? '') !== 'read') {
                    echo json_decode((new PhpClaw\Tools\FileEditTool($ws))->execute(['path' => 'a.txt', 'old_str' => $_GET['old'], 'new_str' => $_GET['new']]), true)['data']['status'];
                } else {
                    echo 'read';
                }
            } catch (\Throwable $e) {
                echo $e->getMessage();
            }
            PHP);
        $server = @stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($server, false), ':'), 1);
        fclose($server);
        $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . PHPCLAW_MODULE, '-S', "127.0.0.1:$port", '-t', $docroot];
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        try {
            $get = function (array $q) use ($port): string {
                $url = "http://127.0.0.1:$port/index.php?" . http_build_query($q + ['ws' => $this->ws]);
                for ($i = 0; $i < 100; $i++) {
                    $body = @file_get_contents($url);
                    // A refused connection while the server starts is expected: leave no trace.
                    error_clear_last();
                    if ($body !== false) {
                        return $body;
                    }
                    usleep(50000);
                }
                self::fail('the built-in server did not answer');
            };
            self::assertSame('read', $get(['op' => 'read']));
            // Same worker process, next request: the read of the previous request is forgotten.
            self::assertSame('file_edit: file_read must be called on a.txt before editing it.', $get(['op' => 'edit', 'old' => 'ORIGINAL', 'new' => 'X']));
            self::assertSame('edited', $get(['op' => 'both', 'old' => 'ORIGINAL', 'new' => 'X']));
            self::assertSame('file_edit: file_read must be called on a.txt before editing it.', $get(['op' => 'edit', 'old' => 'X', 'new' => 'Y']));
        } finally {
            proc_terminate($proc);
            proc_close($proc);
        }
        self::assertSame('X', file_get_contents($this->ws . '/a.txt'));
    }

    // ---- The size cap and binaries -----------------------------------------------------

    public function testSmallCapAtAndPastTheLimit(): void
    {
        $tool = new FileEditTool($this->ws, maxBytes: 8);
        $this->seedRead('at.txt', '12345678');
        $tool->execute(self::edit('at.txt', '4', 'x'));
        self::assertSame('123x5678', file_get_contents($this->ws . '/at.txt'));
        $this->seedRead('past.txt', '123456789');
        self::assertSame('file_edit: file too large to edit (9 bytes, limit 8): past.txt', $this->refusal(self::edit('past.txt', '4', 'x'), $tool));
        self::assertSame('123456789', file_get_contents($this->ws . '/past.txt'));
    }

    public function testDefaultCapAtAndPastTwoMegabytes(): void
    {
        $tool = new FileEditTool($this->ws);
        $this->seedRead('at.txt', 'NEEDLE' . str_repeat('a', 2097152 - 6));
        self::assertSame(1, self::decode($tool->execute(self::edit('at.txt', 'NEEDLE', 'FOUND!')))['data']['line_changed']);
        self::assertSame(2097152, filesize($this->ws . '/at.txt'));
        $this->seedRead('past.txt', 'NEEDLE' . str_repeat('a', 2097152 - 5));
        self::assertSame('file_edit: file too large to edit (2097153 bytes, limit 2097152): past.txt', $this->refusal(self::edit('past.txt', 'NEEDLE', 'FOUND!'), $tool));
    }

    public function testAGrownFileIsSizedAgain(): void
    {
        // An edit may make the file larger than the cap: the cap is on what is read.
        $tool = new FileEditTool($this->ws, maxBytes: 4);
        $this->seedRead('a.txt', 'abcd');
        $tool->execute(self::edit('a.txt', 'b', 'bbbb'));
        self::assertSame('abbbbcd', file_get_contents($this->ws . '/a.txt'));
        self::assertSame('file_edit: file too large to edit (7 bytes, limit 4): a.txt', $this->refusal(self::edit('a.txt', 'c', 'C'), $tool));
    }

    public function testBinaryIsRefusedAndLeftByteIdentical(): void
    {
        $binary = "\x89PNG\r\n\x1a\n\x00\x00\x00\x0DIHDR\x00\x00\x00\x00";
        $this->seed('image.png', $binary);
        (new FileReadTool($this->ws))->reset();
        // file_read refuses binaries too, so the read is recorded through a text twin first.
        file_put_contents($this->ws . '/image.png', 'IHDR text');
        (new FileReadTool($this->ws))->execute(['path' => 'image.png']);
        file_put_contents($this->ws . '/image.png', $binary);
        self::assertSame('file_edit: Binary file; file_edit operates on text files only: image.png', $this->refusal(self::edit('image.png', 'IHDR', 'XXXX')));
        self::assertSame($binary, file_get_contents($this->ws . '/image.png'));
        // A NUL past the first 8192 bytes is not seen by the sniff, as in the reference.
        $late = str_repeat('x', 8192) . "\0TAIL";
        file_put_contents($this->ws . '/late.txt', str_repeat('x', 8192) . 'TAIL');
        (new FileReadTool($this->ws))->execute(['path' => 'late.txt']);
        file_put_contents($this->ws . '/late.txt', $late);
        (new FileEditTool($this->ws))->execute(self::edit('late.txt', 'TAIL', 'END'));
        self::assertSame(str_repeat('x', 8192) . "\0END", file_get_contents($this->ws . '/late.txt'));
    }

    // ---- The sandbox -------------------------------------------------------------------

    /** @return array<string, array{string, string}> */
    public static function refusedPaths(): array
    {
        return [
            'dot dot' => ['../escape.txt', 'file_edit: Path traversal detected: access denied.'],
            'dot dot above root' => ['a/../../outside.txt', 'file_edit: Path traversal detected: access denied.'],
            'absolute' => ['/etc/passwd', 'file_edit: Path traversal detected: access denied.'],
            'windows drive' => ['C:\\Windows\\System32\\config.sys', 'file_edit: Path traversal detected: access denied.'],
            'unc' => ['\\\\server\\share\\file.txt', 'file_edit: Path traversal detected: access denied.'],
            'missing' => ['ghost.txt', 'file_edit: file not found: ghost.txt'],
            'missing parent' => ['nonexistent-dir/file.txt', 'file_edit: file not found: nonexistent-dir/file.txt'],
            'root itself' => ['.', 'file_edit: file not found: .'],
            'composer.json' => ['composer.json', "file_edit: Access to 'composer.json' is blocked."],
            'composer.lock' => ['composer.lock', "file_edit: Access to 'composer.lock' is blocked."],
            'package.json' => ['package.json', "file_edit: Access to 'package.json' is blocked."],
            'gitignore' => ['.gitignore', "file_edit: Access to '.gitignore' is blocked."],
            'phpunit.xml' => ['phpunit.xml', "file_edit: Access to 'phpunit.xml' is blocked."],
            'artisan' => ['artisan', "file_edit: Access to 'artisan' is blocked."],
            'wp-config' => ['wp-config.php', "file_edit: Access to 'wp-config.php' is blocked."],
            'env' => ['.env', "file_edit: Access to '.env' files is blocked."],
            'env local' => ['.env.local', "file_edit: Access to '.env.local' files is blocked."],
            'key' => ['server.key', "file_edit: Files with extension '.key' are blocked."],
            'github' => ['.github/workflows/ci.yml', "file_edit: Editing the '.github' directory is blocked."],
            'circleci' => ['.circleci/config.yml', "file_edit: Editing the '.circleci' directory is blocked."],
            'git' => ['.git/config', "file_edit: Editing the '.git' directory is blocked."],
            'vendor' => ['vendor/autoload.php', "file_edit: Editing the 'vendor' directory is blocked."],
            'node_modules' => ['node_modules/x.js', "file_edit: Editing the 'node_modules' directory is blocked."],
            'ssh' => ['.ssh/config', "file_edit: Editing the '.ssh' directory is blocked."],
        ];
    }

    /**
     * @dataProvider refusedPaths
     */
    #[DataProvider('refusedPaths')]
    public function testRefusedPath(string $path, string $message): void
    {
        if (!str_contains($path, '..') && !str_starts_with($path, '/') && !str_contains($path, '\\') && !str_contains($message, 'not found')) {
            $this->seed($path, 'secret content');
        }
        mkdir($this->ws . '/a', 0755, true);
        self::assertSame($message, $this->refusal(self::edit($path, 'secret', 'x')));
        if (is_file($this->ws . '/' . $path)) {
            self::assertSame('secret content', file_get_contents($this->ws . '/' . $path));
        }
    }

    public function testNoiseFoldersCanBeAllowedSecurityOnesNot(): void
    {
        $tool = new FileEditTool($this->ws, noiseBlockedDirs: []);
        $this->seed('vendor/lib.txt', 'ORIGINAL');
        $this->seed('.git/config', '[core]');
        $this->seed('.ssh/config', 'Host x');
        // file_read refuses vendor/ by default too: read with its noise list emptied as well.
        (new FileReadTool($this->ws, noiseBlockedDirs: []))->execute(['path' => 'vendor/lib.txt']);
        self::assertSame('edited', self::decode($tool->execute(self::edit('vendor/lib.txt', 'ORIGINAL', 'CHANGED')))['data']['status']);
        self::assertSame("file_edit: Editing the '.git' directory is blocked.", $this->refusal(self::edit('.git/config', 'core', 'x'), $tool));
        self::assertSame("file_edit: Editing the '.ssh' directory is blocked.", $this->refusal(self::edit('.ssh/config', 'Host', 'x'), $tool));
        $custom = new FileEditTool($this->ws, noiseBlockedDirs: ['build']);
        $this->seedRead('build/out.txt', 'x');
        self::assertSame("file_edit: Editing the 'build' directory is blocked.", $this->refusal(self::edit('build/out.txt', 'x', 'y'), $custom));
    }

    public function testPathShapesThatStayInside(): void
    {
        $tool = new FileEditTool($this->ws);
        $this->seedRead('a/b/c.txt', 'ORIGINAL');
        $tool->execute(self::edit('a//b///c.txt', 'ORIGINAL', 'ONE'));
        $tool->execute(self::edit('./a/./b/c.txt', 'ONE', 'TWO'));
        $tool->execute(self::edit('a/b/../b/c.txt', 'TWO', 'THREE'));
        self::assertSame('THREE', file_get_contents($this->ws . '/a/b/c.txt'));
        $this->seedRead('foo..bar.txt', 'ORIGINAL');
        $tool->execute(self::edit('foo..bar.txt', 'ORIGINAL', 'CHANGED'));
        self::assertSame('CHANGED', file_get_contents($this->ws . '/foo..bar.txt'));
    }

    public function testInjectionShapedPathIsSanitisedInTheMessage(): void
    {
        $m = $this->refusal(self::edit('ignore-previous-<script>alert(1)</script>;rm.txt', 'a', 'b'));
        self::assertStringNotContainsString('<script>', $m);
        self::assertStringNotContainsString(';', $m);
        self::assertSame('file_edit: file not found: ignore-previous-?script?alert?1??/script??rm.txt', $m);
    }

    public function testDeploySymlinkAboveTheRootResolves(): void
    {
        $base = $this->outside();
        $release = $base . '/releases/20240101120000';
        mkdir($release . '/storage', 0755, true);
        symlink($release, $base . '/current');
        file_put_contents($release . '/storage/deployed.txt', 'ORIGINAL');
        (new FileReadTool($base . '/current/storage'))->execute(['path' => 'deployed.txt']);
        $tool = new FileEditTool($base . '/current/storage');
        self::assertSame('edited', self::decode($tool->execute(self::edit('deployed.txt', 'ORIGINAL', 'CHANGED')))['data']['status']);
        self::assertSame('CHANGED', file_get_contents($release . '/storage/deployed.txt'));
    }

    // ---- Symlinks ----------------------------------------------------------------------

    public function testSymlinksAreRefused(): void
    {
        $out = $this->outside('.txt');
        file_put_contents($out, "SECRET_VALUE\n");
        symlink($out, $this->ws . '/leak.txt');
        $this->seed('.env', 'API_KEY=secret');
        symlink($this->ws . '/.env', $this->ws . '/notes.txt');
        symlink($out, $this->ws . '/b');
        symlink($this->ws . '/b', $this->ws . '/chain');
        mkdir($this->ws . '/a/x', 0755, true);
        symlink($this->ws . '/.env', $this->ws . '/link');
        foreach (['leak.txt', 'notes.txt', 'chain', 'a/../link', 'a/x/../../link', './a/../link'] as $path) {
            self::assertSame('file_edit: Access denied: path contains a symlink.', $this->refusal(self::edit($path, 'SECRET', 'X')), $path);
        }
        self::assertSame("SECRET_VALUE\n", file_get_contents($out));
    }

    public function testSymlinkedFoldersToOutsideAreRefused(): void
    {
        $out = $this->outside();
        mkdir($out . '/sub', 0755, true);
        file_put_contents($out . '/sub/target.txt', 'CONTENT');
        symlink($out, $this->ws . '/linked-dir');
        mkdir($this->ws . '/a');
        symlink($out, $this->ws . '/a/b');
        self::assertSame('file_edit: Access denied: path contains a symlink.', $this->refusal(self::edit('linked-dir/sub/target.txt', 'CONTENT', 'X')));
        self::assertSame('file_edit: Access denied: path contains a symlink.', $this->refusal(self::edit('a/b/sub/target.txt', 'CONTENT', 'X')));
        $follow = new FileEditTool($this->ws, followSymlinks: true);
        self::assertSame('file_edit: Path traversal detected: access denied.', $this->refusal(self::edit('linked-dir/sub/target.txt', 'CONTENT', 'X'), $follow));
        self::assertSame('CONTENT', file_get_contents($out . '/sub/target.txt'));
    }

    public function testFollowSymlinksAllowsABenignLinkAndJudgesTheTarget(): void
    {
        $this->seed('real.txt', 'ORIGINAL');
        symlink($this->ws . '/real.txt', $this->ws . '/link.txt');
        (new FileReadTool($this->ws, followSymlinks: true))->execute(['path' => 'link.txt']);
        $tool = new FileEditTool($this->ws, followSymlinks: true);
        self::assertSame('edited', self::decode($tool->execute(self::edit('link.txt', 'ORIGINAL', 'CHANGED')))['data']['status']);
        self::assertSame('CHANGED', file_get_contents($this->ws . '/real.txt'));
        self::assertTrue(is_link($this->ws . '/link.txt'), 'the link itself is kept: the real file was replaced');
        $this->seed('composer.json', '{"scripts": "malicious"}');
        symlink($this->ws . '/composer.json', $this->ws . '/innocent.txt');
        self::assertSame("file_edit: Access to 'composer.json' is blocked.", $this->refusal(self::edit('innocent.txt', 'malicious', 'x'), $tool));
    }

    // ---- Atomic write ------------------------------------------------------------------

    public function testFailedEditLeavesTheOriginalAndNoTempFile(): void
    {
        $this->seedRead('locked/a.txt', 'ORIGINAL');
        if (function_exists('posix_getuid') && posix_getuid() !== 0) {
            chmod($this->ws . '/locked', 0555);
        } else {
            exec('chattr +i ' . escapeshellarg($this->ws . '/locked') . ' 2>/dev/null', $out, $code);
            if ($code !== 0) {
                self::markTestSkipped('running as root without chattr: no folder can refuse a write');
            }
        }
        try {
            self::assertSame(
                'file_edit: cannot write atomically: target directory is not writable.',
                $this->refusal(self::edit('locked/a.txt', 'ORIGINAL', 'CHANGED')),
            );
        } finally {
            exec('chattr -i ' . escapeshellarg($this->ws . '/locked') . ' 2>/dev/null');
            chmod($this->ws . '/locked', 0755);
        }
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/locked/a.txt'));
        self::assertSame([], $this->strays($this->ws . '/locked'));
    }

    public function testImmutableFileIsLeftAlone(): void
    {
        $this->seedRead('frozen.txt', 'ORIGINAL');
        exec('chattr +i ' . escapeshellarg($this->ws . '/frozen.txt') . ' 2>/dev/null', $out, $code);
        if ($code !== 0) {
            self::markTestSkipped('chattr unavailable');
        }
        try {
            self::assertSame('file_edit: failed to finalize write: frozen.txt', $this->refusal(self::edit('frozen.txt', 'ORIGINAL', 'CHANGED')));
        } finally {
            exec('chattr -i ' . escapeshellarg($this->ws . '/frozen.txt') . ' 2>/dev/null');
        }
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/frozen.txt'));
        self::assertSame([], $this->strays($this->ws));
    }

    public function testPermissionsArePreserved(): void
    {
        $this->seedRead('a.txt', 'ORIGINAL');
        chmod($this->ws . '/a.txt', 0640);
        (new FileEditTool($this->ws))->execute(self::edit('a.txt', 'ORIGINAL', 'CHANGED'));
        clearstatcache();
        self::assertSame(0640, fileperms($this->ws . '/a.txt') & 0777);
        self::assertSame([], $this->strays($this->ws));
    }

    public function testFailedMatchLeavesNoTempFile(): void
    {
        $this->seedRead('a.txt', 'ORIGINAL');
        $this->refusal(self::edit('a.txt', 'MISSING', 'CHANGED'));
        self::assertSame([], $this->strays($this->ws));
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/a.txt'));
    }

    // ---- Guard -------------------------------------------------------------------------

    public function testRefusedCallerEditsNothing(): void
    {
        $this->seedRead('a.txt', 'ORIGINAL');
        $tool = new FileEditTool($this->ws);
        $tool->withAuthorizer(new class () implements ToolAuthorizerInterface {
            public function allows(): bool
            {
                return false;
            }

            public function runningInConsole(): bool
            {
                return false;
            }
        });
        self::assertFalse($tool->isEligibleForRouting());
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not edit a file in the workspace."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(self::edit('a.txt', 'ORIGINAL', 'X')),
        );
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/a.txt'));
    }

    public function testArrayInputsAreCastLikePhp(): void
    {
        $this->seedRead('a.txt', 'ORIGINAL');
        try {
            (new FileEditTool($this->ws))->execute(['path' => 'a.txt', 'old_str' => new \stdClass(), 'new_str' => 'x']);
            self::fail('expected Error');
        } catch (\Error $e) {
            self::assertSame('Object of class stdClass could not be converted to string', $e->getMessage());
        }
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/a.txt'));
    }
}
