<?php

declare(strict_types=1);

namespace PhpClawTests;

use Exception;
use LogicException;
use PhpClaw\Exceptions\PhpClawException;
use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Exceptions\ToolException;
use PhpClawTests\Fixtures\AdapterToolException;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;
use ReflectionFunction;
use RuntimeException;
use Throwable;

/** phpClaw's three exception classes: hierarchy, the Exception state, userland subclasses. */
final class ExceptionsTest extends TestCase
{
    /** @return iterable<string, array{class-string, class-string, bool}> */
    public static function hierarchy(): iterable
    {
        yield 'PhpClawException' => [PhpClawException::class, RuntimeException::class, false];
        yield 'ToolException' => [ToolException::class, PhpClawException::class, false];
        yield 'ShellDeniedException' => [ShellDeniedException::class, ToolException::class, true];
    }

    /**
     * @dataProvider hierarchy
     */
    #[DataProvider('hierarchy')]
    public function testHierarchy(string $class, string $parent, bool $final): void
    {
        $ref = new ReflectionClass($class);
        self::assertSame($parent, $ref->getParentClass()->getName());
        self::assertTrue($ref->isInternal());
        self::assertSame('phpclaw', $ref->getExtensionName());
        self::assertSame($final, $ref->isFinal());
        self::assertFalse($ref->isAbstract());
        self::assertTrue($ref->isInstantiable());
        self::assertTrue($ref->implementsInterface(Throwable::class));
        $e = new $class('m');
        self::assertInstanceOf(RuntimeException::class, $e);
        self::assertInstanceOf(Exception::class, $e);
        self::assertNotInstanceOf(LogicException::class, $e);
    }

    /**
     * @dataProvider hierarchy
     */
    #[DataProvider('hierarchy')]
    public function testExceptionStateIsComplete(string $class): void
    {
        $previous = new LogicException('cause');
        $line = __LINE__ + 1;
        $e = new $class('went wrong', 17, $previous);
        self::assertSame('went wrong', $e->getMessage());
        self::assertSame(17, $e->getCode());
        self::assertSame($previous, $e->getPrevious());
        self::assertSame(__FILE__, $e->getFile());
        self::assertSame($line, $e->getLine());
        self::assertSame(__FUNCTION__, $e->getTrace()[0]['function']);
        self::assertSame(self::class, $e->getTrace()[0]['class']);
        self::assertStringContainsString(__FUNCTION__, $e->getTraceAsString());
        self::assertStringStartsWith('LogicException: cause', (string) $e);
        self::assertStringContainsString("\nNext $class: went wrong in " . __FILE__ . ':' . $line, (string) $e);
    }

    /**
     * @dataProvider hierarchy
     */
    #[DataProvider('hierarchy')]
    public function testDefaultsAndNamedArguments(string $class): void
    {
        $e = new $class();
        self::assertSame('', $e->getMessage());
        self::assertSame(0, $e->getCode());
        self::assertNull($e->getPrevious());
        $cause = new Exception('c');
        $named = new $class(previous: $cause, message: 'named');
        self::assertSame('named', $named->getMessage());
        self::assertSame($cause, $named->getPrevious());
    }

    /**
     * @dataProvider hierarchy
     */
    #[DataProvider('hierarchy')]
    public function testThrownAndCaughtAsItsAncestors(string $class): void
    {
        $line = 0;
        try {
            $line = __LINE__ + 1;
            throw new $class('thrown');
        } catch (RuntimeException $caught) {
            self::assertInstanceOf($class, $caught);
            self::assertSame($line, $caught->getLine());
        }
        try {
            throw new $class('thrown');
        } catch (PhpClawException $caught) {
            self::assertSame('thrown', $caught->getMessage());
        }
    }

    public function testShellDeniedIsCaughtAsToolException(): void
    {
        $this->expectException(ToolException::class);
        $this->expectExceptionMessage('rm is blocked');
        throw new ShellDeniedException('rm is blocked');
    }

    public function testUserlandSubclassOfToolException(): void
    {
        $cause = new RuntimeException('io');
        $line = __LINE__ + 1;
        $e = new AdapterToolException('adapter failed', 'drupal_cache', $cause);
        self::assertInstanceOf(ToolException::class, $e);
        self::assertInstanceOf(PhpClawException::class, $e);
        self::assertSame('drupal_cache', $e->tool);
        self::assertSame(42, $e->getCode());
        self::assertSame($cause, $e->getPrevious());
        self::assertSame($line, $e->getLine());
        self::assertFalse((new ReflectionClass($e))->isInternal());
    }

    public function testAnonymousSubclass(): void
    {
        $e = new class('anon') extends PhpClawException {
        };
        self::assertInstanceOf(PhpClawException::class, $e);
        self::assertSame('anon', $e->getMessage());
    }

    public function testShellDeniedExceptionCannotBeExtended(): void
    {
        $run = Subprocess::withModule('<?php class Mine extends PhpClaw\Exceptions\ShellDeniedException {} echo "declared";');
        self::assertNotSame(0, $run['code']);
        self::assertStringNotContainsString('declared', $run['stdout']);
        self::assertStringContainsString(
            'Class Mine cannot extend final class PhpClaw\Exceptions\ShellDeniedException',
            $run['stderr'] . $run['stdout'],
        );
    }

    public function testToolExceptionAndPhpClawExceptionCanBeExtended(): void
    {
        $run = Subprocess::withModule('<?php class A extends PhpClaw\Exceptions\ToolException {} class B extends PhpClaw\Exceptions\PhpClawException {} echo get_parent_class(new A), "|", get_parent_class(new B);');
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertSame('PhpClaw\Exceptions\ToolException|PhpClaw\Exceptions\PhpClawException', $run['stdout']);
    }

    public function testExceptionsSerializeAndCompareLikeRuntimeException(): void
    {
        $e = new ToolException('serialised', 3);
        $copy = unserialize(serialize($e));
        self::assertInstanceOf(ToolException::class, $copy);
        self::assertSame('serialised', $copy->getMessage());
        self::assertSame(3, $copy->getCode());
        self::assertSame($e->getLine(), $copy->getLine());
    }

    public function testExceptionsCannotBeCloned(): void
    {
        $this->expectException(\Error::class);
        $this->expectExceptionMessage('Trying to clone an uncloneable object of class PhpClaw\Exceptions\ToolException');
        $e = new ToolException('x');
        $clone = clone $e;
        self::assertNotSame($e, $clone);
    }

    public function testThrownFromAFunctionKeepsItsOwnLineAndTrace(): void
    {
        $make = static function (): ToolException {
            return new ToolException('made');
        };
        $line = __LINE__ - 2;
        $e = $make();
        self::assertSame($line, $e->getLine());
        // PHP names closures differently across versions (8.4 adds the place): ask PHP for it.
        $name = (new ReflectionFunction($make))->getName();
        self::assertStringContainsString('{closure', $name);
        self::assertSame($name, $e->getTrace()[0]['function']);
    }
}
