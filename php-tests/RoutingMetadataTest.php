<?php

declare(strict_types=1);

namespace PhpClawTests;

use ArgumentCountError;
use Error;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\ReadonlyProbe;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;
use ReflectionProperty;
use TypeError;

/** PhpClaw\Tools\ToolRoutingMetadata: a final value object with four readonly arrays. */
final class RoutingMetadataTest extends TestCase
{
    private const FIELDS = ['domains', 'tags', 'intents', 'examples'];

    public function testDefaultsAreEmptyLists(): void
    {
        $m = new ToolRoutingMetadata();
        foreach (self::FIELDS as $field) {
            self::assertSame([], $m->$field, $field);
        }
        self::assertTrue($m->isEmpty());
    }

    public function testPositionalArguments(): void
    {
        $m = new ToolRoutingMetadata(['cache'], ['bin', 'flush'], ['clear cache'], ['how big is the cache']);
        self::assertSame(['cache'], $m->domains);
        self::assertSame(['bin', 'flush'], $m->tags);
        self::assertSame(['clear cache'], $m->intents);
        self::assertSame(['how big is the cache'], $m->examples);
        self::assertFalse($m->isEmpty());
    }

    public function testNamedArgumentsInAnyOrderAndSkippingOthers(): void
    {
        $m = new ToolRoutingMetadata(examples: ['e'], domains: ['d']);
        self::assertSame(['d'], $m->domains);
        self::assertSame([], $m->tags);
        self::assertSame([], $m->intents);
        self::assertSame(['e'], $m->examples);

        $spread = new ToolRoutingMetadata(...['intents' => ['i']]);
        self::assertSame(['i'], $spread->intents);
        self::assertSame([], $spread->domains);

        $mixed = new ToolRoutingMetadata(['d'], intents: ['i']);
        self::assertSame(['d'], $mixed->domains);
        self::assertSame(['i'], $mixed->intents);
    }

    public function testArraysAreKeptAsGivenKeysAndAll(): void
    {
        $domains = ['k' => 'v', 5 => ['nested'], 'n' => null];
        $m = new ToolRoutingMetadata($domains);
        self::assertSame($domains, $m->domains);
        $domains['k'] = 'changed';
        self::assertSame('v', $m->domains['k'], 'the object keeps its own copy');
    }

    /** @return iterable<string, array{string}> */
    public static function fields(): iterable
    {
        foreach (self::FIELDS as $field) {
            yield $field => [$field];
        }
    }

    /**
     * @dataProvider fields
     */
    #[DataProvider('fields')]
    public function testPropertiesArePublicReadonlyArrays(string $field): void
    {
        $p = new ReflectionProperty(ToolRoutingMetadata::class, $field);
        self::assertTrue($p->isPublic());
        self::assertTrue($p->isReadOnly());
        self::assertSame('array', (string) $p->getType());
        self::assertFalse($p->hasDefaultValue());
    }

    /**
     * @dataProvider fields
     */
    #[DataProvider('fields')]
    public function testAssignmentIsRefused(string $field): void
    {
        $m = new ToolRoutingMetadata();
        $this->expectException(Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $p->value = ['x'];
        }, ToolRoutingMetadata::class, $field));
        $m->$field = ['x'];
    }

    /**
     * @dataProvider fields
     */
    #[DataProvider('fields')]
    public function testAppendIsRefused(string $field): void
    {
        $m = new ToolRoutingMetadata();
        $this->expectException(Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $p->value[] = 'x';
        }, ToolRoutingMetadata::class, $field));
        $m->$field[] = 'x';
    }

    /**
     * @dataProvider fields
     */
    #[DataProvider('fields')]
    public function testUnsetIsRefused(string $field): void
    {
        $m = new ToolRoutingMetadata();
        $this->expectException(Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            unset($p->value);
        }, ToolRoutingMetadata::class, $field));
        unset($m->$field);
    }

    /**
     * @dataProvider fields
     */
    #[DataProvider('fields')]
    public function testReferenceIsRefused(string $field): void
    {
        $m = new ToolRoutingMetadata();
        $this->expectException(Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $ref = &$p->value;
            $ref[] = 'x';
        }, ToolRoutingMetadata::class, $field));
        $ref = &$m->$field;
        $ref[] = 'x';
    }

    public function testCallingTheConstructorAgainIsRefused(): void
    {
        $m = new ToolRoutingMetadata(['a']);
        $expected = ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $p->__construct(['b']);
        }, ToolRoutingMetadata::class, 'domains');
        try {
            $m->__construct(['b']);
            self::fail('re-construction succeeded');
        } catch (Error $e) {
            self::assertSame($expected, $e->getMessage());
        }
        self::assertSame(['a'], $m->domains);
    }

    public function testEmptyReturnsAFreshEmptyInstance(): void
    {
        $a = ToolRoutingMetadata::empty();
        $b = ToolRoutingMetadata::empty();
        self::assertInstanceOf(ToolRoutingMetadata::class, $a);
        self::assertNotSame($a, $b);
        self::assertEquals(new ToolRoutingMetadata(), $a);
        self::assertTrue($a->isEmpty());
        foreach (self::FIELDS as $field) {
            self::assertSame([], $a->$field);
        }
    }

    /** @return iterable<string, array{array<string, array<mixed>>, bool}> */
    public static function emptiness(): iterable
    {
        yield 'nothing' => [[], true];
        yield 'explicit empties' => [['domains' => [], 'tags' => [], 'intents' => [], 'examples' => []], true];
        foreach (self::FIELDS as $field) {
            yield "$field with one item" => [[$field => ['x']], false];
            yield "$field with an empty string" => [[$field => ['']], false];
            yield "$field with a null" => [[$field => [null]], false];
            yield "$field with an empty nested list" => [[$field => [[]]], false];
        }
    }

    /**
     * @dataProvider emptiness
     * @param array<string, array<mixed>> $args
     */
    #[DataProvider('emptiness')]
    public function testIsEmpty(array $args, bool $empty): void
    {
        self::assertSame($empty, (new ToolRoutingMetadata(...$args))->isEmpty());
    }

    /** @return iterable<string, array{array<string, mixed>, string}> */
    public static function wrongTypes(): iterable
    {
        yield 'string domains' => [['domains' => 'cache'], 'Argument #1 ($domains) must be of type array, string given'];
        yield 'int tags' => [['tags' => 1], 'Argument #2 ($tags) must be of type array, int given'];
        yield 'null intents' => [['intents' => null], 'Argument #3 ($intents) must be of type array, null given'];
        yield 'object examples' => [['examples' => new \ArrayObject([])], 'Argument #4 ($examples) must be of type array, ArrayObject given'];
        yield 'float domains' => [['domains' => 1.5], 'Argument #1 ($domains) must be of type array, float given'];
        yield 'bool tags' => [['tags' => false], 'Argument #2 ($tags) must be of type array, bool given'];
    }

    /**
     * @dataProvider wrongTypes
     * @param array<string, mixed> $args
     */
    #[DataProvider('wrongTypes')]
    public function testWrongTypesRaiseTypeError(array $args, string $message): void
    {
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage('PhpClaw\Tools\ToolRoutingMetadata::__construct(): ' . $message);
        new ToolRoutingMetadata(...$args);
    }

    public function testUnknownNamedArgument(): void
    {
        $this->expectException(Error::class);
        $this->expectExceptionMessage('Unknown named parameter $keywords');
        new ToolRoutingMetadata(keywords: ['x']);
    }
    public function testTooManyArgumentsGivesPhpsStandardMessage(): void
    {
        try {
            new ToolRoutingMetadata([], [], [], [], []);
            self::fail('five arguments were accepted');
        } catch (ArgumentCountError $e) {
            self::assertSame('PhpClaw\Tools\ToolRoutingMetadata::__construct() expects at most 4 arguments, 5 given', $e->getMessage());
        }
    }
    public function testIsEmptyWithAnArgumentGivesPhpsStandardMessage(): void
    {
        $this->expectException(ArgumentCountError::class);
        $this->expectExceptionMessage('PhpClaw\Tools\ToolRoutingMetadata::isEmpty() expects exactly 0 arguments, 1 given');
        (new ToolRoutingMetadata())->isEmpty(1);
    }
    public function testIsEmptyOnAnUninitialisedInstanceFailsLikeTheReference(): void
    {
        // The PHP original reads the typed properties, which throws before initialisation.
        $m = (new ReflectionClass(ToolRoutingMetadata::class))->newInstanceWithoutConstructor();
        $this->expectException(Error::class);
        $this->expectExceptionMessage('must not be accessed before initialization');
        $m->isEmpty();
    }

    /** The constructor's values are seen however the object is read, also after its property table was built. */
    public function testConstructorAfterThePropertyTableWasBuilt(): void
    {
        $m = (new ReflectionClass(ToolRoutingMetadata::class))->newInstanceWithoutConstructor();
        self::assertSame([], get_object_vars($m));
        $tags = ['t' . random_int(1, 9)];
        $m->__construct(['d'], $tags);
        self::assertSame(['domains' => ['d'], 'tags' => $tags, 'intents' => [], 'examples' => []], get_object_vars($m));
        self::assertSame($tags, $m->tags);
        self::assertSame(['domains' => ['d'], 'tags' => $tags, 'intents' => [], 'examples' => []], (array) $m);
        self::assertFalse($m->isEmpty());
        try {
            $m->__construct(['again']);
            self::fail('a second constructor call initialised a readonly property again');
        } catch (Error $e) {
            self::assertStringContainsString('Cannot modify readonly property', $e->getMessage());
        }
        self::assertSame(['d'], $m->domains);
    }

    /** Objects made and dropped give their arrays back (nothing is kept or leaked per object). */
    public function testMadeAndDroppedObjectsKeepNothing(): void
    {
        $make = static function (int $i): ToolRoutingMetadata {
            $v = "v$i";
            return new ToolRoutingMetadata([$v], [$v, $v], ["$v x"], examples: [$v]);
        };
        $make(0);
        $before = memory_get_usage();
        for ($i = 1; $i <= 2000; $i++) {
            $m = $make($i);
            self::assertSame(["v$i"], $m->domains);
        }
        unset($m);
        self::assertLessThan(4096, memory_get_usage() - $before);
    }

    public function testClassIsFinal(): void
    {
        self::assertTrue((new ReflectionClass(ToolRoutingMetadata::class))->isFinal());
        $run = Subprocess::withModule('<?php class Mine extends PhpClaw\Tools\ToolRoutingMetadata {} echo "declared";');
        self::assertNotSame(0, $run['code']);
        self::assertStringContainsString('cannot extend final class PhpClaw\Tools\ToolRoutingMetadata', $run['stderr'] . $run['stdout']);
    }

    public function testDynamicPropertiesAreDeprecatedLikeAnyNonDynamicClass(): void
    {
        $m = new ToolRoutingMetadata();
        $seen = [];
        set_error_handler(static function (int $level, string $message) use (&$seen): bool {
            $seen[] = [$level, $message];

            return true;
        });
        try {
            $m->extra = 1;
        } finally {
            restore_error_handler();
        }
        self::assertSame([[E_DEPRECATED, 'Creation of dynamic property PhpClaw\Tools\ToolRoutingMetadata::$extra is deprecated']], $seen);
    }

    public function testCloneSerializeJsonAndCompare(): void
    {
        $m = new ToolRoutingMetadata(['d'], ['t'], ['i'], ['e']);
        $clone = clone $m;
        self::assertNotSame($m, $clone);
        self::assertEquals($m, $clone);
        self::assertSame(['d'], $clone->domains);

        $copy = unserialize(serialize($m));
        self::assertInstanceOf(ToolRoutingMetadata::class, $copy);
        self::assertSame(['t'], $copy->tags);

        self::assertSame('{"domains":["d"],"tags":["t"],"intents":["i"],"examples":["e"]}', json_encode($m));
        self::assertSame(['domains' => ['d'], 'tags' => ['t'], 'intents' => ['i'], 'examples' => ['e']], get_object_vars($m));
        self::assertTrue($m == new ToolRoutingMetadata(['d'], ['t'], ['i'], ['e']));
        self::assertFalse($m == new ToolRoutingMetadata(['d']));
    }

    public function testManyInstancesStayIndependent(): void
    {
        $all = [];
        for ($i = 0; $i < 200; $i++) {
            $all[] = new ToolRoutingMetadata(["d$i"], tags: [str_repeat('t', $i)]);
        }
        foreach ($all as $i => $m) {
            self::assertSame(["d$i"], $m->domains);
            self::assertSame([str_repeat('t', $i)], $m->tags);
        }
    }
}
