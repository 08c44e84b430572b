<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionExtension;

require_once __DIR__ . '/support/surface.php';

/**
 * The native classes against phpClaw's own PHP classes of the same names.
 *
 * fixtures/phpclaw-surface.json holds the public surface of every class, interface, trait and
 * enum that the module registers and phpClaw defines, described by support/surface.php from a
 * reference copy of phpClaw's packages/core. Each native class must offer all of it: the same
 * parent, every interface, every public constant with its value, every public property, every
 * public method with the same parameters and types. A native class may add (more methods, more
 * interfaces, extra trailing optional parameters); anything else is a failure that names the
 * class, member and fact.
 *
 * When the reference copy is present (PHPCLAW_REFERENCE, default ../ref/phpclaw-core next to
 * the checkout), the fixture is regenerated in a child PHP without the extension and must be
 * current.
 */
final class SurfaceParityTest extends TestCase
{
    private const FIXTURE = __DIR__ . '/fixtures/phpclaw-surface.json';

    /** @return array{about: string, classes: array<string, array<string, mixed>>} */
    private static function fixture(): array
    {
        return json_decode((string) file_get_contents(self::FIXTURE), true, 512, JSON_THROW_ON_ERROR);
    }

    /** @return iterable<string, array{string}> */
    public static function phpClawClasses(): iterable
    {
        foreach (array_keys(self::fixture()['classes']) as $name) {
            yield $name => [$name];
        }
    }

    /**
     * @dataProvider phpClawClasses
     */
    #[DataProvider('phpClawClasses')]
    public function testNativeClassOffersPhpClawsSurface(string $name): void
    {
        $native = phpclaw_surface([$name]);
        self::assertArrayHasKey($name, $native, "$name is not defined with the module loaded");
        $ref = (new \ReflectionClass($name));
        self::assertTrue($ref->isInternal(), "$name is defined by PHP code, not by the module");

        $differences = self::differences($name, self::fixture()['classes'][$name], $native[$name]);
        self::assertSame([], $differences, implode("\n", $differences));
    }

    public function testFixtureCoversTheModulesPhpClawNames(): void
    {
        $module = (new ReflectionExtension('phpclaw'))->getClassNames();
        $fixture = array_keys(self::fixture()['classes']);
        self::assertNotEmpty($fixture);
        self::assertSame([], array_values(array_diff($fixture, $module)), 'fixture names a class the module does not register');
    }

    public function testFixtureIsCurrentAgainstTheReferenceCopy(): void
    {
        $reference = getenv('PHPCLAW_REFERENCE');
        if ($reference === false || $reference === '') {
            $reference = dirname(__DIR__, 2) . '/ref/phpclaw-core';
        }
        $autoload = $reference . '/autoload.php';
        if (!is_file($autoload) || !is_dir($reference . '/src/Tools')) {
            self::markTestSkipped("no reference copy of phpClaw at $reference (set PHPCLAW_REFERENCE): the fixture is not regenerated");
        }

        $names = (new ReflectionExtension('phpclaw'))->getClassNames();
        sort($names);
        $run = Subprocess::php(['-n', __DIR__ . '/support/surface.php', $autoload], implode("\n", $names) . "\n");
        self::assertSame(0, $run['code'], "surface.php failed: {$run['stderr']}{$run['stdout']}");
        $fresh = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);

        self::assertSame(
            $fresh,
            self::fixture(),
            'fixtures/phpclaw-surface.json is stale; regenerate it with: php -d extension=<module> -r '
            . '\'$n=(new ReflectionExtension("phpclaw"))->getClassNames(); sort($n); echo implode("\n",$n),"\n";\''
            . " | php -n php-tests/support/surface.php $autoload > php-tests/fixtures/phpclaw-surface.json",
        );
    }

    public function testToolCatalogueIsOneOfPhpClawsCatalogues(): void
    {
        $interface = 'PhpClaw\\AutoDiscovery\\CatalogueInterface';
        self::assertTrue(interface_exists($interface, false), 'the interface exists from module start');
        self::assertTrue(is_subclass_of('PhpClaw\\Tools\\ToolCatalogue', $interface));
        self::assertContains($interface, class_implements('PhpClaw\\Tools\\ToolCatalogue'));

        // phpClaw's other catalogues stay PHP and implement the same declaration.
        $run = Subprocess::withModule(<<<'PHP'
            <?php
            final class SkillCatalogueLike implements PhpClaw\AutoDiscovery\CatalogueInterface
            {
                public static function boot(): void {}
                public static function activateFromSettings(array $settings): array { return array_keys($settings); }
            }
            $all = [PhpClaw\Tools\ToolCatalogue::class, SkillCatalogueLike::class];
            foreach ($all as $c) {
                $c::boot();
                echo $c, ' ', json_encode($c::activateFromSettings(['tools_enabled' => []])), "\n";
            }
            PHP);
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertSame("PhpClaw\\Tools\\ToolCatalogue []\nSkillCatalogueLike [\"tools_enabled\"]\n", $run['stdout']);
    }

    /** @return iterable<string, array{callable(array<string, mixed>): array<string, mixed>, ?string}> */
    public static function mutations(): iterable
    {
        $class = static fn (callable $f): callable => $f;
        yield 'missing interface' => [$class(static function (array $c): array {
            $c['interfaces'] = [];
            return $c;
        }), 'lacks interface PhpClaw\\Tools\\Contracts\\ToolInterface'];
        yield 'other parent' => [$class(static function (array $c): array {
            $c['parent'] = 'Exception';
            return $c;
        }), 'parent is Exception, phpClaw\'s is none'];
        yield 'final where phpClaw is open' => [$class(static function (array $c): array {
            $c['final'] = true;
            return $c;
        }), 'is final, phpClaw\'s is not'];
        yield 'constant value' => [$class(static function (array $c): array {
            $c['constants']['LIMIT'] = '9';
            return $c;
        }), 'constant LIMIT is 9, phpClaw\'s is 8'];
        yield 'missing method' => [$class(static function (array $c): array {
            unset($c['methods']['run']);
            return $c;
        }), 'lacks public method run()'];
        yield 'static method' => [$class(static function (array $c): array {
            $c['methods']['run']['static'] = true;
            return $c;
        }), 'run() is static, phpClaw\'s is not'];
        yield 'renamed parameter' => [$class(static function (array $c): array {
            $c['methods']['run']['params'][0]['name'] = 'arguments';
            return $c;
        }), 'run() parameter #1 is $arguments, phpClaw\'s is $input'];
        yield 'parameter type' => [$class(static function (array $c): array {
            $c['methods']['run']['params'][0]['type'] = 'string';
            return $c;
        }), 'run() parameter #1 ($input) type is string, phpClaw\'s is array'];
        yield 'required where phpClaw is optional' => [$class(static function (array $c): array {
            $c['methods']['run']['params'][1]['optional'] = false;
            return $c;
        }), 'run() parameter #2 ($limit) is required, phpClaw\'s is optional'];
        yield 'extra required parameter' => [$class(static function (array $c): array {
            $c['methods']['run']['params'][] = ['name' => 'extra', 'type' => 'int', 'optional' => false, 'byRef' => false, 'variadic' => false];
            return $c;
        }), 'run() adds required parameter #3 ($extra)'];
        yield 'return type' => [$class(static function (array $c): array {
            $c['methods']['run']['return'] = '?string';
            return $c;
        }), 'run() returns ?string, phpClaw\'s returns string'];
        yield 'property readonly' => [$class(static function (array $c): array {
            $c['properties']['tags']['readonly'] = false;
            return $c;
        }), 'property $tags readonly is false, phpClaw\'s is true'];
        yield 'extra trailing optional parameter is allowed' => [$class(static function (array $c): array {
            $c['methods']['run']['params'][] = ['name' => 'extra', 'type' => 'int', 'optional' => true, 'byRef' => false, 'variadic' => false];
            return $c;
        }), null];
        yield 'extra method and interface are allowed' => [$class(static function (array $c): array {
            $c['methods']['more'] = ['static' => false, 'abstract' => false, 'return' => 'void', 'params' => []];
            $c['interfaces'][] = 'Countable';
            return $c;
        }), null];
    }

    /**
     * The comparison itself, on a made-up class: every rule must catch its own break.
     *
     * @dataProvider mutations
     */
    #[DataProvider('mutations')]
    public function testDifferencesAreReported(callable $mutate, ?string $expected): void
    {
        $ref = [
            'kind' => 'class',
            'final' => false,
            'abstract' => false,
            'parent' => null,
            'interfaces' => ['PhpClaw\\Tools\\Contracts\\ToolInterface'],
            'constants' => ['LIMIT' => '8'],
            'properties' => ['tags' => ['type' => 'array', 'readonly' => true, 'static' => false, 'default' => null]],
            'methods' => ['run' => ['static' => false, 'abstract' => false, 'return' => 'string', 'params' => [
                ['name' => 'input', 'type' => 'array', 'optional' => false, 'byRef' => false, 'variadic' => false],
                ['name' => 'limit', 'type' => 'int', 'optional' => true, 'byRef' => false, 'variadic' => false],
            ]]],
        ];
        $got = self::differences('X', $ref, $mutate($ref));
        if ($expected === null) {
            self::assertSame([], $got);
        } else {
            self::assertSame(["X $expected"], $got);
        }
    }

    /**
     * What the native class lacks or changes relative to phpClaw's; additions are allowed.
     *
     * @param array<string, mixed> $ref phpClaw's class
     * @param array<string, mixed> $nat the native class
     * @return list<string>
     */
    private static function differences(string $name, array $ref, array $nat): array
    {
        $out = [];
        $say = static function (string $what) use (&$out, $name): void {
            $out[] = "$name $what";
        };
        $show = static fn (mixed $v): string => $v === null ? 'none' : (is_bool($v) ? ($v ? 'true' : 'false') : (string) $v);

        if ($ref['kind'] !== $nat['kind']) {
            $say("is a {$nat['kind']}, phpClaw's is a {$ref['kind']}");
        }
        if (!$ref['final'] && $nat['final']) {
            $say("is final, phpClaw's is not");
        }
        if (!$ref['abstract'] && $nat['abstract']) {
            $say("is abstract, phpClaw's is not");
        }
        if ($ref['parent'] !== $nat['parent']) {
            $say("parent is {$show($nat['parent'])}, phpClaw's is {$show($ref['parent'])}");
        }
        foreach (array_diff($ref['interfaces'], $nat['interfaces']) as $interface) {
            $say("lacks interface $interface");
        }
        foreach ($ref['constants'] as $const => $value) {
            if (!array_key_exists($const, $nat['constants'])) {
                $say("lacks constant $const");
            } elseif ($nat['constants'][$const] !== $value) {
                $say("constant $const is {$nat['constants'][$const]}, phpClaw's is $value");
            }
        }
        foreach ($ref['properties'] as $prop => $facts) {
            if (!array_key_exists($prop, $nat['properties'])) {
                $say("lacks public property \$$prop");
                continue;
            }
            foreach ($facts as $fact => $value) {
                if ($nat['properties'][$prop][$fact] !== $value) {
                    $say("property \$$prop $fact is {$show($nat['properties'][$prop][$fact])}, phpClaw's is {$show($value)}");
                }
            }
        }
        foreach ($ref['methods'] as $method => $m) {
            if (!array_key_exists($method, $nat['methods'])) {
                $say("lacks public method $method()");
                continue;
            }
            $n = $nat['methods'][$method];
            if ($m['static'] !== $n['static']) {
                $say("$method() is " . ($n['static'] ? 'static' : 'not static') . ', phpClaw\'s is ' . ($m['static'] ? 'static' : 'not'));
            }
            if (!$m['abstract'] && $n['abstract']) {
                $say("$method() is abstract, phpClaw's is not");
            }
            if ($m['return'] !== $n['return']) {
                $say("$method() returns {$show($n['return'])}, phpClaw's returns {$show($m['return'])}");
            }
            foreach ($m['params'] as $i => $p) {
                $pos = $i + 1;
                if (!isset($n['params'][$i])) {
                    $say("$method() lacks parameter #$pos (\${$p['name']})");
                    continue;
                }
                $q = $n['params'][$i];
                if ($q['name'] !== $p['name']) {
                    $say("$method() parameter #$pos is \${$q['name']}, phpClaw's is \${$p['name']}");
                }
                if ($q['type'] !== $p['type']) {
                    $say("$method() parameter #$pos (\${$p['name']}) type is {$show($q['type'])}, phpClaw's is {$show($p['type'])}");
                }
                if ($q['optional'] !== $p['optional']) {
                    $say("$method() parameter #$pos (\${$p['name']}) is " . ($q['optional'] ? 'optional' : 'required') . ', phpClaw\'s is ' . ($p['optional'] ? 'optional' : 'required'));
                }
                foreach (['byRef' => 'by reference', 'variadic' => 'variadic'] as $fact => $label) {
                    if ($q[$fact] !== $p[$fact]) {
                        $say("$method() parameter #$pos (\${$p['name']}) is " . ($q[$fact] ? '' : 'not ') . "$label, phpClaw's is " . ($p[$fact] ? '' : 'not ') . $label);
                    }
                }
            }
            foreach (array_slice($n['params'], count($m['params']), null, true) as $i => $q) {
                if (!$q['optional']) {
                    $say("$method() adds required parameter #" . ($i + 1) . " (\${$q['name']})");
                }
            }
        }

        return $out;
    }
}
