<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ToolCatalogue;
use PHPUnit\Framework\TestCase;

/**
 * The native ToolCatalogue: the built-in classes that exist (natively here, as phpClaw's
 * non-native tools are not installed), custom registrations and reset(), activateEnabled(),
 * activateFromSettings(), instantiateDefaults() with config and authorizer, boot() without
 * phpClaw's ComposerExtras.
 */
final class ToolCatalogueTest extends TestCase
{
    private const NATIVE = [
        'PhpClaw\\Tools\\ShellTool',
        'PhpClaw\\Tools\\FileReadTool',
        'PhpClaw\\Tools\\FileWriteTool',
        'PhpClaw\\Tools\\FileEditTool',
        'PhpClaw\\Tools\\DatabaseQueryTool',
    ];

    protected function setUp(): void
    {
        ToolCatalogue::reset();
    }

    protected function tearDown(): void
    {
        ToolCatalogue::reset();
    }

    private static function builtIn(): array
    {
        $all = ['ShellTool', 'HttpTool', 'FileReadTool', 'FileWriteTool', 'FileEditTool', 'CodeSearchTool', 'ProjectTool', 'DatabaseQueryTool', 'ZipPackagerTool'];
        return array_values(array_filter(array_map(static fn ($c) => 'PhpClaw\\Tools\\' . $c, $all), 'class_exists'));
    }

    public function testAllListsExistingBuiltInsInCatalogueOrder(): void
    {
        self::assertTrue((new \ReflectionClass(ToolCatalogue::class))->isFinal());
        $all = ToolCatalogue::all();
        self::assertSame(self::builtIn(), $all);
        foreach (self::NATIVE as $c) {
            self::assertContains($c, $all);
            self::assertTrue(ToolCatalogue::has($c));
        }
        self::assertFalse(ToolCatalogue::has('Nope\\Tool'));
    }

    public function testRegisterDedupesAndReset(): void
    {
        ToolCatalogue::register('Custom\\A');
        ToolCatalogue::register('Custom\\A');
        ToolCatalogue::register('PhpClaw\\Tools\\ShellTool');
        $all = ToolCatalogue::all();
        self::assertSame([...self::builtIn(), 'Custom\\A'], $all);
        self::assertTrue(ToolCatalogue::has('Custom\\A'));
        ToolCatalogue::reset();
        self::assertFalse(ToolCatalogue::has('Custom\\A'));
    }

    public function testActivateEnabledFiltersToToolClasses(): void
    {
        self::assertSame(self::builtIn(), ToolCatalogue::activateEnabled());
        self::assertSame(self::builtIn(), ToolCatalogue::activateEnabled(null));
        self::assertSame(
            ['PhpClaw\\Tools\\FileReadTool'],
            ToolCatalogue::activateEnabled(['PhpClaw\\Tools\\FileReadTool', 'stdClass', 'Missing\\X', 5])
        );
        self::assertSame([], ToolCatalogue::activateEnabled([]));
    }

    public function testActivateFromSettings(): void
    {
        self::assertSame(self::builtIn(), ToolCatalogue::activateFromSettings([]));
        self::assertSame(self::builtIn(), ToolCatalogue::activateFromSettings(['tools_enabled' => null]));
        self::assertSame([], ToolCatalogue::activateFromSettings(['tools_enabled' => 'x']));
        self::assertSame(
            ['PhpClaw\\Tools\\ShellTool'],
            ToolCatalogue::activateFromSettings(['tools_enabled' => [1, 'PhpClaw\\Tools\\ShellTool']])
        );
    }

    public function testInstantiateDefaults(): void
    {
        $dir = sys_get_temp_dir() . '/phpclaw-cat-' . getmypid();
        @mkdir($dir);
        $auth = new class () implements ToolAuthorizerInterface {
            public function allows(): bool
            {
                return false;
            }

            public function runningInConsole(): bool
            {
                return false;
            }
        };
        $tools = ToolCatalogue::instantiateDefaults(['workspaceRoot' => $dir, 'authorizer' => $auth, 'other' => 1]);
        $classes = array_map('get_class', $tools);
        self::assertContains(FileReadTool::class, $classes);
        $read = $tools[array_search(FileReadTool::class, $classes, true)];
        self::assertSame(realpath($dir), $read->workspaceRoot());
        self::assertSame('FORBIDDEN', json_decode($read->execute(['path' => 'x']), true)['error']['code']);
        $plain = ToolCatalogue::instantiateDefaults();
        self::assertContains(FileReadTool::class, array_map('get_class', $plain));
        @rmdir($dir);
    }

    public function testBootWithoutComposerExtrasIsANoop(): void
    {
        if (class_exists('PhpClaw\\AutoDiscovery\\ComposerExtras')) {
            self::markTestSkipped('phpClaw installed');
        }
        ToolCatalogue::boot();
        self::assertSame(self::builtIn(), ToolCatalogue::all());
    }
}
