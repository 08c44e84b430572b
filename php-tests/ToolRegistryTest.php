<?php

declare(strict_types=1);

namespace PhpClawTests\Registry;

use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ResettableInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\ToolRegistry;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\ReadonlyProbe;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** A plain tool that counts the calls the registry makes. */
class ProbeTool implements ToolInterface
{
    /** @var array<string, int> */
    public array $calls = ['name' => 0, 'description' => 0, 'inputSchema' => 0];

    public function __construct(
        private string $n,
        private string $d = 'Test tool',
        private array $s = ['type' => 'object', 'properties' => []],
    ) {
    }

    public function name(): string
    {
        $this->calls['name']++;

        return $this->n;
    }

    public function description(): string
    {
        $this->calls['description']++;

        return $this->d;
    }

    public function inputSchema(): array
    {
        $this->calls['inputSchema']++;

        return $this->s;
    }

    public function execute(array $input): string
    {
        return 'result';
    }
}

/** A tool with routing signals that can switch itself out of the schema list. */
final class RoutedTool extends ProbeTool implements ToolRoutingInterface
{
    public int $eligibilityChecks = 0;

    public function __construct(string $n, private bool $eligible, private ?ToolRoutingMetadata $metadata = null)
    {
        parent::__construct($n);
    }

    public function isEligibleForRouting(): bool
    {
        $this->eligibilityChecks++;

        return $this->eligible;
    }

    public function routingMetadata(): ToolRoutingMetadata
    {
        return $this->metadata ?? ToolRoutingMetadata::empty();
    }
}

/** A tool that records the authorizer it was bound to. */
final class GuardedTool extends ProbeTool implements AuthorizableToolInterface
{
    /** @var list<?ToolAuthorizerInterface> */
    public array $bound = [];

    public function withAuthorizer(?ToolAuthorizerInterface $authorizer): void
    {
        $this->bound[] = $authorizer;
    }
}

/** A tool with per-run state. */
final class StatefulTool extends ProbeTool implements ResettableInterface
{
    public int $resets = 0;

    public function reset(): void
    {
        $this->resets++;
    }
}

/** An authorizer that allows everything. */
final class AllowAll implements ToolAuthorizerInterface
{
    public function allows(): bool
    {
        return true;
    }

    public function runningInConsole(): bool
    {
        return true;
    }
}

/** A tool whose destructor registers another tool in the same registry. */
final class ReentrantTool extends ProbeTool
{
    public static ?ToolRegistry $registry = null;

    public function __destruct()
    {
        if (self::$registry !== null) {
            $registry = self::$registry;
            self::$registry = null;
            $registry->register([new ProbeTool('born_in_destructor')]);
        }
    }
}

final class ToolRegistryTest extends TestCase
{
    private const OPENAI_SHAPED = ['openai', 'groq', 'gemini', 'mistral', 'ollama', 'deepseek', 'custom'];

    private string $log = '';

    private string|false $previousLog = false;

    protected function setUp(): void
    {
        $this->log = (string) tempnam(sys_get_temp_dir(), 'phpclaw-registry-log-');
        $this->previousLog = ini_get('error_log');
        ini_set('error_log', $this->log);
    }

    protected function tearDown(): void
    {
        ini_set('error_log', $this->previousLog === false ? '' : $this->previousLog);
        @unlink($this->log);
    }

    /** @return list<string> lines written to the error log so far, timestamps removed */
    private function logged(): array
    {
        $lines = array_filter(explode("\n", (string) file_get_contents($this->log)), 'strlen');

        return array_values(array_map(static fn (string $l): string => (string) preg_replace('/^\[[^\]]*\] /', '', $l), $lines));
    }

    public function testTheClassIsNativeFinalAndKeepsTheReferenceShape(): void
    {
        $c = new \ReflectionClass(ToolRegistry::class);
        self::assertTrue($c->isInternal());
        self::assertTrue($c->isFinal());
        self::assertSame('openai', ToolRegistry::TOOL_FORMAT_OPENAI);
        self::assertSame('anthropic', ToolRegistry::TOOL_FORMAT_ANTHROPIC);
        $props = [];
        foreach ($c->getProperties() as $p) {
            $props[$p->getName()] = [(string) $p->getType(), $p->isPrivate(), $p->isReadOnly()];
        }
        ksort($props);
        self::assertSame([
            'authorizer' => ['?PhpClaw\\Tools\\Contracts\\ToolAuthorizerInterface', true, true],
            'schemasCache' => ['array', true, false],
            'tools' => ['array', true, false],
        ], $props);
    }

    public function testRegisterHasGetAllCountNames(): void
    {
        $r = new ToolRegistry();
        self::assertSame(0, $r->count());
        self::assertSame([], $r->all());
        self::assertSame([], $r->names());
        self::assertFalse($r->has('nonexistent'));

        $a = new ProbeTool('tool_a');
        $b = new ProbeTool('tool_b');
        $r->register([$a, $b]);
        self::assertSame(2, $r->count());
        self::assertTrue($r->has('tool_a'));
        self::assertSame($a, $r->get('tool_a'));
        self::assertSame([$a, $b], $r->all());
        self::assertSame(['tool_a', 'tool_b'], $r->names());

        // A later tool with the same name replaces the earlier one, in place.
        $c = new ProbeTool('tool_a', 'Second');
        $r->register([$c]);
        self::assertSame(2, $r->count());
        self::assertSame('Second', $r->get('tool_a')->description());
        self::assertSame(['tool_a', 'tool_b'], $r->names());
    }

    public function testNamesFollowPhpArrayKeyRules(): void
    {
        $r = new ToolRegistry();
        $r->register([new ProbeTool('123'), new ProbeTool('007')]);
        // As with $tools[$name] = $tool: "123" becomes an int key, "007" stays a string.
        self::assertSame([123, '007'], $r->names());
        self::assertTrue($r->has('123'));
        self::assertTrue($r->has('007'));
        self::assertFalse($r->has('7'));
    }

    public function testGetOfAnUnknownNameWarnsThenFailsItsReturnType(): void
    {
        $r = new ToolRegistry();
        try {
            @$r->get('missing');
            self::fail('no TypeError');
        } catch (\TypeError $e) {
            self::assertSame(
                'PhpClaw\\Tools\\ToolRegistry::get(): Return value must be of type PhpClaw\\Tools\\Contracts\\ToolInterface, null returned',
                $e->getMessage(),
            );
        }
        $seen = null;
        set_error_handler(static function (int $no, string $msg) use (&$seen): bool {
            $seen = [$no, $msg];

            return true;
        });
        try {
            $r->get('missing');
        } catch (\TypeError) {
        } finally {
            restore_error_handler();
        }
        self::assertSame([E_WARNING, 'Undefined array key "missing"'], $seen);
    }

    public function testSchemasOfAnEmptyRegistry(): void
    {
        $r = new ToolRegistry();
        self::assertSame([], $r->schemas('anthropic'));
        self::assertSame([], $r->schemas('openai', true));
    }

    /** @return iterable<string, array{string, bool}> */
    public static function providers(): iterable
    {
        foreach (self::OPENAI_SHAPED as $p) {
            yield $p => [$p, true];
        }
        foreach (['anthropic', '', 'some-unregistered-provider', 'OpenAI', 'openai ', 'ollama:lean'] as $p) {
            yield "other: '$p'" => [$p, false];
        }
    }

    /**
     * @dataProvider providers
     */
    #[DataProvider('providers')]
    public function testEveryProviderGetsItsShape(string $provider, bool $openAi): void
    {
        $schema = ['type' => 'object', 'properties' => ['command' => ['type' => 'string']], 'required' => ['command']];
        $r = new ToolRegistry();
        $r->register([new ProbeTool('shell_exec', "Run shell command\nDetails.", $schema)]);

        $expected = $openAi
            ? [['type' => 'function', 'function' => ['name' => 'shell_exec', 'description' => "Run shell command\nDetails.", 'parameters' => $schema]]]
            : [['name' => 'shell_exec', 'description' => "Run shell command\nDetails.", 'input_schema' => $schema]];
        self::assertSame($expected, $r->schemas($provider));
        self::assertSame($openAi ? 'openai' : 'anthropic', ToolRegistry::toolFormat($provider));

        $lean = $r->schemas($provider, true);
        $description = $openAi ? $lean[0]['function']['description'] : $lean[0]['description'];
        self::assertSame('Run shell command', $description);
    }

    public function testLeanDescriptionsTakeTheFirstNonEmptyLineTrimmed(): void
    {
        $r = new ToolRegistry();
        $r->register([
            new ProbeTool('a', "Read the thing.\nMODES\n  long explanation follows"),
            new ProbeTool('b', "\n\n  First line \t\r\nsecond"),
            new ProbeTool('c', ''),
            new ProbeTool('d', "\n\n"),
        ]);
        self::assertSame(['Read the thing.', 'First line', '', ''], array_column($r->schemas('anthropic', true), 'description'));
        self::assertSame("Read the thing.\nMODES\n  long explanation follows", $r->schemas('anthropic')[0]['description']);
    }

    public function testEmptyPropertiesBecomeAnObjectByteForByte(): void
    {
        $original = ['type' => 'object', 'properties' => []];
        $tool = new ProbeTool('server_time', 'Return the current server time.', $original);
        $r = new ToolRegistry();
        $r->register([$tool]);

        $flags = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES;
        self::assertSame(
            '[{"type":"function","function":{"name":"server_time","description":"Return the current server time.","parameters":{"type":"object","properties":{}}}}]',
            json_encode($r->schemas('openai'), $flags),
        );
        self::assertSame(
            '[{"name":"server_time","description":"Return the current server time.","input_schema":{"type":"object","properties":{}}}]',
            json_encode($r->schemas('anthropic'), $flags),
        );
        $props = $r->schemas('anthropic')[0]['input_schema']['properties'];
        self::assertInstanceOf(\stdClass::class, $props);
        self::assertSame([], get_object_vars($props));
        // The same bytes phpClaw's own swap gives, and the tool's array is not touched.
        $reference = $original;
        $reference['properties'] = new \stdClass();
        self::assertSame(json_encode($reference), json_encode($r->schemas('openai')[0]['function']['parameters']));
        self::assertSame($original, $tool->inputSchema());
    }

    /** @return iterable<string, array{array<mixed>, string}> */
    public static function schemasLeftAlone(): iterable
    {
        yield 'no properties' => [['type' => 'object'], '{"type":"object"}'];
        yield 'non-empty properties' => [['properties' => ['a' => []]], '{"properties":{"a":[]}}'];
        yield 'null properties' => [['properties' => null], '{"properties":null}'];
        yield 'string properties' => [['properties' => ''], '{"properties":""}'];
        yield 'nested empty properties' => [['properties' => ['o' => ['type' => 'object', 'properties' => []]]], '{"properties":{"o":{"type":"object","properties":[]}}}'];
        yield 'empty schema' => [[], '[]'];
        yield 'key order kept' => [['properties' => [], 'type' => 'object', 'x' => 1], '{"properties":{},"type":"object","x":1}'];
    }

    /**
     * @dataProvider schemasLeftAlone
     * @param array<mixed> $schema
     */
    #[DataProvider('schemasLeftAlone')]
    public function testOnlyATopLevelEmptyPropertiesIsSwapped(array $schema, string $json): void
    {
        $r = new ToolRegistry();
        $r->register([new ProbeTool('t', 'd', $schema)]);
        self::assertSame($json, json_encode($r->schemas('anthropic')[0]['input_schema']));
    }

    public function testSchemasAreCachedPerProviderAndModeUntilTheNextRegister(): void
    {
        $tool = new ProbeTool('tool_a');
        $r = new ToolRegistry();
        $r->register([$tool]);

        $first = $r->schemas('anthropic');
        self::assertSame(1, $tool->calls['inputSchema']);
        self::assertSame($first, $r->schemas('anthropic'));
        self::assertSame(1, $tool->calls['inputSchema'], 'a cache hit calls no tool method');

        $openai = $r->schemas('openai');
        self::assertArrayHasKey('function', $openai[0]);
        self::assertSame(2, $tool->calls['inputSchema'], 'the cache is per provider');
        $r->schemas('openai', true);
        self::assertSame(3, $tool->calls['inputSchema'], 'and per description mode');
        $r->schemas('openai');
        $r->schemas('openai', true);
        self::assertSame(3, $tool->calls['inputSchema']);

        $r->register([new ProbeTool('tool_b')]);
        self::assertSame(['tool_a', 'tool_b'], array_column($r->schemas('anthropic'), 'name'));
        self::assertSame(4, $tool->calls['inputSchema'], 'register() empties the cache');
    }

    public function testRegisterWithNoToolsStillEmptiesTheCache(): void
    {
        $tool = new ProbeTool('tool_a');
        $r = new ToolRegistry();
        $r->register([$tool]);
        $r->schemas('openai');
        $r->register([]);
        $r->schemas('openai');
        self::assertSame(2, $tool->calls['inputSchema']);
    }

    public function testIneligibleRoutingToolsAreLeftOutOfTheSchemas(): void
    {
        $in = new RoutedTool('routed_in', true);
        $out = new RoutedTool('routed_out', false);
        $r = new ToolRegistry();
        $r->register([new ProbeTool('plain'), $out, $in]);

        self::assertSame(['plain', 'routed_in'], array_column($r->schemas('anthropic'), 'name'));
        self::assertSame(['plain', 'routed_in'], array_map(static fn (array $s): string => $s['function']['name'], $r->schemas('groq')));
        self::assertSame(0, $out->calls['inputSchema']);
        self::assertSame(3, $r->count(), 'still registered');
        self::assertTrue($r->has('routed_out'));
    }

    public function testRoutingMetadataIsKeyedByLowercasedName(): void
    {
        $md = new ToolRoutingMetadata(domains: ['files']);
        $r = new ToolRegistry();
        $r->register([new ProbeTool('Plain'), new RoutedTool('File_Read', true, $md), new RoutedTool('Off', false)]);
        $all = $r->routingMetadata();
        self::assertSame(['file_read', 'off'], array_keys($all));
        self::assertSame($md, $all['file_read']);
        self::assertTrue($all['off']->isEmpty());
    }

    public function testTheAuthorizerIsBoundIntoAuthorizableToolsOnRegister(): void
    {
        $auth = new AllowAll();
        $guarded = new GuardedTool('guarded');
        $plain = new ProbeTool('plain');
        $denied = new GuardedTool('denied');
        $r = new ToolRegistry($auth);
        $r->register([$guarded, $plain, $denied], ['denied']);
        self::assertSame([$auth], $guarded->bound);
        self::assertSame([], $denied->bound, 'a denied tool is not bound');
        self::assertFalse($r->has('denied'));

        // Named argument, and no authorizer: nothing is bound.
        $unbound = new GuardedTool('unbound');
        (new ToolRegistry(authorizer: null))->register([$unbound]);
        (new ToolRegistry())->register([$unbound]);
        self::assertSame([], $unbound->bound);
    }

    public function testTheAuthorizerIsReadonly(): void
    {
        $r = new ToolRegistry(new AllowAll());
        $this->expectException(\Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $p->__construct([]);
        }, ToolRegistry::class, 'authorizer'));
        $r->__construct(null);
    }

    public function testDenyByNameAndByGroup(): void
    {
        $r = new ToolRegistry();
        $r->register([new ProbeTool('shell_exec'), new ProbeTool('file_read')], deny: ['shell_exec']);
        self::assertSame(['file_read'], $r->names());

        $r = new ToolRegistry();
        $r->register(
            [new ProbeTool('shell_exec'), new ProbeTool('http_request'), new ProbeTool('file_read')],
            deny: ['group:system'],
            groups: ['group:system' => ['shell_exec', 'http_request']],
        );
        self::assertSame(['file_read'], $r->names());

        $r = new ToolRegistry();
        $r->register([new ProbeTool('tool_a'), new ProbeTool('tool_b')], [], ['group:system' => ['tool_a']]);
        self::assertSame(['tool_a', 'tool_b'], $r->names(), 'an empty deny list denies nothing');
        self::assertSame([], $this->logged());
    }

    public function testAGroupMemberMatchingNoToolIsLoggedWithTheReferenceMessage(): void
    {
        $r = new ToolRegistry();
        $r->register(
            [new ProbeTool('shell_exec'), new ProbeTool('file_edit')],
            deny: ['group:writes'],
            groups: ['group:system' => ['shell_exec', 'http_get'], 'group:writes' => ['file_wirte', 'file_edit']],
        );
        self::assertSame([
            "phpClaw ToolRegistry: group 'group:system' references unregistered tool 'http_get', check for a name() mismatch.",
            "phpClaw ToolRegistry: group 'group:writes' references unregistered tool 'file_wirte', check for a name() mismatch.",
        ], $this->logged());
        self::assertSame(['shell_exec'], $r->names());
    }

    public function testNoWarningWhenEveryGroupMemberIsRegistered(): void
    {
        (new ToolRegistry())->register(
            [new ProbeTool('shell_exec'), new ProbeTool('http_request')],
            groups: ['group:system' => ['shell_exec', 'http_request']],
        );
        self::assertSame([], $this->logged());
    }

    public function testResetRunStateResetsOnlyResettableTools(): void
    {
        $a = new StatefulTool('a');
        $b = new StatefulTool('b');
        $r = new ToolRegistry();
        $r->register([$a, new ProbeTool('plain'), $b]);
        $r->resetRunState();
        $r->resetRunState();
        self::assertSame([2, 2], [$a->resets, $b->resets]);
    }

    /** @return iterable<string, array{\Closure}> */
    public static function wrongArguments(): iterable
    {
        yield 'register: not a tool' => [static fn (ToolRegistry $r) => $r->register(['nope'])];
        yield 'register: object that is not a tool' => [static fn (ToolRegistry $r) => $r->register([new \stdClass()])];
        yield 'register: tools not an array' => [static fn (ToolRegistry $r) => $r->register('x')];
        yield 'register: deny not an array' => [static fn (ToolRegistry $r) => $r->register([], 'x')];
        yield 'has: array' => [static fn (ToolRegistry $r) => $r->has([])];
        yield 'schemas: array provider' => [static fn (ToolRegistry $r) => $r->schemas([])];
        yield 'schemas: array lean' => [static fn (ToolRegistry $r) => $r->schemas('openai', [])];
        yield 'constructor: not an authorizer' => [static fn (ToolRegistry $r) => new ToolRegistry(new \stdClass())];
        yield 'toolFormat: null' => [static fn (ToolRegistry $r) => ToolRegistry::toolFormat(null)];
    }

    /**
     * @dataProvider wrongArguments
     */
    #[DataProvider('wrongArguments')]
    public function testWrongArgumentTypesRaiseTypeError(\Closure $call): void
    {
        $r = new ToolRegistry();
        $this->expectException(\TypeError::class);
        $call($r);
    }

    public function testWrongArgumentCountRaisesArgumentCountError(): void
    {
        $this->expectException(\ArgumentCountError::class);
        (new ToolRegistry())->register();
    }

    public function testTheNotAToolMessageNamesTheArgument(): void
    {
        try {
            (new ToolRegistry())->register([new ProbeTool('ok'), 42]);
            self::fail('no TypeError');
        } catch (\TypeError $e) {
            self::assertSame(
                'PhpClaw\\Tools\\ToolRegistry::register(): Argument #1 ($tools) must contain only PhpClaw\\Tools\\Contracts\\ToolInterface objects, int given',
                $e->getMessage(),
            );
        }
    }

    public function testAnExceptionFromAToolReachesTheCallerUnchanged(): void
    {
        $tool = new class ('boom') extends ProbeTool {
            public function inputSchema(): array
            {
                throw new \DomainException('schema failed');
            }
        };
        $r = new ToolRegistry();
        $r->register([$tool]);
        try {
            $r->schemas('openai');
            self::fail('no exception');
        } catch (\DomainException $e) {
            self::assertSame('schema failed', $e->getMessage());
        }
        // Nothing half-built was cached.
        $this->expectException(\DomainException::class);
        $r->schemas('openai');
    }

    public function testADestructorThatRegistersDuringRegisterIsSafe(): void
    {
        $r = new ToolRegistry();
        $r->register([new ReentrantTool('slot')]);
        ReentrantTool::$registry = $r;
        // Replacing 'slot' drops the old tool, whose destructor registers another tool.
        $r->register([new ProbeTool('slot', 'replacement')]);
        self::assertSame('replacement', $r->get('slot')->description());
        self::assertTrue($r->has('born_in_destructor'));
        self::assertSame(['slot', 'born_in_destructor'], $r->names());
    }

    public function testRegisteringFromInsideASchemaCallUsesTheSnapshot(): void
    {
        $r = new ToolRegistry();
        $tool = new class ('outer') extends ProbeTool {
            public ?ToolRegistry $registry = null;

            public function inputSchema(): array
            {
                if ($this->registry !== null) {
                    $registry = $this->registry;
                    $this->registry = null;
                    $registry->register([new ProbeTool('inner')]);
                }

                return ['type' => 'object'];
            }
        };
        $tool->registry = $r;
        $r->register([$tool]);
        self::assertSame(['outer'], array_column($r->schemas('anthropic'), 'name'));
        self::assertSame(['outer', 'inner'], $r->names());
    }
}
