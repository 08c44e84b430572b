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
use PhpClaw\Tools\FileWriteTool;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\Files;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native FileWriteTool on a fresh temporary workspace per test: the class shape, the
 * sandbox and its lists, the size cap at and past the limit, symlinks, the atomic write (a
 * failed write leaves the old file) and the guard.
 */
final class FileWriteToolTest extends TestCase
{
    private string $ws;

    /** @var list<string> */
    private array $cleanup = [];

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-fwt-' . bin2hex(random_bytes(6));
        mkdir($this->ws, 0755, true);
    }

    protected function tearDown(): void
    {
        foreach ([...$this->cleanup, $this->ws] as $path) {
            Files::remove($path);
        }
    }

    private function outside(string $suffix = ''): string
    {
        $path = sys_get_temp_dir() . '/phpclaw-fwt-out-' . bin2hex(random_bytes(6)) . $suffix;
        $this->cleanup[] = $path;
        return $path;
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        return json_decode($json, true, 512, JSON_THROW_ON_ERROR);
    }

    private function refusal(array $input, ?FileWriteTool $tool = null): string
    {
        try {
            ($tool ?? new FileWriteTool($this->ws))->execute($input);
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail('expected a ToolException for ' . json_encode($input));
    }

    /** @return list<string> */
    private function strays(string $dir): array
    {
        return glob($dir . '/.phpclaw-write-*') ?: [];
    }

    // ---- Class shape -------------------------------------------------------------------

    public function testClassShape(): void
    {
        $class = new \ReflectionClass(FileWriteTool::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        foreach ([ToolInterface::class, AuthorizableToolInterface::class, ToolRoutingInterface::class, MutatingToolInterface::class] as $iface) {
            self::assertTrue($class->implementsInterface($iface), $iface);
        }
        self::assertFalse($class->implementsInterface(ResettableInterface::class));
        self::assertSame('storage/phpclaw', FileWriteTool::DEFAULT_WORKSPACE_SUBPATH);
        self::assertSame(10 * 1024 * 1024, FileWriteTool::DEFAULT_MAX_BYTES);
        $params = $class->getConstructor()->getParameters();
        self::assertSame(['workspaceRoot', 'allowPhpWrite', 'maxBytes', 'followSymlinks'], array_map(fn ($p) => $p->getName(), $params));
        self::assertSame([null, false, 10485760, false], array_map(fn ($p) => $p->getDefaultValue(), $params));
    }

    public function testNameDescriptionSchemaRouting(): void
    {
        $tool = new FileWriteTool($this->ws);
        self::assertSame('file_write', $tool->name());
        self::assertSame('WRITE content to a file in the workspace (storage/phpclaw/), creating parent dirs as needed. Use whenever the user asks to save or persist text. Invoke: never claim a write without calling.', $tool->description());
        $schema = $tool->inputSchema();
        self::assertSame('object', $schema['type']);
        self::assertSame(['path', 'content'], array_keys($schema['properties']));
        self::assertSame(['string', 'string'], array_column($schema['properties'], 'type'));
        self::assertSame(['path', 'content'], $schema['required']);
        $meta = $tool->routingMetadata();
        self::assertInstanceOf(ToolRoutingMetadata::class, $meta);
        self::assertSame(['filesystem'], $meta->domains);
        self::assertSame(['write', 'create', 'save', 'file'], $meta->tags);
        self::assertSame(['write file', 'create file', 'save contents'], $meta->intents);
        self::assertSame(['save this report to notes.md'], $meta->examples);
        self::assertSame([], FileWriteTool::examples());
        self::assertSame('phpclaw_use_tools', $tool->requiredCapability());
        self::assertTrue($tool->isEligibleForRouting());
    }

    public function testAccessors(): void
    {
        $tool = new FileWriteTool($this->ws . '/', maxBytes: 1024);
        self::assertSame(realpath($this->ws), $tool->workspaceRoot());
        self::assertSame(1024, $tool->maxBytes());
        $missing = sys_get_temp_dir() . '/phpclaw-fwt-none-' . bin2hex(random_bytes(4));
        self::assertSame($missing, (new FileWriteTool($missing))->workspaceRoot());
        self::assertSame(getcwd() . '/storage/phpclaw', (new FileWriteTool())->workspaceRoot());
        self::assertSame(FileWriteTool::DEFAULT_MAX_BYTES, (new FileWriteTool(null))->maxBytes());
    }

    public function testConstructorTypes(): void
    {
        $this->expectException(\TypeError::class);
        new FileWriteTool($this->ws, maxBytes: []);
    }

    public function testUnknownNamedArgument(): void
    {
        $this->expectException(\Error::class);
        new FileWriteTool(workspace: $this->ws);
    }

    // ---- Writing -----------------------------------------------------------------------

    public function testWriteAnswersTheEnvelope(): void
    {
        $json = (new FileWriteTool($this->ws))->execute(['path' => 'hello.txt', 'content' => 'world']);
        self::assertSame('{"success":true,"data":{"path":"hello.txt","bytes_written":5},"meta":{"mode":"write","message":"Written 5 bytes to hello.txt."},"warnings":[]}', $json);
        self::assertSame('world', file_get_contents($this->ws . '/hello.txt'));
        self::assertSame([], $this->strays($this->ws));
    }

    public function testParentsAreCreatedAndFilesOverwritten(): void
    {
        $tool = new FileWriteTool($this->ws);
        $tool->execute(['path' => 'sub/dir/file.txt', 'content' => 'first']);
        self::assertSame(0755, fileperms($this->ws . '/sub/dir') & 0777);
        $tool->execute(['path' => 'sub/dir/file.txt', 'content' => 'second']);
        self::assertSame('second', file_get_contents($this->ws . '/sub/dir/file.txt'));
    }

    public function testMissingContentIsEmptyAndScalarsAreCast(): void
    {
        $tool = new FileWriteTool($this->ws);
        self::assertSame(0, self::decode($tool->execute(['path' => 'empty.txt']))['data']['bytes_written']);
        self::assertSame('', file_get_contents($this->ws . '/empty.txt'));
        $tool->execute(['path' => 'n.txt', 'content' => 42]);
        self::assertSame('42', file_get_contents($this->ws . '/n.txt'));
        $stringable = new class () {
            public function __toString(): string
            {
                return 'from object';
            }
        };
        $tool->execute(['path' => 's.txt', 'content' => $stringable]);
        self::assertSame('from object', file_get_contents($this->ws . '/s.txt'));
    }

    public function testLeadingSlashAndRepeatedRootAreStripped(): void
    {
        $tool = new FileWriteTool($this->ws);
        $data = self::decode($tool->execute(['path' => '/lead.txt', 'content' => 'x']))['data'];
        self::assertSame('lead.txt', $data['path']);
        self::assertFileExists($this->ws . '/lead.txt');
        $data = self::decode($tool->execute(['path' => basename($this->ws) . '/tail.txt', 'content' => 'x']))['data'];
        self::assertSame('tail.txt', $data['path']);
        self::assertFileExists($this->ws . '/tail.txt');
        $data = self::decode($tool->execute(['path' => '  ' . realpath($this->ws) . '/abs.txt ', 'content' => 'x']))['data'];
        self::assertSame('abs.txt', $data['path']);
        self::assertFileExists($this->ws . '/abs.txt');
    }

    public function testMissingRootIsCreated(): void
    {
        $root = $this->outside() . '/nested/root';
        $tool = new FileWriteTool($root);
        $tool->execute(['path' => 'first.txt', 'content' => 'x']);
        self::assertSame('x', file_get_contents($root . '/first.txt'));
    }

    // ---- The size cap ------------------------------------------------------------------

    public function testSmallCapAtAndPastTheLimit(): void
    {
        $tool = new FileWriteTool($this->ws, maxBytes: 5);
        $tool->execute(['path' => 'cap.txt', 'content' => '12345']);
        self::assertSame('Content size (6 bytes) exceeds max allowed (5 bytes).', $this->refusal(['path' => 'cap.txt', 'content' => '123456'], $tool));
        self::assertSame('12345', file_get_contents($this->ws . '/cap.txt'));
    }

    public function testDefaultCapAtAndPastTenMegabytes(): void
    {
        $tool = new FileWriteTool($this->ws);
        $at = str_repeat('a', 10485760);
        self::assertSame(10485760, self::decode($tool->execute(['path' => 'big.txt', 'content' => $at]))['data']['bytes_written']);
        self::assertSame(10485760, filesize($this->ws . '/big.txt'));
        self::assertSame('Content size (10485761 bytes) exceeds max allowed (10485760 bytes).', $this->refusal(['path' => 'big.txt', 'content' => $at . 'b'], $tool));
        self::assertSame(10485760, filesize($this->ws . '/big.txt'));
    }

    public function testTheCapIsCheckedBeforeThePath(): void
    {
        $tool = new FileWriteTool($this->ws, maxBytes: 0);
        self::assertSame('Content size (1 bytes) exceeds max allowed (0 bytes).', $this->refusal(['path' => '../.env', 'content' => 'x'], $tool));
        $tool->execute(['path' => 'zero.txt', 'content' => '']);
        self::assertFileExists($this->ws . '/zero.txt');
    }

    // ---- Refusals ----------------------------------------------------------------------

    public function testEmptyPath(): void
    {
        self::assertSame('No file path provided.', $this->refusal(['path' => '', 'content' => 'x']));
        self::assertSame('No file path provided.', $this->refusal(['path' => " \t\n", 'content' => 'x']));
        self::assertSame('No file path provided.', $this->refusal(['content' => 'x']));
    }

    /** @return array<string, array{string, string}> */
    public static function refusedPaths(): array
    {
        return [
            'dot dot' => ['../escape.txt', 'Path traversal detected: write access denied.'],
            'dot dot inside' => ['a/../b.txt', 'Path traversal detected: write access denied.'],
            'env' => ['.env', "Writing to '.env' files is blocked."],
            'env family' => ['conf/.env.local', "Writing to '.env.local' files is blocked."],
            'envrc' => ['.envrc', "Writing to '.envrc' files is blocked."],
            'php' => ['evil.php', 'Writing .php files is blocked by default. Enable allowPhpWrite to permit it.'],
            'phtml' => ['view.phtml', 'Writing .phtml files is blocked by default. Enable allowPhpWrite to permit it.'],
            'phar' => ['bundle.phar', 'Writing .phar files is blocked by default. Enable allowPhpWrite to permit it.'],
            'sh' => ['backdoor.sh', "Writing files with extension '.sh' is blocked."],
            'bash' => ['x.bash', "Writing files with extension '.bash' is blocked."],
            'exe' => ['x.exe', "Writing files with extension '.exe' is blocked."],
            'bat' => ['x.bat', "Writing files with extension '.bat' is blocked."],
            'cmd' => ['x.cmd', "Writing files with extension '.cmd' is blocked."],
            'ps1' => ['x.ps1', "Writing files with extension '.ps1' is blocked."],
            'key' => ['id_rsa.key', "Writing files with extension '.key' is blocked."],
            'vendor' => ['vendor/autoload.txt', "Writing to the 'vendor' directory is blocked."],
            'node_modules' => ['node_modules/p.txt', "Writing to the 'node_modules' directory is blocked."],
            'git' => ['.git/config', "Writing to the '.git' directory is blocked."],
            'ssh' => ['.ssh/known', "Writing to the '.ssh' directory is blocked."],
            'core' => ['core/lib.txt', "Writing to the 'core' directory is blocked."],
            'system' => ['System/x.txt', "Writing to the 'System' directory is blocked."],
            'sysext' => ['typo3/sysext/x.txt', "Writing to the 'sysext' directory is blocked."],
            'htaccess' => ['.htaccess', "Writing to '.htaccess' is blocked."],
            'htaccess upper' => ['.HTACCESS', "Writing to '.htaccess' is blocked."],
            'id_rsa' => ['id_rsa', "Writing to 'id_rsa' is blocked."],
            'credentials' => ['credentials.json', "Writing to 'credentials.json' is blocked."],
            'htpasswd nested' => ['site/public/.htpasswd', "Writing to '.htpasswd' is blocked."],
            'composer.json' => ['composer.json', "Writing to 'composer.json' is blocked."],
            'gitignore' => ['.gitignore', "Writing to '.gitignore' is blocked."],
            'wp-config' => ['wp-config.php', "Writing to 'wp-config.php' is blocked."],
        ];
    }

    /**
     * @dataProvider refusedPaths
     */
    #[DataProvider('refusedPaths')]
    public function testRefusedPath(string $path, string $message): void
    {
        self::assertSame($message, $this->refusal(['path' => $path, 'content' => 'x']));
        self::assertFileDoesNotExist($this->ws . '/' . $path);
        self::assertSame([], $this->strays($this->ws));
    }

    public function testAllowPhpWrite(): void
    {
        $tool = new FileWriteTool($this->ws, allowPhpWrite: true);
        foreach (['plugin.php', 'view.phtml', 'bundle.phar', 'plugin/my-plugin.php'] as $path) {
            self::assertStringContainsString('bytes', $tool->execute(['path' => $path, 'content' => '<?php']));
            self::assertFileExists($this->ws . '/' . $path);
        }
        self::assertSame("Writing files with extension '.sh' is blocked.", $this->refusal(['path' => 'backdoor.sh', 'content' => 'x'], $tool));
        self::assertSame("Writing to 'wp-config.php' is blocked.", $this->refusal(['path' => 'wp-config.php', 'content' => 'x'], $tool));
    }

    public function testExistingFolderIsNotAFile(): void
    {
        mkdir($this->ws . '/folder');
        self::assertSame('Path is not a file: folder', $this->refusal(['path' => 'folder', 'content' => 'x']));
    }

    public function testFileInTheWayOfAParent(): void
    {
        file_put_contents($this->ws . '/plain', 'x');
        $message = $this->refusal(['path' => 'plain/child.txt', 'content' => 'x']);
        self::assertStringStartsWith('Could not create directory', $message);
        self::assertSame('x', file_get_contents($this->ws . '/plain'));
    }

    // ---- Symlinks ----------------------------------------------------------------------

    public function testSymlinkedFolderToOutsideIsRefused(): void
    {
        $out = $this->outside();
        mkdir($out);
        symlink($out, $this->ws . '/linked-dir');
        self::assertSame('Path traversal detected: path contains a symlink.', $this->refusal(['path' => 'linked-dir/evil.txt', 'content' => 'X']));
        self::assertFileDoesNotExist($out . '/evil.txt');
        $follow = new FileWriteTool($this->ws, followSymlinks: true);
        self::assertSame('Path traversal detected: write access denied.', $this->refusal(['path' => 'linked-dir/evil.txt', 'content' => 'X'], $follow));
        self::assertFileDoesNotExist($out . '/evil.txt');
    }

    public function testSymlinkedLeafAndChainAreRefused(): void
    {
        $out = $this->outside('.txt');
        file_put_contents($out, 'ORIGINAL');
        symlink($out, $this->ws . '/b');
        symlink($this->ws . '/b', $this->ws . '/a');
        foreach (['b', 'a'] as $path) {
            self::assertSame('Path traversal detected: path contains a symlink.', $this->refusal(['path' => $path, 'content' => 'HIJACKED']));
        }
        self::assertSame('ORIGINAL', file_get_contents($out));
    }

    public function testFollowSymlinksInsideTheWorkspace(): void
    {
        mkdir($this->ws . '/real');
        symlink($this->ws . '/real', $this->ws . '/linked-dir');
        $tool = new FileWriteTool($this->ws, followSymlinks: true);
        $tool->execute(['path' => 'linked-dir/note.txt', 'content' => 'ok']);
        self::assertSame('ok', file_get_contents($this->ws . '/real/note.txt'));
        // The real target is judged again: a link laundering a blocked name stays refused.
        file_put_contents($this->ws . '/composer.json', '{}');
        symlink($this->ws . '/composer.json', $this->ws . '/notes.txt');
        self::assertSame("Writing to 'composer.json' is blocked.", $this->refusal(['path' => 'notes.txt', 'content' => 'x'], $tool));
        self::assertSame('{}', file_get_contents($this->ws . '/composer.json'));
    }

    // ---- Atomic write ------------------------------------------------------------------

    public function testFailedWriteLeavesTheOldFileIntact(): void
    {
        mkdir($this->ws . '/locked');
        file_put_contents($this->ws . '/locked/a.txt', 'ORIGINAL');
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
                'file_write: cannot write atomically: target directory is not writable.',
                $this->refusal(['path' => 'locked/a.txt', 'content' => 'CHANGED']),
            );
        } finally {
            exec('chattr -i ' . escapeshellarg($this->ws . '/locked') . ' 2>/dev/null');
            chmod($this->ws . '/locked', 0755);
        }
        self::assertSame('ORIGINAL', file_get_contents($this->ws . '/locked/a.txt'));
        self::assertSame([], $this->strays($this->ws . '/locked'));
    }

    public function testModeOfExistingFileIsKeptNewFilesArePrivate(): void
    {
        $tool = new FileWriteTool($this->ws);
        file_put_contents($this->ws . '/shared.txt', 'a');
        chmod($this->ws . '/shared.txt', 0644);
        $tool->execute(['path' => 'shared.txt', 'content' => 'b']);
        clearstatcache();
        self::assertSame(0644, fileperms($this->ws . '/shared.txt') & 0777);
        $tool->execute(['path' => 'fresh.txt', 'content' => 'c']);
        self::assertSame(0600, fileperms($this->ws . '/fresh.txt') & 0777);
        self::assertSame([], $this->strays($this->ws));
    }

    public function testAWriteReplacesTheInodeNotTheContentInPlace(): void
    {
        $tool = new FileWriteTool($this->ws);
        $tool->execute(['path' => 'f.txt', 'content' => 'old']);
        $keep = fopen($this->ws . '/f.txt', 'r');
        $tool->execute(['path' => 'f.txt', 'content' => 'new']);
        // A reader that opened the old file still sees the old file, whole.
        self::assertSame('old', stream_get_contents($keep));
        fclose($keep);
        self::assertSame('new', file_get_contents($this->ws . '/f.txt'));
    }

    // ---- Guard -------------------------------------------------------------------------

    private static function authorizer(bool $console, bool $allows, ?\Throwable $throw = null): ToolAuthorizerInterface
    {
        return new class ($console, $allows, $throw) implements ToolAuthorizerInterface {
            public function __construct(private bool $console, private bool $allowed, private ?\Throwable $throw)
            {
            }

            public function allows(): bool
            {
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

    public function testRefusedCallerWritesNothing(): void
    {
        $tool = new FileWriteTool($this->ws);
        $tool->withAuthorizer(self::authorizer(false, false));
        self::assertFalse($tool->isEligibleForRouting());
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not write a file to the workspace."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(['path' => 'x.txt', 'content' => 'x']),
        );
        self::assertFileDoesNotExist($this->ws . '/x.txt');
        $tool->withAuthorizer(self::authorizer(true, false));
        $tool->execute(['path' => 'x.txt', 'content' => 'x']);
        self::assertFileExists($this->ws . '/x.txt');
    }

    public function testAuthorizerExceptionPassesThrough(): void
    {
        $tool = new FileWriteTool($this->ws);
        $boom = new \LogicException('boom');
        $tool->withAuthorizer(self::authorizer(false, true, $boom));
        try {
            $tool->execute(['path' => 'x.txt', 'content' => 'x']);
            self::fail('expected the authorizer exception');
        } catch (\LogicException $e) {
            self::assertSame($boom, $e);
        }
        self::assertFileDoesNotExist($this->ws . '/x.txt');
    }

    public function testExecuteTakesAnArray(): void
    {
        $this->expectException(\TypeError::class);
        (new FileWriteTool($this->ws))->execute('x');
    }
}
