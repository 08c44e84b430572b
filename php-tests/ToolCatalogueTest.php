<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ToolCatalogue;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;

/**
 * The native ToolCatalogue: the built-in classes that exist (natively here, as phpClaw's
 * non-native tools are not installed), custom registrations and reset(), activateEnabled(),
 * activateFromSettings(), instantiateDefaults() with config and authorizer, boot() without
 * phpClaw's ComposerExtras; with a stand-in for phpClaw's DiscoveryCache (in a child process, so
 * the class never exists in this one): discovered site tools are listed and created, and the
 * cache's default flag and argument names win for a class it lists.
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

    /** A child script with a stand-in DiscoveryCache whose load() returns `$tools` (PHP source). */
    private static function withDiscovery(string $tools, string $body): array
    {
        $code = <<<'PHP'
            <?php
            namespace PhpClaw\AutoDiscovery {
                final class DiscoveryCache
                {
                    public static int $loads = 0;
                    public static function load(): array
                    {
                        self::$loads++;
                        return ['tools' => TOOLS, 'skills' => []];
                    }
                }
            }
            namespace Site {
                final class WeatherTool implements \PhpClaw\Tools\Contracts\ToolInterface
                {
                    public function __construct(public string $apiKey = 'none', public int $days = 1) {}
                    public function name(): string { return 'weather'; }
                    public function description(): string { return 'forecast'; }
                    public function inputSchema(): array { return ['type' => 'object']; }
                    public function execute(array $input): string { return $this->apiKey; }
                }
            }
            namespace {
                use PhpClaw\Tools\ToolCatalogue;
                BODY
            }
            PHP;

        return Subprocess::withModule(str_replace(['TOOLS', 'BODY'], [$tools, $body], $code));
    }

    public function testDiscoveredSiteToolsAreListedAfterTheBuiltInsAndNonToolsAreNot(): void
    {
        $run = self::withDiscovery(
            "['Site\\WeatherTool' => ['default' => false], 'stdClass' => ['default' => true], 7 => []]",
            'echo json_encode([ToolCatalogue::all(), ToolCatalogue::has("Site\\WeatherTool"), ToolCatalogue::has("stdClass")]);'
        );
        self::assertSame('', $run['stderr']);
        [$all, $hasSite, $hasStd] = json_decode($run['stdout'], true);
        self::assertSame(array_merge(self::builtIn(), ['Site\\WeatherTool']), $all);
        self::assertTrue($hasSite);
        self::assertFalse($hasStd);
    }

    public function testTheDiscoveryCacheDecidesWhichToolsInstantiateDefaultsCreates(): void
    {
        $dir = sys_get_temp_dir() . '/phpclaw-cat-disc-' . getmypid();
        @mkdir($dir);
        $tools = "['PhpClaw\\Tools\\FileWriteTool' => ['default' => true],"
            . " 'PhpClaw\\Tools\\ProjectTool' => ['default' => false],"
            . " 'Site\\WeatherTool' => ['default' => true, 'needsConfig' => ['apiKey' => 'string', 0 => 'days']]]";
        $body = <<<'PHP'
            $made = ToolCatalogue::instantiateDefaults(['workspaceRoot' => DIR, 'allowPhpWrite' => true, 'apiKey' => 'k1', 'days' => 9]);
            $out = [array_map('get_class', $made)];
            foreach ($made as $t) {
                if ($t instanceof PhpClaw\Tools\FileWriteTool) {
                    $out[] = json_decode($t->execute(['path' => 'p.php', 'content' => '<?php']), true)['success'];
                }
                if ($t instanceof Site\WeatherTool) {
                    $out[] = [$t->apiKey, $t->days];
                }
            }
            echo json_encode($out);
            PHP;
        $run = self::withDiscovery($tools, str_replace('DIR', var_export($dir, true), $body));
        @unlink($dir . '/p.php');
        @rmdir($dir);
        self::assertSame('', $run['stderr']);
        [$classes, $phpWritten, $weather] = json_decode($run['stdout'], true);
        self::assertSame(
            ['PhpClaw\\Tools\\FileReadTool', 'PhpClaw\\Tools\\FileWriteTool', 'PhpClaw\\Tools\\CodeSearchTool', 'Site\\WeatherTool'],
            $classes
        );
        self::assertTrue($phpWritten, 'allowPhpWrite reached FileWriteTool by name');
        self::assertSame(['k1', 1], $weather, 'only the named needsConfig keys are passed');
    }

    public function testAnExceptionFromTheDiscoveryCacheReachesTheCaller(): void
    {
        $run = Subprocess::withModule(<<<'PHP'
            <?php
            namespace PhpClaw\AutoDiscovery;
            final class DiscoveryCache
            {
                public static function load(): array { throw new \RuntimeException('cache broken'); }
            }
            foreach (['all', 'instantiateDefaults'] as $m) {
                try {
                    \PhpClaw\Tools\ToolCatalogue::$m();
                    echo "$m: no exception\n";
                } catch (\RuntimeException $e) {
                    echo "$m: {$e->getMessage()}\n";
                }
            }
            PHP);
        self::assertSame("all: cache broken\ninstantiateDefaults: cache broken\n", $run['stdout']);
    }
}
