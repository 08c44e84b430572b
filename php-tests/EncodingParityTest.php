<?php

declare(strict_types=1);

namespace PhpClawTests;

use ArrayObject;
use JsonException;
use JsonSerializable;
use PhpClaw\Exceptions\ToolException;
use PhpClawTests\Fixtures\ContractTool;
use PhpClawTests\Fixtures\CoreTool;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use RuntimeException;
use stdClass;

/** A JsonSerializable whose output is computed when json_encode() asks. */
final class Serialises implements JsonSerializable
{
    public function __construct(private mixed $value)
    {
    }

    public function jsonSerialize(): mixed
    {
        if ($this->value instanceof \Throwable) {
            throw $this->value;
        }

        return $this->value;
    }
}

/**
 * The envelope encoders against PHP itself: core's encodeResult() must equal
 * json_encode($a, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES) byte for byte, the contract's
 * must equal the same over the array with html_entity_decode(ENT_QUOTES | ENT_HTML5, 'UTF-8')
 * applied to every string value (keys kept, objects untouched).
 */
final class EncodingParityTest extends TestCase
{
    private const FLAGS = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES;

    /** The reference rule for the contract binding, in PHP. */
    private static function decoded(mixed $value): mixed
    {
        if (is_string($value)) {
            return html_entity_decode($value, ENT_QUOTES | ENT_HTML5, 'UTF-8');
        }
        if (is_array($value)) {
            return array_map(self::decoded(...), $value);
        }

        return $value;
    }

    /** @return array<mixed> nested $depth levels deep (1 = a flat array) */
    private static function nested(int $depth): array
    {
        $a = ['leaf'];
        for ($i = 1; $i < $depth; $i++) {
            $a = [$a];
        }

        return $a;
    }

    private static function obj(array $props): stdClass
    {
        $o = new stdClass();
        foreach ($props as $k => $v) {
            $o->$k = $v;
        }

        return $o;
    }

    /** @return iterable<string, array{array<mixed>}> */
    public static function table(): iterable
    {
        // shapes and key order
        yield 'empty array' => [[]];
        yield 'list' => [['a', 'b', 'c']];
        yield 'map keeps insertion order' => [['z' => 1, 'a' => 2, 'm' => 3]];
        yield 'sparse list is an object' => [[0 => 'a', 2 => 'b']];
        yield 'list out of order is an object' => [[1 => 'a', 0 => 'b']];
        yield 'list not starting at 0' => [[1 => 'a', 2 => 'b']];
        yield 'negative int key' => [[-1 => 'a']];
        yield 'int and string keys' => [[0 => 'a', 'k' => 'v', 1 => 'b']];
        yield 'numeric-string keys become ints' => [['0' => 'a', '1' => 'b']];
        yield 'non-canonical numeric keys stay strings' => [['01' => 'a', '+1' => 'b', '-0' => 'c', ' 1' => 'd']];
        yield 'empty string key' => [['' => 'empty key']];
        yield 'nested empties' => [['a' => [], 'b' => [[]], 'c' => ['d' => []]]];
        yield 'list of empties' => [[[], [], []]];
        yield 'unset hole' => [(function () {
            $a = ['a', 'b', 'c'];
            unset($a[1]);

            return $a;
        })()];
        yield 'PHP_INT_MAX key' => [[PHP_INT_MAX => 'max', PHP_INT_MIN => 'min']];
        // scalars
        yield 'booleans and null' => [['t' => true, 'f' => false, 'n' => null]];
        yield 'ints' => [[0, -1, 1, PHP_INT_MAX, PHP_INT_MIN]];
        yield 'float 1.0' => [[1.0]];
        yield 'float -0.0' => [[-0.0]];
        yield 'float 0.1' => [[0.1]];
        yield 'float 0.1+0.2' => [[0.1 + 0.2]];
        yield 'float 1e100' => [[1e100]];
        yield 'float 1e-7' => [[1e-7]];
        yield 'float 1.2345678901234568e+17' => [[1.2345678901234568e+17]];
        yield 'float PHP_INT_MAX' => [[(float) PHP_INT_MAX]];
        yield 'float 5e-324' => [[5e-324]];
        yield 'float 1.7976931348623157e308' => [[1.7976931348623157e308]];
        yield 'float 100.0' => [[100.0, 1e15, 1e16, 123456789.125]];
        yield 'numeric strings stay strings' => [['0123', '1e3', ' 1', '0x1A', '-0']];
        // strings
        yield 'unicode' => [['é', 'ünïcödé', '日本語', '😀', "\u{1F468}\u{200D}\u{1F469}"]];
        yield 'U+2028 and U+2029' => [["line\u{2028}sep\u{2029}para"]];
        yield 'control characters' => [["\x00", "\x01\x1f", "\x7f", "tab\tnl\ncr\r", "\x08\x0c"]];
        yield 'slashes' => [['/a/b/', 'http://x.test/p?q=1', '\\back\\slash', '</script>']];
        yield 'quotes' => [['"double"', "'single'", '`back`']];
        yield 'html specials verbatim' => [['<b>&</b>', '&', '&&', '& amp;']];
        yield 'unicode in keys' => [['ключ' => 'значение', '😀' => 1]];
        yield 'long string' => [[str_repeat('abc€', 5000)]];
        // entities
        yield 'named entities' => [['&amp;', '&lt;&gt;', '&quot;', '&copy; &reg; &trade;', '&hellip;', '&euro;']];
        yield 'nbsp' => [['a&nbsp;b']];
        yield 'numeric reference' => [['&#65;&#66;', '&#128512;', '&#8232;']];
        yield 'hex references' => [['&#x41;', '&#X41;', '&#x1F600;']];
        yield 'apostrophes' => [['&apos;', '&#39;', '&#039;']];
        yield 'unknown names' => [['&foo;', '&ampx;', '&AMP;', '&Amp;']];
        yield 'missing semicolons' => [['&amp', '&lt', 'AT&T', '&#65', '&#x41']];
        yield 'nul reference' => [['&#0;', '&#x0;', '&#00;']];
        yield 'surrogate references' => [['&#xD800;', '&#xDFFF;', '&#55296;']];
        yield 'out of range references' => [['&#x110000;', '&#99999999999;', '&#-1;']];
        yield 'C1 control reference' => [['&#128;', '&#x80;', '&#150;']];
        yield 'double encoded' => [['&amp;lt;', '&amp;amp;']];
        yield 'entities in keys are kept' => [['&amp;' => '&amp;', 'a&lt;b' => 'x']];
        yield 'entities deep' => [['l1' => ['l2' => ['l3' => ['&lt;deep&gt;']]]]];
        yield 'entities next to non-strings' => [['&amp;', 1, 1.5, true, null, []]];
        yield 'HTML5-only names' => [['&NewLine;', '&Tab;', '&lbrace;', '&nbsp;&NonBreakingSpace;']];
        // references and objects
        yield 'value by reference' => [(function () {
            $x = '&amp;ref';
            $a = ['r' => &$x, 'copy' => $x];

            return $a;
        })()];
        yield 'empty stdClass' => [['o' => new stdClass()]];
        yield 'stdClass' => [['o' => self::obj(['a' => 1, 'b' => [1, 2]])]];
        yield 'stdClass with entities (untouched)' => [['o' => self::obj(['s' => '&amp;', 'n' => ['&lt;']])]];
        yield 'stdClass with numeric names' => [['o' => self::obj(['0' => 'zero', '1' => 'one'])]];
        yield 'JsonSerializable scalar' => [['j' => new Serialises('&amp; from jsonSerialize')]];
        yield 'JsonSerializable array' => [['j' => new Serialises(['k' => '&lt;', 0 => 1])]];
        yield 'JsonSerializable nested' => [['j' => new Serialises(new Serialises([1, 2]))]];
        yield 'ArrayObject' => [['ao' => new ArrayObject(['x' => 1])]];
        yield 'object with private props' => [['p' => new class () {
            public string $visible = '&amp;';
            private string $hidden = 'secret';
            protected string $guarded = 'secret';
        }]];
        yield 'envelope-shaped' => [['success' => true, 'data' => ['k' => 'v'], 'meta' => [], 'warnings' => []]];
        yield 'nesting 511' => [self::nested(511)];
        yield 'nesting 512 (PHP limit)' => [self::nested(512)];
    }

    /** @return iterable<string, array{array<mixed>, int, string}> */
    public static function failures(): iterable
    {
        yield 'NAN' => [['x' => NAN], JSON_ERROR_INF_OR_NAN, 'Inf and NaN cannot be JSON encoded'];
        yield 'INF' => [['x' => INF], JSON_ERROR_INF_OR_NAN, 'Inf and NaN cannot be JSON encoded'];
        yield '-INF deep' => [['a' => ['b' => -INF]], JSON_ERROR_INF_OR_NAN, 'Inf and NaN cannot be JSON encoded'];
        yield 'invalid UTF-8 value' => [['x' => "\xB1\x31"], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'truncated UTF-8 value' => [['x' => "\xE2\x82"], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'overlong UTF-8' => [['x' => "\xC0\xAF"], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'UTF-8 surrogate' => [['x' => "\xED\xA0\x80"], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'invalid UTF-8 key' => [["k\xff" => 'v'], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'invalid UTF-8 with entity' => [['x' => "&amp;\xff"], JSON_ERROR_UTF8, 'Malformed UTF-8 characters, possibly incorrectly encoded'];
        yield 'nesting 513 (past the limit)' => [self::nested(513), JSON_ERROR_DEPTH, 'Maximum stack depth exceeded'];
        yield 'nesting 600' => [self::nested(600), JSON_ERROR_DEPTH, 'Maximum stack depth exceeded'];
        yield 'NAN inside an object' => [['o' => self::obj(['f' => NAN])], JSON_ERROR_INF_OR_NAN, 'Inf and NaN cannot be JSON encoded'];
        yield 'resource' => [['r' => STDIN], JSON_ERROR_UNSUPPORTED_TYPE, 'Type is not supported'];
    }

    /**
     * @dataProvider table
     * @param array<mixed> $a
     */
    #[DataProvider('table')]
    public function testCoreIsJsonEncodeByteForByte(array $a): void
    {
        $expected = json_encode($a, self::FLAGS | JSON_THROW_ON_ERROR);
        self::assertSame($expected, (new CoreTool())->call('encodeResult', $a));
    }

    /**
     * @dataProvider table
     * @param array<mixed> $a
     */
    #[DataProvider('table')]
    public function testContractIsJsonEncodeOfTheDecodedArray(array $a): void
    {
        $expected = json_encode(self::decoded($a), self::FLAGS | JSON_THROW_ON_ERROR);
        self::assertSame($expected, (new ContractTool())->call('encodeResult', $a));
    }

    /**
     * @dataProvider table
     * @param array<mixed> $a
     */
    #[DataProvider('table')]
    public function testSuccessEnvelopeOfEachRow(array $a): void
    {
        if (count($a) === 1 && is_array($a[0] ?? null) && str_contains(json_encode($a, self::FLAGS | JSON_PARTIAL_OUTPUT_ON_ERROR, 1024), str_repeat('[', 500))) {
            // The envelope adds a level: the deepest rows are covered by encodeResult() above.
            $a = ['shallow' => true];
        }
        $core = json_encode(['success' => true, 'data' => $a, 'meta' => ['m' => '&amp;'], 'warnings' => []], self::FLAGS | JSON_THROW_ON_ERROR);
        self::assertSame($core, (new CoreTool())->call('success', $a, ['m' => '&amp;']));
        $contract = json_encode(self::decoded(['success' => true, 'data' => $a, 'meta' => ['m' => '&amp;'], 'warnings' => []]), self::FLAGS | JSON_THROW_ON_ERROR);
        self::assertSame($contract, (new ContractTool())->call('success', $a, ['m' => '&amp;']));
    }

    public function testTheTableHasEnoughRows(): void
    {
        self::assertGreaterThanOrEqual(60, iterator_count($this->table()));
    }

    public function testTheTwoBindingsDifferOnEntities(): void
    {
        $a = ['s' => 'a &amp; b'];
        self::assertSame('{"s":"a &amp; b"}', (new CoreTool())->call('encodeResult', $a));
        self::assertSame('{"s":"a & b"}', (new ContractTool())->call('encodeResult', $a));
    }

    /**
     * @dataProvider failures
     * @param array<mixed> $a
     */
    #[DataProvider('failures')]
    public function testEncodeFailures(array $a, int $code, string $message): void
    {
        try {
            json_encode($a, self::FLAGS | JSON_THROW_ON_ERROR);
            self::fail('PHP encoded it');
        } catch (JsonException $reference) {
            self::assertSame($code, $reference->getCode());
            self::assertSame($message, $reference->getMessage());
        }
        foreach ([new CoreTool(), new ContractTool()] as $tool) {
            try {
                $tool->call('encodeResult', $a);
                self::fail($tool::class . ' encoded it');
            } catch (ToolException $e) {
                self::assertSame(ToolException::class, $e::class);
                self::assertSame('Unable to encode tool response.', $e->getMessage());
                $previous = $e->getPrevious();
                self::assertInstanceOf(JsonException::class, $previous);
                self::assertSame($code, $previous->getCode());
                self::assertSame($message, $previous->getMessage());
            }
        }
    }

    public function testRecursionIsAnEncodeFailureForCore(): void
    {
        $a = ['x' => 1];
        $a['self'] = &$a;
        try {
            (new CoreTool())->call('encodeResult', $a);
            self::fail('a recursive array was encoded');
        } catch (ToolException $e) {
            self::assertInstanceOf(JsonException::class, $e->getPrevious());
            self::assertSame(JSON_ERROR_RECURSION, $e->getPrevious()->getCode());
        }
        unset($a['self']);
    }
    public function testAnExceptionFromJsonSerializePassesThroughUnwrapped(): void
    {
        // PHP's original catches only \JsonException; anything jsonSerialize() throws reaches the
        // caller as it is.
        $thrown = new RuntimeException('from jsonSerialize');
        foreach ([new CoreTool(), new ContractTool()] as $tool) {
            try {
                $tool->call('encodeResult', ['j' => new Serialises($thrown)]);
                self::fail('no exception');
            } catch (\Throwable $e) {
                self::assertSame($thrown, $e, 'caught ' . $e::class . ': ' . $e->getMessage() . ' (previous: ' . get_debug_type($e->getPrevious()) . ')');
            }
        }
    }

    public function testEncodingLeavesTheCallersArrayUntouched(): void
    {
        $a = ['s' => '&amp;', 'n' => ['&lt;']];
        $copy = $a;
        (new ContractTool())->call('encodeResult', $a);
        self::assertSame($copy, $a);
    }

    public function testEncodingDoesNotDisturbJsonLastError(): void
    {
        json_decode('{');
        self::assertSame(JSON_ERROR_SYNTAX, json_last_error());
        (new CoreTool())->call('encodeResult', ['ok' => true]);
        self::assertSame(JSON_ERROR_SYNTAX, json_last_error(), 'JSON_THROW_ON_ERROR leaves the global error state alone');
    }
}
