<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;
use ReflectionExtension;

/**
 * stubs/phpclaw.stub.php against the loaded module: the stub is described by Reflection in a
 * separate process without the extension, the module in this one, and the two must agree in
 * both directions.
 */
final class StubsTest extends TestCase
{
    /** @var array{classes: array<string, mixed>, docless: list<string>}|null */
    private static ?array $stub = null;

    /** @return array{classes: array<string, mixed>, docless: list<string>} */
    private static function stub(): array
    {
        if (self::$stub === null) {
            $run = Subprocess::php(['-n', __DIR__ . '/support/describe.php', PHPCLAW_STUB]);
            if ($run['code'] !== 0) {
                self::fail("describing the stub failed ({$run['code']}): {$run['stderr']}{$run['stdout']}");
            }
            self::$stub = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
        }

        return self::$stub;
    }

    /** @return array<string, mixed> */
    private static function module(): array
    {
        return phpclaw_describe((new ReflectionExtension('phpclaw'))->getClassNames())['classes'];
    }

    public function testStubPassesLint(): void
    {
        $run = Subprocess::php(['-n', '-l', PHPCLAW_STUB]);
        self::assertSame(0, $run['code'], $run['stdout'] . $run['stderr']);
    }

    public function testStubIsDescribedWithoutTheExtension(): void
    {
        $run = Subprocess::php(['-n', '-r', 'echo extension_loaded("phpclaw") ? "loaded" : "absent";']);
        self::assertSame('absent', $run['stdout']);
    }

    public function testModuleRegistersTheExpectedSymbols(): void
    {
        $names = (new ReflectionExtension('phpclaw'))->getClassNames();
        sort($names);
        self::assertSame([
            'PhpClaw\\AutoDiscovery\\CatalogueInterface',
            'PhpClaw\\Exceptions\\PhpClawException',
            'PhpClaw\\Exceptions\\ShellDeniedException',
            'PhpClaw\\Exceptions\\ToolException',
            'PhpClaw\\Tools\\CodeSearchTool',
            'PhpClaw\\Tools\\Concerns\\HasCoreToolBinding',
            'PhpClaw\\Tools\\Concerns\\HasToolExecutionContract',
            'PhpClaw\\Tools\\Contracts\\AuthorizableToolInterface',
            'PhpClaw\\Tools\\Contracts\\ConfigurableToolInterface',
            'PhpClaw\\Tools\\Contracts\\MutatingToolInterface',
            'PhpClaw\\Tools\\Contracts\\PerInvocationMutabilityInterface',
            'PhpClaw\\Tools\\Contracts\\ResettableInterface',
            'PhpClaw\\Tools\\Contracts\\ToolAuthorizerInterface',
            'PhpClaw\\Tools\\Contracts\\ToolInterface',
            'PhpClaw\\Tools\\Contracts\\ToolRoutingInterface',
            'PhpClaw\\Tools\\DatabaseQueryTool',
            'PhpClaw\\Tools\\FileEditTool',
            'PhpClaw\\Tools\\FileReadTool',
            'PhpClaw\\Tools\\FileWriteTool',
            'PhpClaw\\Tools\\HttpTool',
            'PhpClaw\\Tools\\LoadSkillTool',
            'PhpClaw\\Tools\\ProjectTool',
            'PhpClaw\\Tools\\RemoteToolActivator',
            'PhpClaw\\Tools\\Security\\BlockedPaths',
            'PhpClaw\\Tools\\ShellTool',
            'PhpClaw\\Tools\\ToolCatalogue',
            'PhpClaw\\Tools\\ToolInput',
            'PhpClaw\\Tools\\ToolMutability',
            'PhpClaw\\Tools\\ToolProfileResolver',
            'PhpClaw\\Tools\\ToolRegistry',
            'PhpClaw\\Tools\\ToolRouter',
            'PhpClaw\\Tools\\ToolRoutingMetadata',
            'PhpClaw\\Tools\\ZipPackagerTool',
        ], $names);
    }

    public function testEveryModuleSymbolIsInTheStub(): void
    {
        $missing = array_diff(array_keys(self::module()), array_keys(self::stub()['classes']));
        self::assertSame([], array_values($missing), 'registered by the module but missing from the stub');
    }

    public function testEveryStubSymbolIsRegisteredByTheModule(): void
    {
        $extra = array_diff(array_keys(self::stub()['classes']), array_keys(self::module()));
        self::assertSame([], array_values($extra), 'declared by the stub but not registered by the module');
    }

    /** @return iterable<string, array{string}> */
    public function classNames(): iterable
    {
        foreach ((new ReflectionExtension('phpclaw'))->getClassNames() as $name) {
            yield $name => [$name];
        }
    }

    /**
     * @dataProvider classNames
     */
    public function testClassMatchesTheStub(string $class): void
    {
        $module = self::module()[$class] ?? null;
        $stub = self::stub()['classes'][$class] ?? null;
        self::assertNotNull($stub, "$class is missing from the stub");
        self::assertNotNull($module);
        // Compare member lists first for a readable failure, then every detail.
        foreach (['constants', 'properties', 'methods'] as $members) {
            self::assertSame(
                array_keys($module[$members]),
                array_keys($stub[$members]),
                "$class: $members differ (module vs stub)",
            );
            foreach ($module[$members] as $member => $details) {
                self::assertSame($details, $stub[$members][$member], "$class::$member differs (module vs stub)");
            }
        }
        self::assertSame($module, $stub, "$class differs (module vs stub)");
    }

    public function testEveryStubSymbolHasADocComment(): void
    {
        self::assertSame([], self::stub()['docless']);
    }

    public function testComparisonDetectsADifference(): void
    {
        // The comparison must be able to fail: a stub variant with one default changed differs.
        $variant = str_replace('array $warnings = []', 'array $warnings = [1]', (string) file_get_contents(PHPCLAW_STUB));
        self::assertNotSame(file_get_contents(PHPCLAW_STUB), $variant);
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-stub-');
        file_put_contents($file, $variant);
        try {
            $run = Subprocess::php(['-n', __DIR__ . '/support/describe.php', $file]);
        } finally {
            unlink($file);
        }
        $described = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR)['classes'];
        $trait = 'PhpClaw\\Tools\\Concerns\\HasToolExecutionContract';
        self::assertNotSame(self::module()[$trait], $described[$trait]);
        self::assertSame("array (\n  0 => 1,\n)", $described[$trait]['methods']['success']['parameters'][2]['default']);
    }
}
