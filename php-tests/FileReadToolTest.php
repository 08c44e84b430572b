<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ResettableInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ToolRoutingMetadata;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native FileReadTool on real files in a fresh temporary workspace per test: the class
 * shape, the sandbox, the byte cap, the binary sniff, line ranges, the guard and the read log.
 */
final class FileReadToolTest extends TestCase
{
    private string $ws;

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-frt-' . bin2hex(random_bytes(6));
        mkdir($this->ws, 0755, true);
        \PhpClaw\Tools\Concerns\FileReadLog::reset();
    }

    protected function tearDown(): void
    {
        self::remove($this->ws);
    }

    private static function remove(string $path): void
    {
        if (is_link($path) || is_file($path)) {
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

    private function put(string $relative, string $content): string
    {
        $abs = $this->ws . '/' . $relative;
        if (!is_dir(dirname($abs))) {
            mkdir(dirname($abs), 0755, true);
        }
        file_put_contents($abs, $content);
        return $abs;
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        return json_decode($json, true, 512, JSON_THROW_ON_ERROR);
    }

    private function content(array $input, ?FileReadTool $tool = null): string
    {
        return self::decode(($tool ?? new FileReadTool($this->ws))->execute($input))['data']['content'];
    }

    private function refusal(array $input, ?FileReadTool $tool = null): ToolException
    {
        try {
            ($tool ?? new FileReadTool($this->ws))->execute($input);
        } catch (ToolException $e) {
            return $e;
        }
        self::fail('expected a ToolException for ' . json_encode($input));
    }

    private function numbered(int $lines): void
    {
        $text = '';
        for ($i = 1; $i <= $lines; $i++) {
            $text .= "line $i\n";
        }
        $this->put('lines.txt', $text);
    }

    // ---- Class shape -------------------------------------------------------------------

    public function testClassShape(): void
    {
        $class = new \ReflectionClass(FileReadTool::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        foreach ([ToolInterface::class, AuthorizableToolInterface::class, ToolRoutingInterface::class, ResettableInterface::class] as $iface) {
            self::assertTrue($class->implementsInterface($iface), $iface);
        }
        self::assertSame('storage/phpclaw', FileReadTool::DEFAULT_WORKSPACE_SUBPATH);
        self::assertSame(16384, FileReadTool::DEFAULT_MAX_BYTES);
        $params = array_map(fn ($p) => $p->getName(), $class->getConstructor()->getParameters());
        // phpClaw's four parameters in its order, then ours.
        self::assertSame(['workspaceRoot', 'maxBytes', 'followSymlinks', 'noiseBlockedDirs', 'allowHardLinks'], $params);
    }

    public function testNameDescriptionSchema(): void
    {
        $tool = new FileReadTool($this->ws);
        self::assertSame('file_read', $tool->name());
        self::assertSame('READ real file contents from the workspace (storage/phpclaw/). Use whenever the user asks what is in a file or to summarise one. Invoke: never guess contents.', $tool->description());
        $schema = $tool->inputSchema();
        self::assertSame('object', $schema['type']);
        self::assertSame(['path', 'offset', 'limit', 'line_numbers'], array_keys($schema['properties']));
        self::assertSame(['string', 'integer', 'integer', 'boolean'], array_column($schema['properties'], 'type'));
        self::assertSame(['path'], $schema['required']);
    }

    public function testRoutingAndCapability(): void
    {
        $tool = new FileReadTool($this->ws);
        $meta = $tool->routingMetadata();
        self::assertInstanceOf(ToolRoutingMetadata::class, $meta);
        self::assertSame(['filesystem'], $meta->domains);
        self::assertSame(['read', 'open', 'file', 'contents', 'view', 'show'], $meta->tags);
        self::assertSame(['read file', 'show contents'], $meta->intents);
        self::assertSame(['show me the contents of app.log'], $meta->examples);
        self::assertSame([], FileReadTool::examples());
        self::assertSame('phpclaw_use_tools', $tool->requiredCapability());
        self::assertTrue($tool->isEligibleForRouting());
    }

    public function testAccessorsAndNamedArguments(): void
    {
        $tool = new FileReadTool(maxBytes: 1024, workspaceRoot: $this->ws . '/');
        self::assertSame(realpath($this->ws), $tool->workspaceRoot());
        self::assertSame(1024, $tool->maxBytes());
        self::assertSame(16384, (new FileReadTool($this->ws))->maxBytes());
    }

    public function testDefaultRootIsUnderTheWorkingDirectory(): void
    {
        $cwd = getcwd();
        chdir($this->ws);
        try {
            $tool = new FileReadTool();
            self::assertSame(realpath($this->ws) . '/storage/phpclaw', $tool->workspaceRoot());
            self::assertSame(getcwd() . '/storage/phpclaw', (new FileReadTool(null))->workspaceRoot());
        } finally {
            chdir($cwd);
        }
    }

    public function testMissingRootIsKeptRawAndResolvedLater(): void
    {
        $root = $this->ws . '/later';
        $tool = new FileReadTool($root);
        self::assertSame($root, $tool->workspaceRoot());
        $e = $this->refusal(['path' => 'a.txt'], $tool);
        self::assertStringContainsString('Workspace root not found', $e->getMessage());
        mkdir($root);
        file_put_contents($root . '/a.txt', 'late');
        self::assertSame('late', $this->content(['path' => 'a.txt'], $tool));
        self::assertSame(realpath($root), $tool->workspaceRoot());
    }

    /** @return iterable<string, array{int}> */
    public static function badMaxBytes(): iterable
    {
        yield 'zero' => [0];
        yield 'negative' => [-1];
        yield 'min' => [PHP_INT_MIN];
    }

    /** @dataProvider badMaxBytes */
    #[DataProvider('badMaxBytes')]
    public function testMaxBytesBelowOneIsRefused(int $max): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('maxBytes must be greater than 0.');
        new FileReadTool($this->ws, maxBytes: $max);
    }

    public function testConstructorTypes(): void
    {
        try {
            new FileReadTool($this->ws, maxBytes: 'many');
            self::fail('expected TypeError');
        } catch (\TypeError $e) {
            self::assertStringContainsString('must be of type int', $e->getMessage());
        }
        try {
            new FileReadTool($this->ws, noiseBlockedDirs: 'vendor');
            self::fail('expected TypeError');
        } catch (\TypeError $e) {
            self::assertStringContainsString('must be of type array', $e->getMessage());
        }
        try {
            new FileReadTool($this->ws, followSymlinks: []);
            self::fail('expected TypeError');
        } catch (\TypeError $e) {
            self::assertStringContainsString('must be of type bool', $e->getMessage());
        }
    }

    public function testExecuteRequiresAnArray(): void
    {
        $this->expectException(\TypeError::class);
        (new FileReadTool($this->ws))->execute('a.txt');
    }

    // ---- Reading ----------------------------------------------------------------------

    public function testEnvelopeIsByteExact(): void
    {
        $this->put('hello.txt', "w\u{f6}rld/ \"q\"\n");
        $json = (new FileReadTool($this->ws))->execute(['path' => 'hello.txt']);
        $expected = json_encode([
            'success' => true,
            'data' => ['path' => 'hello.txt', 'content' => "w\u{f6}rld/ \"q\"\n"],
            'meta' => ['mode' => 'read', 'bytes' => strlen("w\u{f6}rld/ \"q\"\n"), 'truncated' => false],
            'warnings' => [],
        ], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
        self::assertSame($expected, $json);
    }

    /** @return iterable<string, array{string, string}> */
    public static function readablePaths(): iterable
    {
        yield 'nested' => ['sub/dir/f.txt', 'sub/dir/f.txt'];
        yield 'dot slash' => ['sub/dir/f.txt', './sub/dir/f.txt'];
        yield 'double slash' => ['sub/dir/f.txt', 'sub//dir/f.txt'];
        yield 'trailing slash' => ['sub/dir/f.txt', 'sub/dir/f.txt/'];
        yield 'backslashes' => ['sub/dir/f.txt', 'sub\\dir\\f.txt'];
        yield 'dotdot inside' => ['sub/dir/f.txt', 'sub/x/../dir/f.txt'];
        yield 'spaces' => ['my file.txt', 'my file.txt'];
        yield 'surrounding whitespace' => ['f.txt', "  f.txt \n"];
        yield 'unicode name' => ['文件.txt', '文件.txt'];
        yield 'envoy is not env' => ['.envoy', '.envoy'];
        yield 'environment.md is not env' => ['.environment.md', '.environment.md'];
        yield 'php is not blocked by extension' => ['b.php', 'b.php'];
    }

    /** @dataProvider readablePaths */
    #[DataProvider('readablePaths')]
    public function testReadablePaths(string $file, string $asked): void
    {
        $this->put($file, 'ok:' . $file);
        self::assertSame('ok:' . $file, $this->content(['path' => $asked]));
    }

    public function testDuplicatedWorkspacePrefixIsStripped(): void
    {
        $this->put('dup.txt', 'dup');
        self::assertSame('dup', $this->content(['path' => realpath($this->ws) . '/dup.txt']));
    }

    public function testSingleSegmentTailIsNotStripped(): void
    {
        $root = $this->ws . '/phpclaw';
        mkdir($root . '/phpclaw', 0755, true);
        file_put_contents($root . '/notes.md', 'top');
        file_put_contents($root . '/phpclaw/notes.md', 'nested');
        self::assertSame('nested', $this->content(['path' => 'phpclaw/notes.md'], new FileReadTool($root)));
    }

    public function testAmbiguousTailPrefersTheUnstrippedPath(): void
    {
        $root = $this->ws . '/proj/foo/bar';
        mkdir($root . '/foo/bar', 0755, true);
        file_put_contents($root . '/s.txt', 'stripped');
        file_put_contents($root . '/foo/bar/s.txt', 'unstripped');
        self::assertSame('unstripped', $this->content(['path' => 'foo/bar/s.txt'], new FileReadTool($root)));
    }

    public function testRootBehindADeploySymlinkResolves(): void
    {
        mkdir($this->ws . '/releases/1/storage', 0755, true);
        symlink($this->ws . '/releases/1', $this->ws . '/current');
        file_put_contents($this->ws . '/releases/1/storage/d.txt', 'deployed');
        self::assertSame('deployed', $this->content(['path' => 'd.txt'], new FileReadTool($this->ws . '/current/storage')));
    }

    // ---- Byte cap ---------------------------------------------------------------------

    public function testCapAtTheDefaultLimitAndOnePast(): void
    {
        $this->put('at.txt', str_repeat('a', 16384));
        $this->put('past.txt', str_repeat('a', 16385));
        $at = self::decode((new FileReadTool($this->ws))->execute(['path' => 'at.txt']));
        self::assertSame(str_repeat('a', 16384), $at['data']['content']);
        self::assertFalse($at['meta']['truncated']);
        self::assertSame(16384, $at['meta']['bytes']);
        $past = self::decode((new FileReadTool($this->ws))->execute(['path' => 'past.txt']));
        self::assertSame(str_repeat('a', 16384) . "\n[File truncated at 16384 bytes]", $past['data']['content']);
        self::assertTrue($past['meta']['truncated']);
        self::assertSame(16384 + strlen("\n[File truncated at 16384 bytes]"), $past['meta']['bytes']);
    }

    public function testSmallCapAndOneByteCap(): void
    {
        $this->put('large.txt', str_repeat('a', 100));
        self::assertSame(str_repeat('a', 10) . "\n[File truncated at 10 bytes]", $this->content(['path' => 'large.txt'], new FileReadTool($this->ws, maxBytes: 10)));
        self::assertSame("a\n[File truncated at 1 bytes]", $this->content(['path' => 'large.txt'], new FileReadTool($this->ws, maxBytes: 1)));
        self::assertSame(str_repeat('a', 100), $this->content(['path' => 'large.txt'], new FileReadTool($this->ws, maxBytes: PHP_INT_MAX)));
    }

    public function testCutNeverSplitsAUtf8Character(): void
    {
        $this->put('utf8.txt', str_repeat('a', 10) . "\u{20ac}");
        foreach ([11, 12] as $max) {
            self::assertSame(str_repeat('a', 10) . "\n[File truncated at $max bytes]", $this->content(['path' => 'utf8.txt'], new FileReadTool($this->ws, maxBytes: $max)));
        }
        self::assertSame(str_repeat('a', 10) . "\u{20ac}", $this->content(['path' => 'utf8.txt'], new FileReadTool($this->ws, maxBytes: 13)));
    }

    public function testEmptyFile(): void
    {
        $this->put('empty.txt', '');
        self::assertSame('', $this->content(['path' => 'empty.txt']));
    }

    // ---- Binary sniff -----------------------------------------------------------------

    public function testBinaryIsRefused(): void
    {
        $this->put('image.png', "\x89PNG\r\n\x1a\n\x00\x00\x00\x0DIHDR");
        $e = $this->refusal(['path' => 'image.png']);
        self::assertSame('Binary file; not readable as text: image.png', $e->getMessage());
        self::assertSame(0, $e->getCode());
        self::assertNull($e->getPrevious());
    }

    public function testNulAtTheLastSniffedByteAndJustPastIt(): void
    {
        $this->put('at.txt', str_repeat('a', 8191) . "\0");
        $this->put('past.txt', str_repeat('a', 8192) . "\0");
        self::assertSame('Binary file; not readable as text: at.txt', $this->refusal(['path' => 'at.txt'])->getMessage());
        self::assertSame(str_repeat('a', 8192) . "\0", $this->content(['path' => 'past.txt']));
        // The sniff applies to line reads too.
        self::assertStringStartsWith('Binary file', $this->refusal(['path' => 'at.txt', 'offset' => 1])->getMessage());
    }

    public function testInvalidUtf8FailsToEncodeWithJsonExceptionAsPrevious(): void
    {
        $this->put('latin1.txt', "caf\xe9");
        $e = $this->refusal(['path' => 'latin1.txt']);
        self::assertSame('Unable to encode tool response.', $e->getMessage());
        self::assertInstanceOf(\JsonException::class, $e->getPrevious());
        self::assertSame(JSON_ERROR_UTF8, $e->getPrevious()->getCode());
        self::assertSame('Malformed UTF-8 characters, possibly incorrectly encoded', $e->getPrevious()->getMessage());
    }

    // ---- Refusals ---------------------------------------------------------------------

    /** @return iterable<string, array{array<string, mixed>, string}> */
    public static function emptyPaths(): iterable
    {
        yield 'missing' => [[], 'No file path provided.'];
        yield 'empty' => [['path' => ''], 'No file path provided.'];
        yield 'spaces' => [['path' => '   '], 'No file path provided.'];
        yield 'null' => [['path' => null], 'No file path provided.'];
        yield 'false' => [['path' => false], 'No file path provided.'];
        // phpClaw reaches the root folder here ("Path is not a file: "); the core sandbox
        // refuses the bare separators as an absolute path instead: refused either way.
        yield 'only separators' => [['path' => '///'], 'Absolute paths are not allowed: '];
    }

    /** @dataProvider emptyPaths */
    #[DataProvider('emptyPaths')]
    public function testEmptyPathIsRefused(array $input, string $message): void
    {
        self::assertSame($message, $this->refusal($input)->getMessage());
    }

    /** @return iterable<string, array{string, string}> */
    public static function blockedPaths(): iterable
    {
        yield 'wp-config' => ['wp-config.php', "Access to 'wp-config.php' is blocked."];
        yield 'wp-config upper' => ['WP-CONFIG.PHP', "Access to 'wp-config.php' is blocked."];
        yield 'configuration.php' => ['configuration.php', "Access to 'configuration.php' is blocked."];
        yield 'env.php' => ['env.php', "Access to 'env.php' is blocked."];
        yield 'settings.inc.php' => ['settings.inc.php', "Access to 'settings.inc.php' is blocked."];
        yield 'id_rsa' => ['id_rsa', "Access to 'id_rsa' is blocked."];
        yield 'htaccess' => ['.htaccess', "Access to '.htaccess' is blocked."];
        yield 'envrc' => ['.envrc', "Access to '.envrc' is blocked."];
        yield 'credentials.json' => ['credentials.json', "Access to 'credentials.json' is blocked."];
        yield '.env' => ['.env', "Access to '.env' files is blocked."];
        yield '.env.local' => ['.env.local', "Access to '.env.local' files is blocked."];
        yield '.env.production' => ['.env.production', "Access to '.env.production' files is blocked."];
        yield 'env extension' => ['secret.env', "Files with extension '.env' are blocked."];
        yield 'ENV extension' => ['secret.ENV', "Files with extension '.env' are blocked."];
        yield 'key' => ['id_rsa.key', "Files with extension '.key' are blocked."];
        yield 'sqlite' => ['app.sqlite', "Files with extension '.sqlite' are blocked."];
        yield 'vendor' => ['vendor/autoload.php', "Reading from the 'vendor' directory is blocked."];
        yield 'Vendor' => ['Vendor/autoload.php', "Reading from the 'Vendor' directory is blocked."];
        yield 'vendor backslash' => ['vendor\\evil.txt', "Reading from the 'vendor' directory is blocked."];
        yield 'node_modules' => ['node_modules/p/i.js', "Reading from the 'node_modules' directory is blocked."];
        yield '.git' => ['.git/config', "Reading from the '.git' directory is blocked."];
        yield 'wp-admin' => ['wp-admin/install.txt', "Reading from the 'wp-admin' directory is blocked."];
        yield '.ssh' => ['.ssh/notes.txt', "Reading from the '.ssh' directory is blocked."];
    }

    /** @dataProvider blockedPaths */
    #[DataProvider('blockedPaths')]
    public function testBlockedNamesAndFolders(string $path, string $message): void
    {
        $this->put(str_replace('\\', '/', $path), 'x');
        self::assertSame($message, $this->refusal(['path' => $path])->getMessage());
    }

    public function testNoiseFoldersCanBeAllowedButSecurityFoldersCannot(): void
    {
        $this->put('vendor/autoload.php', '<?php return [];');
        $this->put('.git/config', '[core]');
        $tool = new FileReadTool($this->ws, noiseBlockedDirs: []);
        self::assertSame('<?php return [];', $this->content(['path' => 'vendor/autoload.php'], $tool));
        self::assertSame("Reading from the '.git' directory is blocked.", $this->refusal(['path' => '.git/config'], $tool)->getMessage());
        $custom = new FileReadTool($this->ws, noiseBlockedDirs: ['build']);
        $this->put('build/out.txt', 'b');
        self::assertSame("Reading from the 'build' directory is blocked.", $this->refusal(['path' => 'build/out.txt'], $custom)->getMessage());
        self::assertSame('<?php return [];', $this->content(['path' => 'vendor/autoload.php'], $custom));
    }

    /** @return iterable<string, array{string, string}> */
    public static function escapingPaths(): iterable
    {
        yield 'parent' => ['../x.txt', 'Path traversal detected: access denied.'];
        yield 'deep parent' => [str_repeat('../', 10) . 'etc/passwd', 'Path traversal detected: access denied.'];
        yield 'popping above after a folder' => ['a/../../outside.txt', 'Path traversal detected: access denied.'];
        yield 'absolute' => ['/etc/passwd', 'Absolute paths are not allowed: etc/passwd'];
        yield 'absolute backslash' => ['\\etc\\hosts', 'Absolute paths are not allowed: etc/hosts'];
        yield 'missing' => ['does-not-exist.txt', 'File not found: does-not-exist.txt'];
        yield 'missing parent' => ['nowhere/file.txt', 'File not found: nowhere/file.txt'];
        yield 'folder' => ['adir', 'Path is not a file: adir'];
    }

    /** @dataProvider escapingPaths */
    #[DataProvider('escapingPaths')]
    public function testSandboxRefusals(string $path, string $message): void
    {
        mkdir($this->ws . '/a');
        mkdir($this->ws . '/adir');
        $e = $this->refusal(['path' => $path]);
        self::assertStringStartsWith(explode(':', $message)[0], $e->getMessage());
        if (!str_contains($path, '\\')) {
            self::assertSame($message, $e->getMessage());
        }
    }

    public function testExistingFileOutsideTheWorkspaceIsUnreachable(): void
    {
        $outside = dirname($this->ws) . '/phpclaw-frt-outside-' . bin2hex(random_bytes(4)) . '.txt';
        file_put_contents($outside, 'secret');
        try {
            self::assertSame('Path traversal detected: access denied.', $this->refusal(['path' => '../' . basename($outside)])->getMessage());
        } finally {
            unlink($outside);
        }
    }

    public function testMessagesQuoteASanitisedShortFragment(): void
    {
        $e = $this->refusal(['path' => 'ignore-previous-<script>alert(1)</script>;rm -rf /.txt']);
        self::assertStringNotContainsString('<script>', $e->getMessage());
        self::assertStringNotContainsString(';', $e->getMessage());
        $e = $this->refusal(['path' => str_repeat('a', 100) . '.txt']);
        self::assertSame('File not found: ' . str_repeat('a', 64), $e->getMessage());
        $e = $this->refusal(['path' => str_repeat('a/', 200) . 'file.txt']);
        self::assertStringStartsWith('File not found: ', $e->getMessage());
    }

    public function testNulByteInPathIsRefused(): void
    {
        $this->put('a.txt', 'x');
        self::assertStringContainsString('NUL', $this->refusal(['path' => "a.txt\0.png"])->getMessage());
    }

    public function testUnreadableFile(): void
    {
        if (function_exists('posix_getuid') && posix_getuid() === 0) {
            self::markTestSkipped('root reads any file');
        }
        $this->put('locked.txt', 'secret');
        chmod($this->ws . '/locked.txt', 0);
        self::assertSame('Cannot open file for reading: locked.txt', $this->refusal(['path' => 'locked.txt'])->getMessage());
    }

    // ---- Symlinks ---------------------------------------------------------------------

    /** @return iterable<string, array{callable(string): void, string}> */
    public static function symlinkCases(): iterable
    {
        yield 'link to a file inside' => [fn (string $ws) => symlink("$ws/real.txt", "$ws/link"), 'link'];
        yield 'link to a file outside' => [fn (string $ws) => symlink('/etc/hostname', "$ws/link"), 'link'];
        yield 'link to a folder outside' => [fn (string $ws) => symlink('/etc', "$ws/link"), 'link/hostname'];
        yield 'broken link' => [fn (string $ws) => symlink("$ws/never", "$ws/link"), 'link'];
        yield 'link to .env' => [fn (string $ws) => symlink("$ws/.env", "$ws/link"), 'link'];
        yield 'link to .git' => [fn (string $ws) => symlink("$ws/.git", "$ws/link"), 'link/config'];
        yield 'chain to .env' => [function (string $ws) {
            symlink("$ws/.env", "$ws/b");
            symlink("$ws/b", "$ws/link");
        }, 'link'];
        yield 'dotdot before the link' => [fn (string $ws) => symlink("$ws/.env", "$ws/link"), 'a/../link'];
        yield 'two dotdots before the link' => [fn (string $ws) => symlink("$ws/.env", "$ws/link"), 'a/b/../../link'];
        yield 'dot and dotdot before the link' => [fn (string $ws) => symlink("$ws/.env", "$ws/link"), './a/../link'];
    }

    /** @dataProvider symlinkCases */
    #[DataProvider('symlinkCases')]
    public function testSymlinksAreRefusedByDefault(callable $make, string $path): void
    {
        $this->put('real.txt', 'linked');
        $this->put('.env', 'SECRET=1');
        $this->put('.git/config', '[core]');
        mkdir($this->ws . '/a/b', 0755, true);
        $make($this->ws);
        self::assertSame('Access denied: path contains a symlink.', $this->refusal(['path' => $path])->getMessage());
    }

    public function testFollowSymlinksReadsABenignLinkButJudgesItsTarget(): void
    {
        $this->put('real.txt', 'linked');
        $this->put('.env', 'SECRET=1');
        symlink($this->ws . '/real.txt', $this->ws . '/ok.txt');
        symlink($this->ws . '/.env', $this->ws . '/notes.txt');
        symlink('/etc/hostname', $this->ws . '/out.txt');
        $tool = new FileReadTool($this->ws, followSymlinks: true);
        self::assertSame('linked', $this->content(['path' => 'ok.txt'], $tool));
        self::assertSame("Access to '.env' files is blocked.", $this->refusal(['path' => 'notes.txt'], $tool)->getMessage());
        self::assertSame('Path traversal detected: access denied.', $this->refusal(['path' => 'out.txt'], $tool)->getMessage());
    }

    // ---- Line ranges ------------------------------------------------------------------

    public function testRequestedRange(): void
    {
        $this->numbered(10);
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => 3, 'limit' => 2]))['data'];
        self::assertSame(['path' => 'lines.txt', 'content' => "line 3\nline 4", 'next_offset' => 5], $data);
    }

    public function testLineNumbersAndEndOfFile(): void
    {
        $this->numbered(10);
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => 9, 'line_numbers' => true]))['data'];
        self::assertSame("9\tline 9\n10\tline 10", $data['content']);
        self::assertArrayHasKey('next_offset', $data);
        self::assertNull($data['next_offset']);
    }

    public function testWithoutRangeTheOutputHasNoNextOffset(): void
    {
        $this->numbered(3);
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt']))['data'];
        self::assertSame(['path', 'content'], array_keys($data));
        self::assertSame("line 1\nline 2\nline 3\n", $data['content']);
    }

    public function testLineNumbersAloneReadsFromTheFirstLine(): void
    {
        $this->numbered(2);
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'line_numbers' => false]))['data'];
        self::assertSame("line 1\nline 2", $data['content']);
        self::assertNull($data['next_offset']);
    }

    public function testOffsetPastTheEndIsAnEmptySlice(): void
    {
        $this->numbered(5);
        foreach ([6, 50, PHP_INT_MAX] as $offset) {
            $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => $offset]))['data'];
            self::assertSame('', $data['content']);
            self::assertNull($data['next_offset']);
        }
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => 5]))['data'];
        self::assertSame('line 5', $data['content']);
    }

    public function testLimitAtAndPastTheLastLine(): void
    {
        $this->numbered(6);
        $tool = new FileReadTool($this->ws);
        self::assertNull(self::decode($tool->execute(['path' => 'lines.txt', 'limit' => 6]))['data']['next_offset']);
        self::assertSame(6, self::decode($tool->execute(['path' => 'lines.txt', 'limit' => 5]))['data']['next_offset']);
        self::assertNull(self::decode($tool->execute(['path' => 'lines.txt', 'limit' => PHP_INT_MAX]))['data']['next_offset']);
    }

    public function testByteCapAppliesToTheSlice(): void
    {
        $this->numbered(10);
        // "line 1\nline 2\nline 3" is 20 bytes: at the cap it fits, one byte less it does not.
        $at = self::decode((new FileReadTool($this->ws, maxBytes: 20))->execute(['path' => 'lines.txt', 'offset' => 1]));
        self::assertSame("line 1\nline 2\nline 3", $at['data']['content']);
        self::assertSame(4, $at['data']['next_offset']);
        self::assertTrue($at['meta']['truncated']);
        self::assertSame(20, $at['meta']['bytes']);
        $under = self::decode((new FileReadTool($this->ws, maxBytes: 19))->execute(['path' => 'lines.txt', 'offset' => 1]));
        self::assertSame("line 1\nline 2", $under['data']['content']);
        self::assertSame(3, $under['data']['next_offset']);
    }

    public function testFirstLineLongerThanTheCapIsCutAndSkipped(): void
    {
        $this->put('long.txt', str_repeat('x', 50) . "\u{20ac}\nnext\n");
        $data = self::decode((new FileReadTool($this->ws, maxBytes: 52))->execute(['path' => 'long.txt', 'limit' => 5]))['data'];
        self::assertSame(str_repeat('x', 50), $data['content']);
        self::assertSame(2, $data['next_offset']);
    }

    public function testRangeReadsPastTheFirst16k(): void
    {
        $this->numbered(3000);
        self::assertGreaterThan(16384, filesize($this->ws . '/lines.txt'));
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => 2900, 'limit' => 2]))['data'];
        self::assertSame("line 2900\nline 2901", $data['content']);
        self::assertSame(2902, $data['next_offset']);
    }

    public function testNextOffsetContinuesTheRead(): void
    {
        $this->numbered(6);
        $tool = new FileReadTool($this->ws);
        $first = self::decode($tool->execute(['path' => 'lines.txt', 'offset' => 1, 'limit' => 4]))['data'];
        $rest = self::decode($tool->execute(['path' => 'lines.txt', 'offset' => $first['next_offset']]))['data'];
        self::assertSame(5, $first['next_offset']);
        self::assertSame("line 5\nline 6", $rest['content']);
        self::assertNull($rest['next_offset']);
    }

    public function testLineEndingsAreRemoved(): void
    {
        $this->put('crlf.txt', "a\r\nb\r\r\n\nlast");
        self::assertSame("a\nb\n\nlast", $this->content(['path' => 'crlf.txt', 'offset' => 1]));
    }

    /** @return iterable<string, array{array<string, mixed>}> */
    public static function badRanges(): iterable
    {
        yield 'offset 0' => [['offset' => 0]];
        yield 'limit 0' => [['limit' => 0]];
        yield 'negative offset' => [['offset' => -2]];
        yield 'word limit' => [['limit' => 'ten']];
        yield 'float offset' => [['offset' => 1.5]];
        yield 'whole float' => [['offset' => 1.0]];
        yield 'null limit' => [['limit' => null]];
        yield 'signed string' => [['offset' => '+1']];
        yield 'spaced string' => [['offset' => ' 1']];
        yield 'empty string' => [['limit' => '']];
        yield 'true' => [['limit' => true]];
        yield 'array' => [['offset' => [1]]];
        yield 'object' => [['offset' => new \ArrayObject()]];
    }

    /** @dataProvider badRanges */
    #[DataProvider('badRanges')]
    public function testBadOffsetOrLimitIsRefused(array $bad): void
    {
        $this->numbered(3);
        self::assertSame('file_read: offset and limit must be whole numbers of 1 or more.', $this->refusal(['path' => 'lines.txt'] + $bad)->getMessage());
    }

    public function testDigitStringsAreAccepted(): void
    {
        $this->numbered(5);
        $data = self::decode((new FileReadTool($this->ws))->execute(['path' => 'lines.txt', 'offset' => '002', 'limit' => '1', 'line_numbers' => 'yes']))['data'];
        self::assertSame("2\tline 2", $data['content']);
        self::assertSame(3, $data['next_offset']);
    }

    /** @return iterable<string, array{mixed, bool}> */
    public static function lineNumberFlags(): iterable
    {
        yield 'true' => [true, true];
        yield 'one' => [1, true];
        yield 'string on' => ['on', true];
        yield 'string YES padded' => [' YES ', true];
        yield 'string true' => ['true', true];
        yield 'false' => [false, false];
        yield 'two' => [2, false];
        yield 'string no' => ['no', false];
        yield 'null' => [null, false];
        yield 'array' => [[true], false];
    }

    /** @dataProvider lineNumberFlags */
    #[DataProvider('lineNumberFlags')]
    public function testLineNumbersFlagReadsLikeFilterVar(mixed $flag, bool $numbered): void
    {
        $this->numbered(1);
        self::assertSame($numbered ? "1\tline 1" : 'line 1', $this->content(['path' => 'lines.txt', 'line_numbers' => $flag]));
    }

    public function testNonStringPathsAreCastLikePhp(): void
    {
        $this->put('123', 'numbers');
        self::assertSame('numbers', $this->content(['path' => 123]));
        $stringable = new class () {
            public function __toString(): string
            {
                return '123';
            }
        };
        self::assertSame('numbers', $this->content(['path' => $stringable]));
        try {
            (new FileReadTool($this->ws))->execute(['path' => new \stdClass()]);
            self::fail('expected Error');
        } catch (\Error $e) {
            self::assertSame('Object of class stdClass could not be converted to string', $e->getMessage());
        }
    }

    public function testUnknownKeysAreIgnored(): void
    {
        $this->put('a.txt', 'a');
        self::assertSame('a', $this->content(['path' => 'a.txt', 'other' => new \stdClass(), 7 => [[[]]]]));
    }

    // ---- Guard, read log, reset ---------------------------------------------------------

    private static function authorizer(bool $console, bool $allows, ?\Throwable $throw = null): ToolAuthorizerInterface
    {
        return new class ($console, $allows, $throw) implements ToolAuthorizerInterface {
            public int $asked = 0;

            public function __construct(private bool $console, private bool $allowed, private ?\Throwable $throw)
            {
            }

            public function allows(): bool
            {
                $this->asked++;
                if ($this->throw) {
                    throw $this->throw;
                }
                return $this->allowed;
            }

            public function runningInConsole(): bool
            {
                return $this->console;
            }
        };
    }

    public function testRefusedCallerGetsForbiddenBeforeTheInputIsRead(): void
    {
        $tool = new FileReadTool($this->ws);
        $tool->withAuthorizer(self::authorizer(false, false));
        self::assertFalse($tool->isEligibleForRouting());
        $json = $tool->execute(['path' => new \stdClass()]);
        self::assertSame('{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not read a file from the workspace."},"data":null,"meta":{"mode":"error"},"warnings":[]}', $json);
    }

    public function testConsoleAndCapabilityAllow(): void
    {
        $this->put('a.txt', 'a');
        $tool = new FileReadTool($this->ws);
        $console = self::authorizer(true, false);
        $tool->withAuthorizer($console);
        self::assertSame('a', $this->content(['path' => 'a.txt'], $tool));
        self::assertSame(0, $console->asked, 'the console is asked first');
        $tool->withAuthorizer(self::authorizer(false, true));
        self::assertSame('a', $this->content(['path' => 'a.txt'], $tool));
        $tool->withAuthorizer(null);
        self::assertSame('a', $this->content(['path' => 'a.txt'], $tool));
    }

    public function testAuthorizerExceptionPassesThrough(): void
    {
        $tool = new FileReadTool($this->ws);
        $boom = new \LogicException('boom');
        $tool->withAuthorizer(self::authorizer(false, true, $boom));
        try {
            $tool->execute(['path' => 'a.txt']);
            self::fail('expected the authorizer exception');
        } catch (\LogicException $e) {
            self::assertSame($boom, $e);
        }
    }

    public function testWithAuthorizerType(): void
    {
        $this->expectException(\TypeError::class);
        (new FileReadTool($this->ws))->withAuthorizer(new \stdClass());
    }

    public function testReadsAreLoggedAndResetClearsTheLog(): void
    {
        $this->put('a.txt', 'a');
        $this->put('b.txt', "b\n");
        $tool = new FileReadTool($this->ws);
        $root = realpath($this->ws);
        $tool->execute(['path' => 'a.txt']);
        $tool->execute(['path' => 'b.txt', 'offset' => 1]);
        try {
            $tool->execute(['path' => 'missing.txt']);
        } catch (ToolException) {
        }
        self::assertTrue(\PhpClaw\Tools\Concerns\FileReadLog::wasRead($root, $root . '/a.txt'));
        self::assertSame([$root => [$root . '/a.txt', $root . '/b.txt']], \PhpClaw\Tools\Concerns\FileReadLog::all());
        (new FileReadTool($this->ws))->reset();
        self::assertSame([], \PhpClaw\Tools\Concerns\FileReadLog::all());
    }
}

namespace PhpClaw\Tools\Concerns;

if (!class_exists(FileReadLog::class, false)) {
    /** phpClaw's read log, as a phpClaw install provides it (the extension does not define it). */
    final class FileReadLog
    {
        /** @var array<string, array<string, true>> */
        private static array $read = [];

        public static function markRead(string $workspaceRoot, string $canonicalPath): void
        {
            self::$read[$workspaceRoot][$canonicalPath] = true;
        }

        public static function wasRead(string $workspaceRoot, string $canonicalPath): bool
        {
            return isset(self::$read[$workspaceRoot][$canonicalPath]);
        }

        /** @return array<string, list<string>> */
        public static function all(): array
        {
            return array_map(static fn (array $p): array => array_keys($p), self::$read);
        }

        public static function reset(): void
        {
            self::$read = [];
        }
    }
}
