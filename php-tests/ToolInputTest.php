<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\ToolInput;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;
use TypeError;

/** PhpClaw\Tools\ToolInput, native: "Arguments the agent tidies" and "Tool result size". */
final class ToolInputTest extends TestCase
{
    private const NOTE = "\n[phpClaw: tool output cut at %d tokens. Narrow the request, or page with offset if the tool supports it.]";

    /** The schema phpClaw's own tidy test uses. */
    private static function schema(): array
    {
        return [
            'type' => 'object',
            'properties' => [
                'search' => ['type' => 'string'],
                'status' => ['type' => 'string', 'enum' => ['all', '*']],
                'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => 50],
                'ratio' => ['type' => 'number', 'minimum' => 0.5],
                'code' => ['type' => 'string'],
            ],
            'required' => ['code'],
        ];
    }

    private static function tidy(array $input): array
    {
        return ToolInput::tidy($input, self::schema());
    }

    public function testClassShape(): void
    {
        $c = new ReflectionClass(ToolInput::class);
        self::assertTrue($c->isFinal());
        self::assertSame(2500, ToolInput::DEFAULT_MAX_RESULT_TOKENS);
        self::assertTrue($c->getMethod('tidy')->isStatic());
        self::assertSame(2500, $c->getMethod('capResult')->getParameters()[1]->getDefaultValue());
    }

    // ---- the spec's table, row by row ---------------------------------------------------

    /** @return array<string, array{mixed}> */
    public static function emptyOptionalValues(): array
    {
        return [
            'null' => [null], 'empty string' => [''], 'spaces' => ['  '], 'tab and newline' => ["\t\n"],
            'NUL and vertical tab' => ["\0\x0B"], 'star' => ['*'], 'percent' => ['%'],
            'padded star' => [' * '], 'padded percent' => ["\n%\r"],
        ];
    }

    /**
     * Row 1: optional, sent as null, a blank string, * or % -> dropped.
     * @dataProvider emptyOptionalValues
     */
    #[DataProvider('emptyOptionalValues')]
    public function testOptionalEmptyArgumentsAreDropped(mixed $value): void
    {
        self::assertSame(['code' => 'x'], self::tidy(['search' => $value, 'code' => 'x']));
    }

    /** @return array<string, array{mixed}> */
    public static function realOptionalValues(): array
    {
        return [
            'text' => ['abc'], 'double star' => ['**'], 'form feed is no trim character' => ["\x0C"],
            'false' => [false], 'zero' => [0], 'zero float' => [0.0], 'empty array' => [[]], 'star in text' => ['a*'],
        ];
    }

    /**
     * @dataProvider realOptionalValues
     */
    #[DataProvider('realOptionalValues')]
    public function testOptionalRealValuesAreKept(mixed $value): void
    {
        self::assertSame(['search' => $value, 'code' => 'x'], self::tidy(['search' => $value, 'code' => 'x']));
    }

    /** Row 2: an optional * or % that is one of the property's enum values is kept. */
    public function testWildcardsListedInTheEnumAreKept(): void
    {
        self::assertSame(['status' => '*', 'code' => 'x'], self::tidy(['status' => '*', 'code' => 'x']));
        self::assertSame(['status' => ' * ', 'code' => 'x'], self::tidy(['status' => ' * ', 'code' => 'x']));
        // % is not in this enum.
        self::assertSame(['code' => 'x'], self::tidy(['status' => '%', 'code' => 'x']));
        $pct = ['properties' => ['q' => ['type' => 'string', 'enum' => ['%']]]];
        self::assertSame(['q' => '%'], ToolInput::tidy(['q' => '%'], $pct));
        self::assertSame([], ToolInput::tidy(['q' => '*'], $pct));
        // A scalar enum counts as a one-value list.
        self::assertSame(['q' => '*'], ToolInput::tidy(['q' => '*'], ['properties' => ['q' => ['enum' => '*']]]));
    }

    /** Row 3: required arguments pass through as sent, even null. */
    public function testRequiredArgumentsPassThrough(): void
    {
        self::assertSame(['code' => ''], self::tidy(['code' => '']));
        self::assertSame(['code' => null], self::tidy(['code' => null]));
        self::assertSame(['code' => '*'], self::tidy(['code' => '*']));
        // "required" compares strictly: an integer key is not the string "0".
        $schema = ['properties' => [0 => ['type' => 'string']], 'required' => ['0']];
        self::assertSame([], ToolInput::tidy([0 => null], $schema));
        $schema['required'] = [0];
        self::assertSame([0 => null], ToolInput::tidy([0 => null], $schema));
        // A scalar "required" counts as a one-name list.
        self::assertSame(['code' => null], ToolInput::tidy(['code' => null], ['properties' => ['code' => []], 'required' => 'code']));
    }

    /** Row 4: integers and numbers outside minimum/maximum are set to that bound (at and one past). */
    public function testNumbersAreSetIntoTheirRange(): void
    {
        self::assertSame(['limit' => 50, 'code' => 'x'], self::tidy(['limit' => 100, 'code' => 'x']));
        self::assertSame(['limit' => 50, 'code' => 'x'], self::tidy(['limit' => 50, 'code' => 'x']));
        self::assertSame(['limit' => 50, 'code' => 'x'], self::tidy(['limit' => 51, 'code' => 'x']));
        self::assertSame(['limit' => 1, 'code' => 'x'], self::tidy(['limit' => 1, 'code' => 'x']));
        self::assertSame(['limit' => 1, 'code' => 'x'], self::tidy(['limit' => 0, 'code' => 'x']));
        self::assertSame(['limit' => 1, 'code' => 'x'], self::tidy(['limit' => PHP_INT_MIN, 'code' => 'x']));
        self::assertSame(['ratio' => 0.5, 'code' => 'x'], self::tidy(['ratio' => 0.1, 'code' => 'x']));
        self::assertSame(['ratio' => 0.5, 'code' => 'x'], self::tidy(['ratio' => 0.5, 'code' => 'x']));
        self::assertSame(['ratio' => 0.50001, 'code' => 'x'], self::tidy(['ratio' => 0.50001, 'code' => 'x']));
        // The bound is returned as the schema wrote it.
        $schema = ['properties' => ['n' => ['type' => 'integer', 'minimum' => 1.5, 'maximum' => '10']]];
        self::assertSame(['n' => 1.5], ToolInput::tidy(['n' => 1], $schema));
        self::assertSame(['n' => '10'], ToolInput::tidy(['n' => 11], $schema));
        self::assertSame(['n' => 10], ToolInput::tidy(['n' => 10], $schema));
    }

    /** Row 5: arguments outside the schema's properties pass through untouched. */
    public function testArgumentsNotInTheSchemaAreUntouched(): void
    {
        self::assertSame(['extra' => '', 'code' => 'x'], self::tidy(['extra' => '', 'code' => 'x']));
        self::assertSame(['extra' => null, 'n' => '7'], ToolInput::tidy(['extra' => null, 'n' => '7'], ['type' => 'object']));
        // A property whose spec is not an array is not described.
        self::assertSame(['s' => null], ToolInput::tidy(['s' => null], ['properties' => ['s' => 'string']]));
        self::assertSame(['s' => null], ToolInput::tidy(['s' => null], ['properties' => 'nope']));
    }

    /** Row 6: a numeric string for an integer property becomes an integer. */
    public function testNumericStringsBecomeNumbers(): void
    {
        self::assertSame(['limit' => 20, 'code' => 'x'], self::tidy(['limit' => '20', 'code' => 'x']));
        self::assertSame(['limit' => 20, 'code' => 'x'], self::tidy(['limit' => ' 20 ', 'code' => 'x']));
        self::assertSame(['limit' => 2, 'code' => 'x'], self::tidy(['limit' => '2.9', 'code' => 'x']));
        self::assertSame(['limit' => 10, 'code' => 'x'], self::tidy(['limit' => '1e1', 'code' => 'x']));
        self::assertSame(['limit' => 50, 'code' => 'x'], self::tidy(['limit' => '100', 'code' => 'x']));
        self::assertSame(['limit' => 3, 'code' => 'x'], self::tidy(['limit' => 3.9, 'code' => 'x']));
        self::assertSame(['ratio' => 0.75, 'code' => 'x'], self::tidy(['ratio' => '.75', 'code' => 'x']));
        // As phpClaw's agent does, an int sent for a "number" becomes a float.
        self::assertSame(['ratio' => 5.0, 'code' => 'x'], self::tidy(['ratio' => 5, 'code' => 'x']));
        $free = ['properties' => ['n' => ['type' => 'integer']]];
        self::assertSame(['n' => PHP_INT_MAX], ToolInput::tidy(['n' => '1e30'], $free));
        self::assertSame(['n' => PHP_INT_MIN], ToolInput::tidy(['n' => '-1e30'], $free));
        self::assertSame(['n' => (int) 1e30], ToolInput::tidy(['n' => 1e30], $free));
    }

    public function testNonNumericValuesAreUntouched(): void
    {
        foreach (['many', '0x1A', '1e', 'INF', true] as $v) {
            self::assertSame(['limit' => $v, 'code' => 'x'], self::tidy(['limit' => $v, 'code' => 'x']), var_export($v, true));
        }
        // Only "integer" and "number" exactly.
        $schema = ['properties' => ['n' => ['type' => 'Integer', 'maximum' => 1], 'm' => ['type' => ['integer'], 'maximum' => 1]]];
        self::assertSame(['n' => 5, 'm' => 5], ToolInput::tidy(['n' => 5, 'm' => 5], $schema));
    }

    public function testOrderAndIntegerKeysArePreserved(): void
    {
        $schema = ['properties' => ['b' => ['type' => 'integer', 'maximum' => 3], 'a' => [], 7 => ['type' => 'number']]];
        self::assertSame(
            [7 => 2.0, 'z' => 1, 'b' => 3, 'a' => 'keep', 'c' => null],
            ToolInput::tidy([7 => 2, 'z' => 1, 'b' => '9', 'a' => 'keep', 'c' => null], $schema),
        );
        self::assertSame([], ToolInput::tidy([], self::schema()));
    }

    public function testTenArgumentsAtOnce(): void
    {
        $schema = ['properties' => [], 'required' => ['id']];
        foreach (['id', 'q', 'status', 'page', 'per_page', 'ratio', 'from', 'to', 'sort', 'tags'] as $k) {
            $schema['properties'][$k] = ['type' => 'string'];
        }
        $schema['properties']['page'] = ['type' => 'integer', 'minimum' => 1];
        $schema['properties']['per_page'] = ['type' => 'integer', 'minimum' => 1, 'maximum' => 100];
        $schema['properties']['ratio'] = ['type' => 'number', 'minimum' => 0, 'maximum' => 1];
        $schema['properties']['status'] = ['type' => 'string', 'enum' => ['any', '*']];
        $in = ['id' => '', 'q' => ' ', 'status' => '*', 'page' => '0', 'per_page' => 500, 'ratio' => '0.25', 'from' => null, 'to' => '%', 'sort' => 'asc', 'tags' => ['a']];
        self::assertSame(
            ['id' => '', 'status' => '*', 'page' => 1, 'per_page' => 100, 'ratio' => 0.25, 'sort' => 'asc', 'tags' => ['a']],
            ToolInput::tidy($in, $schema),
        );
    }

    public function testTidyArgumentTypes(): void
    {
        $this->expectException(TypeError::class);
        ToolInput::tidy('x', []);
    }

    // ---- the result cap -------------------------------------------------------------------

    public function testDefaultCeilingAtTheLimitAndOnePast(): void
    {
        $at = str_repeat('a', 10000);
        self::assertSame($at, ToolInput::capResult($at));
        $past = str_repeat('a', 10001);
        self::assertSame($at . sprintf(self::NOTE, 2500), ToolInput::capResult($past));
        self::assertSame($at . sprintf(self::NOTE, 2500), ToolInput::capResult($past, ToolInput::DEFAULT_MAX_RESULT_TOKENS));
    }

    public function testSmallCeilingsAndTheNoteNamesTheCeiling(): void
    {
        self::assertSame('abcdefgh', ToolInput::capResult('abcdefgh', 2));
        self::assertSame('abcdefgh' . sprintf(self::NOTE, 2), ToolInput::capResult('abcdefghi', 2));
        self::assertSame('', ToolInput::capResult('', 1));
        self::assertSame(str_repeat('x', 40) . sprintf(self::NOTE, 10), ToolInput::capResult(str_repeat('x', 41), 10));
    }

    public function testZeroAndNegativeDisableTheCut(): void
    {
        $big = str_repeat('x', 50000);
        self::assertSame($big, ToolInput::capResult($big, 0));
        self::assertSame($big, ToolInput::capResult($big, -5));
        self::assertSame($big, ToolInput::capResult($big, PHP_INT_MAX));
    }

    public function testTheCutNeverSplitsACharacter(): void
    {
        // "€" is three bytes: a four-byte ceiling falls inside the second one.
        self::assertSame('€' . sprintf(self::NOTE, 1), ToolInput::capResult('€€€', 1));
        self::assertSame('éé' . sprintf(self::NOTE, 1), ToolInput::capResult('ééé', 1));
        self::assertSame('a' . sprintf(self::NOTE, 1), ToolInput::capResult('a😀', 1));
        // Bytes that are no UTF-8 at all are cut at the ceiling.
        self::assertSame(str_repeat("\x80", 4) . sprintf(self::NOTE, 1), ToolInput::capResult(str_repeat("\x80", 10), 1));
        $out = ToolInput::capResult(str_repeat('é', 6000));
        self::assertSame(1, preg_match('//u', $out));
    }

    public function testCapArgumentTypes(): void
    {
        // Weak mode (eval'd code has no strict_types) coerces an int result to a string.
        $weak = eval('return static fn ($r, $m) => \\PhpClaw\\Tools\\ToolInput::capResult($r, $m);');
        self::assertSame('12', $weak(12, 1));
        $this->expectException(TypeError::class);
        ToolInput::capResult([], 1);
    }
}
