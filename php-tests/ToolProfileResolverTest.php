<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\ToolProfileResolver;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;
use RuntimeException;
use TypeError;

/** PhpClaw\Tools\ToolProfileResolver, native: stage 1 (profiles) and "Denying tools". */
final class ToolProfileResolverTest extends TestCase
{
    private static function tool(string $name): ToolInterface
    {
        return new class ($name) implements ToolInterface {
            public function __construct(private readonly string $n)
            {
            }

            public function name(): string
            {
                return $this->n;
            }

            public function description(): string
            {
                return '';
            }

            public function inputSchema(): array
            {
                return ['type' => 'object', 'properties' => new \stdClass()];
            }

            public function execute(array $input): string
            {
                return '';
            }
        };
    }

    /** @param list<string> $names */
    private static function tools(array $names): array
    {
        return array_map(static fn (string $n): ToolInterface => self::tool($n), $names);
    }

    private static function names(array $tools): array
    {
        return array_map(static fn (ToolInterface $t): string => $t->name(), $tools);
    }

    public function testClassShape(): void
    {
        $c = new ReflectionClass(ToolProfileResolver::class);
        self::assertTrue($c->isFinal());
        self::assertTrue($c->isInternal());
        self::assertSame(['PROFILE_MINIMAL' => 'minimal', 'PROFILE_STANDARD' => 'standard', 'PROFILE_FULL' => 'full'], $c->getConstants());
        foreach (['resolve', 'filter', 'maxTools', 'requestBudget', 'skillContextChars', 'resolveNames'] as $m) {
            self::assertTrue($c->getMethod($m)->isStatic(), $m);
        }
    }

    /** @return array<string, array{string, string, string}> */
    public static function profiles(): array
    {
        return [
            'anthropic' => ['anthropic', 'claude-sonnet-4-20250514', 'full'],
            'openai' => ['openai', 'gpt-4o', 'full'],
            'gemini' => ['gemini', 'gemini-1.5-pro', 'full'],
            'mistral' => ['mistral', 'mistral-large', 'full'],
            'deepseek' => ['deepseek', 'deepseek-chat', 'full'],
            'unknown cohere' => ['cohere', 'command-r-plus', 'full'],
            'unknown fireworks' => ['fireworks', 'any-model', 'full'],
            'a medium pattern matters only locally' => ['together', 'mixtral-70b', 'full'],
            'provider compared exactly' => ['Ollama', 'qwen2.5:7b', 'full'],
            'empty' => ['', '', 'full'],
            'ollama 7b' => ['ollama', 'qwen2.5:7b', 'minimal'],
            'ollama 3b' => ['ollama', 'phi3:3b', 'minimal'],
            'ollama 8b' => ['ollama', 'llama3.2:8b', 'minimal'],
            'ollama 14b' => ['ollama', 'qwen2.5:14b', 'minimal'],
            'ollama 33b is no medium' => ['ollama', 'x-33b', 'minimal'],
            'ollama 70b' => ['ollama', 'llama3.1:70b', 'standard'],
            'ollama 72b' => ['ollama', 'deepseek-v2:72b', 'standard'],
            'ollama 65b' => ['ollama', 'qwen:65b', 'standard'],
            'ollama 30b' => ['ollama', 'x-30b', 'standard'],
            'ollama 32B upper case' => ['ollama', 'qwen2.5:32B', 'standard'],
            'ollama 34b' => ['ollama', 'x-34b', 'standard'],
            'ollama 35b' => ['ollama', 'x-35b', 'standard'],
            'substring, not token: 130b' => ['ollama', 'x-130b', 'standard'],
            'groq small' => ['groq', 'llama-3.1-8b-instant', 'minimal'],
            'groq large' => ['groq', 'llama-3.1-70b-versatile', 'standard'],
        ];
    }

    /**
     * @dataProvider profiles
     */
    #[DataProvider('profiles')]
    public function testProviderAndModelPickTheProfile(string $provider, string $model, string $expected): void
    {
        self::assertSame($expected, ToolProfileResolver::resolve($provider, $model));
    }

    public function testNumbersPerProfile(): void
    {
        $table = [
            // profile => [maxTools, requestBudget, skillContextChars]
            'minimal' => [5, 3000, 4000],
            'standard' => [8, 6000, 8000],
            'full' => [0, 0, 0],
            'nonexistent' => [0, 0, 0],
            'Minimal' => [0, 0, 0],
            '' => [0, 0, 0],
        ];
        foreach ($table as $profile => [$tools, $budget, $skill]) {
            self::assertSame($tools, ToolProfileResolver::maxTools($profile), "maxTools {$profile}");
            self::assertSame($budget, ToolProfileResolver::requestBudget($profile), "requestBudget {$profile}");
            self::assertSame($skill, ToolProfileResolver::skillContextChars($profile), "skillContextChars {$profile}");
        }
        self::assertSame(5, ToolProfileResolver::maxTools(ToolProfileResolver::resolve('ollama', 'qwen2.5:7b')));
        self::assertSame(8, ToolProfileResolver::maxTools(ToolProfileResolver::resolve('ollama', 'llama3.1:70b')));
    }

    public function testFilterAppliesTheDenyListOnlyAndNeverSlices(): void
    {
        $many = self::tools(array_map(static fn (int $i): string => "tool_{$i}", range(1, 13)));
        self::assertCount(13, ToolProfileResolver::filter($many));
        self::assertCount(13, ToolProfileResolver::filter($many, []));
        self::assertSame([], ToolProfileResolver::filter([]));
        self::assertSame($many, ToolProfileResolver::filter($many));
    }

    public function testFilterReindexesAndKeepsTheObjects(): void
    {
        $a = self::tool('tool_a');
        $b = self::tool('tool_b');
        $c = self::tool('tool_c');
        $out = ToolProfileResolver::filter(['x' => $a, 5 => $b, 9 => $c], ['tool_b']);
        self::assertSame([0, 1], array_keys($out));
        self::assertSame($a, $out[0]);
        self::assertSame($c, $out[1]);
        self::assertSame([$a, $b, $c], ToolProfileResolver::filter(['x' => $a, 5 => $b, 9 => $c]));
    }

    public function testDenyNames(): void
    {
        $t = self::tools(['tool_a', 'tool_b', 'tool_c', 'tool_d']);
        self::assertSame(['tool_a', 'tool_c', 'tool_d'], self::names(ToolProfileResolver::filter($t, ['tool_b'])));
        self::assertSame(['tool_a', 'tool_c'], self::names(ToolProfileResolver::filter($t, ['tool_b', 'tool_d'])));
        self::assertCount(4, ToolProfileResolver::filter($t, ['tool_z']));
        // Names compare exactly.
        self::assertCount(4, ToolProfileResolver::filter($t, ['TOOL_A']));
        $ten = self::tools(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10']);
        $out = self::names(ToolProfileResolver::filter($ten, ['t3']));
        self::assertCount(9, $out);
        self::assertNotContains('t3', $out);
        self::assertContains('t6', $out);
    }

    public function testDenyGroups(): void
    {
        $groups = ['group:system' => ['database', 'logs']];
        $t = self::tools(['posts', 'users', 'database', 'logs', 'media']);
        self::assertSame(['posts', 'users', 'media'], self::names(ToolProfileResolver::filter($t, ['group:system'], $groups)));
        self::assertSame(['posts', 'users'], self::names(ToolProfileResolver::filter($t, ['group:system', 'media'], $groups)));
        // An unknown group reference is just a tool name.
        $t = self::tools(['posts', 'users', 'group:unknown']);
        self::assertSame(['posts', 'users'], self::names(ToolProfileResolver::filter($t, ['group:unknown'], $groups)));
    }

    public function testTheSpecsDenyExample(): void
    {
        $t = self::tools(['shell_exec', 'file_read', 'file_write', 'file_edit', 'code_search']);
        $out = ToolProfileResolver::filter(
            $t,
            deny: ['shell_exec', 'group:writes'],
            groups: ['group:writes' => ['file_write', 'file_edit']],
        );
        self::assertSame(['file_read', 'code_search'], self::names($out));
    }

    public function testATypoInAGroupDeniesNothingSilently(): void
    {
        $t = self::tools(['file_write', 'file_edit']);
        $errors = [];
        set_error_handler(static function (int $no, string $msg) use (&$errors): bool {
            $errors[] = $msg;

            return true;
        });
        try {
            $out = ToolProfileResolver::filter($t, ['group:writes'], ['group:writes' => ['file_wirte', 'file_edit']]);
        } finally {
            restore_error_handler();
        }
        self::assertSame(['file_write'], self::names($out));
        self::assertSame([], $errors);
        // A typo in the deny entry itself denies nothing either.
        self::assertCount(2, ToolProfileResolver::filter($t, ['group:wirtes'], ['group:writes' => ['file_write']]));
    }

    public function testResolveNames(): void
    {
        $groups = ['group:w' => ['file_write', 'file_edit'], 'group:z' => ['zip_package']];
        self::assertSame(
            ['shell_exec', 'file_write', 'file_edit', 'zip_package'],
            ToolProfileResolver::resolveNames(['shell_exec', 'group:w', 'shell_exec', 'group:z', 'zip_package'], $groups),
        );
        self::assertSame([], ToolProfileResolver::resolveNames([], $groups));
        self::assertSame(['a', 'b'], ToolProfileResolver::resolveNames(['a', 'b', 'a'], []));
        // A null group is no group.
        self::assertSame(['group:n'], ToolProfileResolver::resolveNames(['group:n'], ['group:n' => null]));
    }

    public function testNameIsCalledOnEveryToolAndItsExceptionPassesThrough(): void
    {
        $boom = new class () implements ToolInterface {
            public function name(): string
            {
                throw new RuntimeException('no name');
            }

            public function description(): string
            {
                return '';
            }

            public function inputSchema(): array
            {
                return [];
            }

            public function execute(array $input): string
            {
                return '';
            }
        };
        // Without a deny list no name is asked for.
        self::assertSame([$boom], ToolProfileResolver::filter([$boom]));
        $this->expectException(RuntimeException::class);
        $this->expectExceptionMessage('no name');
        ToolProfileResolver::filter([self::tool('a'), $boom], ['a']);
    }

    public function testANonToolIsATypeErrorWhenADenyListIsGiven(): void
    {
        self::assertSame(['x'], ToolProfileResolver::filter(['x']));
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage('must contain only PhpClaw\\Tools\\Contracts\\ToolInterface objects, string given');
        ToolProfileResolver::filter(['x'], ['a']);
    }

    public function testWrongArgumentTypes(): void
    {
        foreach ([
            static fn () => ToolProfileResolver::resolve([], 'm'),
            static fn () => ToolProfileResolver::maxTools([]),
            static fn () => ToolProfileResolver::filter('tools'),
            static fn () => ToolProfileResolver::filter([], 'deny'),
            static fn () => ToolProfileResolver::resolveNames([], 'groups'),
        ] as $i => $call) {
            try {
                $call();
                self::fail("call {$i} did not throw");
            } catch (TypeError $e) {
                self::assertStringContainsString('must be of type', $e->getMessage());
            }
        }
    }
}
