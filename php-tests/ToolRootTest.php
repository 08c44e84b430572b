<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClaw\Tools\ProjectTool;
use PhpClaw\Tools\ZipPackagerTool;
use PHPUnit\Framework\TestCase;

/**
 * The roots of the tools configured by their root alone (code_search, project_info,
 * zip_package) and file_read's: no root means PHP's working directory at construction, a given root never
 * depends on it (the constructor asks for the working directory only when it needs it).
 */
final class ToolRootTest extends TestCase
{
    private string $dir;
    private string $cwd;

    protected function setUp(): void
    {
        $this->cwd = (string) getcwd();
        $this->dir = (string) realpath(sys_get_temp_dir()) . '/phpclaw-root-' . bin2hex(random_bytes(4));
        mkdir($this->dir . '/storage/phpclaw', 0777, true);
        mkdir($this->dir . '/elsewhere');
    }

    protected function tearDown(): void
    {
        chdir($this->cwd);
        @unlink($this->dir . '/link');
        foreach (['/storage/phpclaw', '/storage', '/elsewhere', ''] as $d) {
            rmdir($this->dir . $d);
        }
    }

    private static function root(object $tool, string $prop): string
    {
        return (new \ReflectionProperty($tool, $prop))->getValue($tool);
    }

    public function testNoRootIsTheWorkingDirectoryAtConstruction(): void
    {
        chdir($this->dir);
        $tools = [[new CodeSearchTool(), 'workspaceRoot'], [new ProjectTool(), 'projectRoot'], [new ZipPackagerTool(), 'workspaceRoot']];
        $read = new FileReadTool();
        chdir($this->dir . '/elsewhere');
        self::assertSame($this->dir . '/storage/phpclaw', $read->workspaceRoot());
        self::assertSame($this->dir . '/elsewhere/x', (new FileReadTool($this->dir . '/elsewhere/x'))->workspaceRoot());
        self::assertSame($this->dir . '/storage/phpclaw', self::root(...$tools[0]));
        self::assertSame($this->dir, self::root(...$tools[1]));
        self::assertSame($this->dir . '/storage/phpclaw', self::root(...$tools[2]));
    }

    public function testAGivenRootIgnoresTheWorkingDirectory(): void
    {
        chdir($this->dir . '/elsewhere');
        $root = $this->dir . '/storage/phpclaw';
        self::assertSame($root, self::root(new CodeSearchTool($root), 'workspaceRoot'));
        self::assertSame($root, self::root(new ProjectTool($root), 'projectRoot'));
        self::assertSame($root, self::root(new ZipPackagerTool($root), 'workspaceRoot'));
        self::assertSame('', self::root(new ProjectTool(''), 'projectRoot'));
        self::assertSame($root, self::root(new FileWriteTool($root), 'workspaceRoot'));
        self::assertSame($root, self::root(new FileEditTool($root), 'workspaceRootConfigured'));
        chdir($this->dir);
        $relative = new FileEditTool('elsewhere');
        self::assertSame('elsewhere', self::root($relative, 'workspaceRootConfigured'), 'a given root is kept as given');
    }

    /** Roots are resolved as PHP's realpath() resolves them: links followed, `..` gone, relative ones against PHP's working directory; a missing root is kept as given. */
    public function testRootsAreResolvedLikeRealpath(): void
    {
        $real = $this->dir . '/storage/phpclaw';
        symlink($real, $this->dir . '/link');
        chdir($this->dir . '/elsewhere');
        foreach ([$this->dir . '/link', $this->dir . '/elsewhere/../storage/phpclaw/', '../link', '../storage//phpclaw'] as $given) {
            self::assertSame($real, self::root(new FileWriteTool($given), 'workspaceRoot'), $given);
            self::assertSame($real, self::root(new ZipPackagerTool($given), 'workspaceRoot'), $given);
            self::assertSame($real, self::root(new CodeSearchTool($given), 'workspaceRoot'), $given);
        }
        $missing = $this->dir . '/missing/root';
        self::assertSame($missing, self::root(new FileWriteTool($missing), 'workspaceRoot'));
        self::assertSame($missing, self::root(new ZipPackagerTool($missing . '/'), 'workspaceRoot'));
        self::assertSame($missing, self::root(new CodeSearchTool($missing . '/'), 'workspaceRoot'));
    }
}
