<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\MutatingToolInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\ZipPackagerTool;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native ZipPackagerTool on a fresh workspace: the archive (checked with `unzip` since
 * ext-zip may be missing), entry order and top folder, name filtering, refusals, sandbox.
 */
final class ZipPackagerToolTest extends TestCase
{
    private string $ws;
    private string $name;

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-zip-' . bin2hex(random_bytes(4));
        mkdir($this->ws . '/plugin/sub/deep', 0777, true);
        file_put_contents($this->ws . '/plugin/z.txt', 'zz');
        file_put_contents($this->ws . '/plugin/a.txt', 'aa');
        file_put_contents($this->ws . '/plugin/sub/deep/m.php', '<?php // m');
        $this->name = 'pczt' . bin2hex(random_bytes(4));
    }

    protected function tearDown(): void
    {
        exec('rm -rf ' . escapeshellarg($this->ws));
        @unlink(sys_get_temp_dir() . '/' . $this->name . '.zip');
    }

    /** @return list<string> */
    private static function entries(string $zip): array
    {
        exec('unzip -Z1 ' . escapeshellarg($zip), $out, $rc);
        self::assertSame(0, $rc);
        return $out;
    }

    public function testShape(): void
    {
        $t = new ZipPackagerTool($this->ws);
        self::assertInstanceOf(MutatingToolInterface::class, $t);
        self::assertSame('zip_package', $t->name());
        self::assertSame('storage/phpclaw', ZipPackagerTool::DEFAULT_WORKSPACE_SUBPATH);
        self::assertSame(['source_dir', 'output_name'], $t->inputSchema()['required']);
        self::assertSame(['filesystem', 'packaging'], $t->routingMetadata()->domains);
    }

    public function testPacksSortedUnderTopFolder(): void
    {
        $t = new ZipPackagerTool($this->ws);
        $json = $t->execute(['source_dir' => '/plugin', 'output_name' => $this->name . '.!/']);
        $r = json_decode($json, true);
        $zip = sys_get_temp_dir() . '/' . $this->name . '.zip';
        self::assertTrue($r['success']);
        self::assertSame(['status' => 'created', 'zip_path' => $zip, 'files' => 3, 'size_bytes' => filesize($zip)], $r['data']);
        self::assertSame(['mode' => 'package', 'output_name' => $this->name], $r['meta']);
        self::assertSame([], $r['warnings']);
        self::assertSame(["{$this->name}/a.txt", "{$this->name}/sub/deep/m.php", "{$this->name}/z.txt"], self::entries($zip));
        exec('unzip -p ' . escapeshellarg($zip) . ' ' . escapeshellarg("{$this->name}/sub/deep/m.php"), $body);
        self::assertSame(['<?php // m'], $body);
        // Replaced, not appended to.
        unlink($this->ws . '/plugin/z.txt');
        $r = json_decode($t->execute(['source_dir' => 'plugin', 'output_name' => $this->name]), true);
        self::assertSame(2, $r['data']['files']);
        self::assertCount(2, self::entries($zip));
    }

    /** @return array<string, array{array<string, mixed>, string}> */
    public static function refusals(): array
    {
        $req = 'zip_package: source_dir and a valid output_name are required.';
        return [
            'no source' => [['output_name' => 'x'], $req],
            'empty source' => [['source_dir' => '', 'output_name' => 'x'], $req],
            'no name' => [['source_dir' => 'plugin'], $req],
            'name filtered empty' => [['source_dir' => 'plugin', 'output_name' => '../..'], $req],
            'missing' => [['source_dir' => 'nope', 'output_name' => 'x'], 'zip_package: source_dir not found: nope'],
            'a file' => [['source_dir' => 'plugin/a.txt', 'output_name' => 'x'], 'zip_package: source_dir not found: plugin/a.txt'],
            'escape' => [['source_dir' => 'plugin/../..', 'output_name' => 'x'], 'zip_package: source_dir escapes workspace root - blocked.'],
        ];
    }

    /**
     * @dataProvider refusals
     * @param array<string, mixed> $input
     */
    #[DataProvider('refusals')]
    public function testRefusals(array $input, string $message): void
    {
        try {
            (new ZipPackagerTool($this->ws))->execute($input);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($message, $e->getMessage());
        }
    }

    public function testSymlinkOutsideWorkspaceIsNotPacked(): void
    {
        $outside = $this->ws . '-out';
        mkdir($outside);
        file_put_contents("$outside/secret", 's');
        symlink("$outside/secret", $this->ws . '/plugin/leak');
        symlink($outside, $this->ws . '/plugin/leakdir');
        try {
            $r = json_decode((new ZipPackagerTool($this->ws))->execute(['source_dir' => 'plugin', 'output_name' => $this->name]), true);
            self::assertSame(3, $r['data']['files']);
            $names = self::entries(sys_get_temp_dir() . '/' . $this->name . '.zip');
            self::assertNotContains("{$this->name}/leak", $names);
        } finally {
            exec('rm -rf ' . escapeshellarg($outside));
        }
    }

    public function testForbiddenEnvelope(): void
    {
        $t = new ZipPackagerTool($this->ws);
        $t->withAuthorizer(new class implements ToolAuthorizerInterface {
            public function allows(): bool
            {
                return false;
            }
            public function runningInConsole(): bool
            {
                return false;
            }
        });
        $r = json_decode($t->execute(['source_dir' => 'plugin', 'output_name' => $this->name]), true);
        self::assertFalse($r['success']);
        self::assertSame('FORBIDDEN', $r['error']['code']);
        self::assertStringContainsString('package a workspace folder', $r['error']['message']);
        self::assertFileDoesNotExist(sys_get_temp_dir() . '/' . $this->name . '.zip');
    }
}
