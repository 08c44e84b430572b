<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Contracts\MutatingToolInterface;
use PhpClaw\Tools\Contracts\PerInvocationMutabilityInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ToolMutability;
use PHPUnit\Framework\TestCase;

/** The native ToolMutability::isApprovalRequired() against real tool objects. */
final class ToolMutabilityTest extends TestCase
{
    private static function plain(): ToolInterface
    {
        return new class () implements ToolInterface {
            public function name(): string
            {
                return 'plain';
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
    }

    private static function mutating(): ToolInterface
    {
        return new class () implements ToolInterface, MutatingToolInterface {
            public function name(): string
            {
                return 'mutating';
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
    }

    /** A per-invocation tool that is also marked mutating: the per-call answer wins. */
    private static function perCall(?\Throwable $throw = null): ToolInterface
    {
        return new class ($throw) implements ToolInterface, PerInvocationMutabilityInterface, MutatingToolInterface {
            /** @var list<array<mixed>> */
            public array $seen = [];

            public function __construct(private ?\Throwable $throw)
            {
            }

            public function name(): string
            {
                return 'per_call';
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

            public function isMutating(array $input): bool
            {
                $this->seen[] = $input;
                if ($this->throw) {
                    throw $this->throw;
                }
                return ($input['cmd'] ?? '') === 'rm';
            }
        };
    }

    public function testClassShape(): void
    {
        $class = new \ReflectionClass(ToolMutability::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        $method = $class->getMethod('isApprovalRequired');
        self::assertTrue($method->isStatic());
        self::assertSame('bool', (string) $method->getReturnType());
        self::assertSame(['tool', 'input'], array_map(fn ($p) => $p->getName(), $method->getParameters()));
        self::assertSame('?PhpClaw\\Tools\\Contracts\\ToolInterface', (string) $method->getParameters()[0]->getType());
    }

    public function testNoToolNeedsNoApproval(): void
    {
        self::assertFalse(ToolMutability::isApprovalRequired(null, ['x' => 1]));
    }

    public function testPlainAndNativeReadOnlyToolsNeedNoApproval(): void
    {
        self::assertFalse(ToolMutability::isApprovalRequired(self::plain(), []));
        self::assertFalse(ToolMutability::isApprovalRequired(new FileReadTool(sys_get_temp_dir()), ['path' => 'x']));
    }

    public function testMutatingToolNeedsApproval(): void
    {
        self::assertTrue(ToolMutability::isApprovalRequired(self::mutating(), []));
    }

    public function testPerInvocationToolDecidesWithTheInput(): void
    {
        $tool = self::perCall();
        self::assertTrue(ToolMutability::isApprovalRequired($tool, ['cmd' => 'rm']));
        self::assertFalse(ToolMutability::isApprovalRequired($tool, ['cmd' => 'ls']));
        self::assertSame([['cmd' => 'rm'], ['cmd' => 'ls']], $tool->seen);
    }

    public function testExceptionFromIsMutatingPassesThrough(): void
    {
        $boom = new \RuntimeException('boom');
        try {
            ToolMutability::isApprovalRequired(self::perCall($boom), []);
            self::fail('expected the exception');
        } catch (\RuntimeException $e) {
            self::assertSame($boom, $e);
        }
    }

    public function testArgumentTypes(): void
    {
        try {
            ToolMutability::isApprovalRequired(new \stdClass(), []);
            self::fail('expected TypeError');
        } catch (\TypeError $e) {
            self::assertStringContainsString('must be of type ?PhpClaw\\Tools\\Contracts\\ToolInterface, stdClass given', $e->getMessage());
        }
        try {
            ToolMutability::isApprovalRequired(null, 'x');
            self::fail('expected TypeError');
        } catch (\TypeError $e) {
            self::assertStringContainsString('must be of type array, string given', $e->getMessage());
        }
        $this->expectException(\ArgumentCountError::class);
        ToolMutability::isApprovalRequired(null);
    }
}
