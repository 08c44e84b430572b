<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionExtension;

/**
 * stubs/phpclaw.stub.php against the loaded module: the stub is described by Reflection in a
 * separate process without the extension, the module in this one, and the two must agree in
 * both directions (classes, interfaces, traits, functions and constants, with every member).
 * Also checks the stub package (stubs/composer.json) and the PHP builds composer.json claims.
 */
final class StubsTest extends TestCase
{
    /** @var array{classes: array<string, mixed>, functions: array<string, mixed>, constants: array<string, string>, docless: list<string>}|null */
    private static ?array $stub = null;

    /** @return array{classes: array<string, mixed>, functions: array<string, mixed>, constants: array<string, string>, docless: list<string>} */
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
        return phpclaw_describe_module()['classes'];
    }

    /** @return array<string, mixed> */
    private static function json(string $file): array
    {
        $decoded = json_decode((string) file_get_contents($file), true, 512, JSON_THROW_ON_ERROR);
        self::assertIsArray($decoded, $file);

        return $decoded;
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

    public function testEveryModuleFunctionMatchesTheStub(): void
    {
        $module = phpclaw_describe_module()['functions'];
        $stub = self::stub()['functions'];
        self::assertSame([], array_values(array_diff(array_keys($module), array_keys($stub))), 'functions registered by the module but missing from the stub');
        self::assertSame([], array_values(array_diff(array_keys($stub), array_keys($module))), 'functions declared by the stub but not registered by the module');
        foreach ($module as $name => $details) {
            self::assertSame($details, $stub[$name], "$name() differs (module vs stub)");
        }
    }

    public function testEveryModuleConstantMatchesTheStub(): void
    {
        self::assertSame(phpclaw_describe_module()['constants'], self::stub()['constants'], 'constants (name => value) differ (module vs stub)');
    }

    /** @return iterable<string, array{string}> */
    public static function classNames(): iterable
    {
        foreach ((new ReflectionExtension('phpclaw'))->getClassNames() as $name) {
            yield $name => [$name];
        }
    }

    /**
     * @dataProvider classNames
     */
    #[DataProvider('classNames')]
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

    public function testComparisonSeesFunctionsAndConstants(): void
    {
        // A stub that declares a function and a constant the module lacks must describe both,
        // with the details the comparison relies on.
        $variant = (string) file_get_contents(PHPCLAW_STUB) . "\nnamespace PhpClaw\\Probe {\n"
            . "    /** probe */\n    const PROBE = [1, 'a'];\n"
            . '    /** probe */ function probe(int &$count, ?string $label = null, string ...$rest): ?int {}' . "\n}\n";
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-stub-');
        file_put_contents($file, $variant);
        try {
            $run = Subprocess::php(['-n', __DIR__ . '/support/describe.php', $file]);
        } finally {
            unlink($file);
        }
        self::assertSame(0, $run['code'], $run['stderr']);
        $described = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
        self::assertSame(["PhpClaw\\Probe\\PROBE" => "array (\n  0 => 1,\n  1 => 'a',\n)"], $described['constants']);
        $probe = $described['functions']['PhpClaw\\Probe\\probe'];
        self::assertSame('?int', $probe['returnType']);
        self::assertSame(1, $probe['requiredParameters']);
        self::assertSame(
            [['count', 'int', false, true, false], ['label', '?string', true, false, false], ['rest', 'string', true, false, true]],
            array_map(static fn (array $p): array => [$p['name'], $p['type'], $p['optional'], $p['byRef'], $p['variadic']], $probe['parameters']),
        );
        self::assertSame('NULL', $probe['parameters'][1]['default']);
        self::assertNotSame(phpclaw_describe_module()['functions'], $described['functions']);
    }

    public function testStubPackageIsForStaticAnalysisOnly(): void
    {
        $dir = dirname(PHPCLAW_STUB);
        $package = self::json($dir . '/composer.json');
        self::assertSame('phpclaw/phpclaw-ext-stubs', $package['name']);
        // Never autoloaded: Composer's autoloader (and so the site at run time) never sees the stub.
        foreach (['autoload', 'autoload-dev', 'bin'] as $key) {
            self::assertArrayNotHasKey($key, $package, "stubs/composer.json must not declare $key");
        }
        // phpstan/extension-installer includes extension.neon, which names the stub for both
        // symbol discovery and PHPDoc types.
        self::assertSame('phpstan-extension', $package['type']);
        self::assertSame(['extension.neon'], $package['extra']['phpstan']['includes']);
        $neon = (string) file_get_contents($dir . '/extension.neon');
        $stub = basename(PHPCLAW_STUB);
        foreach (['scanFiles', 'stubFiles'] as $key) {
            self::assertMatchesRegularExpression('/^    ' . $key . ':\n        - ' . preg_quote($stub, '/') . '$/m', $neon, "extension.neon: $key must list $stub");
        }
        self::assertSame(self::json(dirname($dir) . '/composer.json')['require']['php'], $package['require']['php']);
    }

    public function testComposerJsonClaimsThisPhp(): void
    {
        // composer.json says which PHP builds are supported; every leg of the test matrix must be one.
        $package = self::json(dirname(__DIR__) . '/composer.json');
        $range = $package['require']['php'];
        $branches = [];
        foreach (preg_split('/\s*\|\|\s*/', trim($range)) as $alternative) {
            self::assertMatchesRegularExpression('/^~(\d+)\.(\d+)\.0$/', $alternative, "teach this test the constraint '$alternative'");
            $branches[] = substr($alternative, 1, -2);
        }
        self::assertContains(PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION, $branches, "composer.json's php range '$range' leaves out PHP " . PHP_VERSION);
        $ext = $package['php-ext'];
        self::assertTrue($ext[PHP_ZTS ? 'support-zts' : 'support-nts'] ?? true, 'composer.json refuses this ' . (PHP_ZTS ? 'ZTS' : 'NTS') . ' build');
        self::assertSame('php-ext', $package['type']);
        self::assertSame('phpclaw', $ext['extension-name']);
        // The php-ext keys PIE documents (php/pie resources/composer-json-php-ext-schema.json).
        $known = ['extension-name', 'priority', 'support-zts', 'support-nts', 'build-path', 'download-url-method',
            'override-download-url-method', 'os-families', 'os-families-exclude', 'configure-options'];
        self::assertSame([], array_values(array_diff(array_keys($ext), $known)), 'php-ext keys PIE does not know');
        self::assertGreaterThanOrEqual(10, $ext['priority']);
        self::assertLessThanOrEqual(99, $ext['priority']);
        foreach ($ext['configure-options'] as $option) {
            self::assertMatchesRegularExpression('/^[a-zA-Z0-9][a-zA-Z0-9-_]*$/', $option['name']);
            self::assertIsString($option['description']);
        }
    }
}
