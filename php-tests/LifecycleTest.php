<?php

declare(strict_types=1);

namespace PhpClawTests;

use ArgumentCountError;
use DomainException;
use Error;
use Exception;
use JsonException;
use PhpClaw\Exceptions\PhpClawException;
use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Concerns\HasCoreToolBinding;
use PhpClaw\Tools\Concerns\HasToolExecutionContract;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClawTests\Fixtures\AcmePlatform;
use PhpClawTests\Fixtures\AdapterToolException;
use PhpClawTests\Fixtures\AcmeReportTool;
use PhpClawTests\Fixtures\ChildCoreTool;
use PhpClawTests\Fixtures\ContractTool;
use PhpClawTests\Fixtures\CoreTool;
use PhpClawTests\Fixtures\FixtureAuthorizer;
use PhpClawTests\Fixtures\HookedContractTool;
use PhpClawTests\Fixtures\HookedCoreTool;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use PhpClawTests\Support\Heap;
use ReflectionClass;
use ReflectionMethod;
use ReflectionProperty;
use RuntimeException;
use stdClass;
use Throwable;
use TypeError;

use function PhpClawTests\Fixtures\weak_call;
use function PhpClawTests\Fixtures\weak_int;
use function PhpClawTests\Fixtures\weak_string;

/**
 * The native lifecycle traits driven by real PHP tool classes (php-tests/fixtures/Tools.php):
 * every path of execute(), every helper, both bindings, overrides and failures.
 */
final class LifecycleTest extends TestCase
{
    private const FIXTURE = 'PhpClawTests\\Fixtures\\';

    /** @return iterable<string, array{class-string}> */
    public static function bindings(): iterable
    {
        yield 'contract' => [ContractTool::class];
        yield 'core' => [CoreTool::class];
    }

    /** @return iterable<string, array{class-string}> */
    public static function hookedBindings(): iterable
    {
        yield 'contract' => [HookedContractTool::class];
        yield 'core' => [HookedCoreTool::class];
    }

    private static function retryable(string $message = 'infrastructure'): ToolException
    {
        return new ToolException($message, 0, new RuntimeException('cause'));
    }

    /** A perform hook that throws the given exceptions in turn, then returns $result. */
    private static function failing(array $exceptions, array $result = ['ok' => true]): \Closure
    {
        return static function () use (&$exceptions, $result): array {
            if ($exceptions !== []) {
                throw array_shift($exceptions);
            }

            return $result;
        };
    }

    // ------------------------------------------------------------------ the lifecycle paths

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testHappyPathRunsEachStepOnceInOrder(string $class): void
    {
        $tool = new $class();
        $json = $tool->execute(['q' => 'x']);
        self::assertSame('{"success":true,"data":{"echo":{"q":"x"}},"meta":{"mode":"test"},"warnings":[]}', $json);
        self::assertSame(['plan', 'perform', 'verify', 'complete'], $tool->log);
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testPlanInputIsWhatTheOtherStepsReceive(string $class): void
    {
        $tool = new $class();
        $seen = [];
        $tool->hooks['plan'] = fn (array $in) => ['input' => ['normalised' => $in['raw'] * 2], 'result' => null];
        $tool->hooks['perform'] = function (array $in) use (&$seen) {
            $seen['perform'] = $in;

            return ['exec' => 1];
        };
        $tool->hooks['verify'] = function (array $exec, array $in) use (&$seen) {
            $seen['verify'] = [$exec, $in];

            return ['result' => null];
        };
        $tool->hooks['complete'] = function (array $exec, array $in) use (&$seen) {
            $seen['complete'] = [$exec, $in];

            return 'done';
        };
        self::assertSame('done', $tool->execute(['raw' => 21]));
        self::assertSame([
            'perform' => ['normalised' => 42],
            'verify' => [['exec' => 1], ['normalised' => 42]],
            'complete' => [['exec' => 1], ['normalised' => 42]],
        ], $seen);
    }

    /** @return iterable<string, array{class-string, mixed}> */
    public static function planResults(): iterable
    {
        foreach (['contract' => ContractTool::class, 'core' => CoreTool::class] as $b => $class) {
            yield "$b string" => [$class, '{"early":true}'];
            yield "$b empty string" => [$class, ''];
            yield "$b zero string" => [$class, '0'];
        }
    }

    /**
     * @dataProvider planResults
     */
    #[DataProvider('planResults')]
    public function testPlanResultShortCircuits(string $class, string $result): void
    {
        $tool = new $class();
        $tool->hooks['plan'] = fn (array $in) => ['input' => $in, 'result' => $result];
        self::assertSame($result, $tool->execute([]));
        self::assertSame(['plan'], $tool->log);
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testPlanWithoutResultKeyCarriesOn(string $class): void
    {
        $tool = new $class();
        $tool->hooks['plan'] = fn (array $in) => ['input' => $in];
        $tool->hooks['complete'] = fn () => 'completed';
        self::assertSame('completed', $tool->execute([]));
        self::assertSame(['plan', 'perform', 'verify', 'complete'], $tool->log);
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testVerifyResultShortCircuits(string $class): void
    {
        $tool = new $class();
        $tool->hooks['verify'] = fn () => ['result' => 'verified early'];
        self::assertSame('verified early', $tool->execute([]));
        self::assertSame(['plan', 'perform', 'verify'], $tool->log);
    }

    /** @return iterable<string, array{class-string, mixed, string}> */
    public static function malformedPlans(): iterable
    {
        $input = '::plan() must return an array with an array "input" and a string or null "result".';
        $result = '::plan() must return an array whose "result" is a string or null.';
        foreach (['contract' => ContractTool::class, 'core' => CoreTool::class] as $b => $class) {
            yield "$b missing input" => [$class, ['result' => null], $input];
            yield "$b empty array" => [$class, [], $input];
            yield "$b input not an array" => [$class, ['input' => 'x', 'result' => null], $input];
            yield "$b input null" => [$class, ['input' => null, 'result' => null], $input];
            yield "$b result an int" => [$class, ['input' => [], 'result' => 5], $result];
            yield "$b result an array" => [$class, ['input' => [], 'result' => ['x']], $result];
        }
    }

    /**
     * @dataProvider malformedPlans
     * @param array<string, mixed> $plan
     */
    #[DataProvider('malformedPlans')]
    public function testMalformedPlanGivesAClearToolException(string $class, array $plan, string $message): void
    {
        $tool = new $class();
        $tool->hooks['plan'] = fn () => $plan;
        try {
            $tool->execute([]);
            self::fail('a malformed plan() was accepted');
        } catch (ToolException $e) {
            self::assertSame($class . $message, $e->getMessage());
            self::assertNull($e->getPrevious());
        }
        self::assertSame(['plan'], $tool->log, 'a plan failure is never recovered');
    }

    // ------------------------------------------------------------------ recovery

    public function testContractRetriesAToolExceptionWithPreviousOnce(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['perform'] = self::failing([self::retryable()]);
        self::assertSame('{"success":true,"data":{"ok":true},"meta":{"mode":"test"},"warnings":[]}', $tool->execute([]));
        self::assertSame([
            'plan', 'perform', 'maxRecoveryAttempts', 'recover', 'isRetryableInfrastructureFailure',
            'perform', 'verify', 'complete', 'success', 'encodeResult',
        ], $tool->log);
    }

    public function testContractRethrowsTheSecondFailureUnchanged(): void
    {
        $tool = new ContractTool();
        $first = self::retryable('first');
        $second = self::retryable('second');
        $tool->hooks['perform'] = self::failing([$first, $second]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($second, $e);
        }
        self::assertSame(['plan', 'perform', 'perform'], $tool->log);
    }

    /** @return iterable<string, array{class-string}> */
    public static function toolFailuresWithoutPrevious(): iterable
    {
        yield 'ToolException' => [ToolException::class];
        yield 'ShellDeniedException' => [ShellDeniedException::class];
        yield 'userland subclass' => [AdapterToolException::class];
    }

    /**
     * @dataProvider toolFailuresWithoutPrevious
     */
    #[DataProvider('toolFailuresWithoutPrevious')]
    public function testContractDoesNotRetryAToolExceptionWithoutPrevious(string $exceptionClass): void
    {
        $tool = new HookedContractTool();
        $failure = new $exceptionClass('not retryable');
        $tool->hooks['perform'] = self::failing([$failure]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($failure, $e);
        }
        self::assertSame(['plan', 'perform', 'maxRecoveryAttempts', 'recover', 'isRetryableInfrastructureFailure'], $tool->log);
    }

    public function testSubclassWithPreviousIsRetried(): void
    {
        $tool = new ContractTool();
        $tool->hooks['perform'] = self::failing([new ShellDeniedException('x', 0, new Exception('p'))]);
        $tool->execute([]);
        self::assertSame(['plan', 'perform', 'perform', 'verify', 'complete'], $tool->log);
    }

    public function testCoreNeverRetries(): void
    {
        $tool = new HookedCoreTool();
        $failure = self::retryable();
        $tool->hooks['perform'] = self::failing([$failure]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($failure, $e);
        }
        self::assertSame(['plan', 'perform', 'maxRecoveryAttempts'], $tool->log);
    }

    /** @return iterable<string, array{class-string, int}> */
    public static function defaultAttempts(): iterable
    {
        yield 'contract' => [ContractTool::class, 1];
        yield 'core' => [CoreTool::class, 0];
    }

    /**
     * @dataProvider defaultAttempts
     */
    #[DataProvider('defaultAttempts')]
    public function testDefaultMaxRecoveryAttempts(string $class, int $attempts): void
    {
        self::assertSame($attempts, (new $class())->call('maxRecoveryAttempts'));
    }

    /** @return iterable<string, array{string}> */
    public static function failingSteps(): iterable
    {
        yield 'perform' => ['perform'];
        yield 'verify' => ['verify'];
        yield 'complete' => ['complete'];
    }

    /**
     * @dataProvider failingSteps
     */
    #[DataProvider('failingSteps')]
    public function testToolFailuresFromEachLaterStepAreRecovered(string $step): void
    {
        $tool = new ContractTool();
        $normal = ['perform' => ['x' => 1], 'verify' => ['result' => null], 'complete' => 'completed'];
        $fail = true;
        $tool->hooks[$step] = function () use (&$fail, $normal, $step) {
            if ($fail) {
                $fail = false;
                throw new ToolException("$step failed", 0, new RuntimeException('cause'));
            }

            return $normal[$step];
        };
        $tool->hooks['complete'] ??= fn () => 'completed';
        self::assertSame('completed', $tool->execute([]));
        self::assertSame(2, count(array_keys($tool->log, 'perform')), 'the run was retried from perform()');
        self::assertSame(2, count(array_keys($tool->log, $step)));
    }

    public function testPlanToolFailureIsNeverRecovered(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['maxRecoveryAttempts'] = fn () => 5;
        $failure = self::retryable();
        $tool->hooks['plan'] = fn () => throw $failure;
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($failure, $e);
        }
        self::assertSame(['plan'], $tool->log);
    }

    public function testMaxRecoveryAttemptsOverrideAndAttemptNumbers(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['maxRecoveryAttempts'] = fn () => 3;
        $attempts = [];
        $tool->hooks['recover'] = function (ToolException $e, int $attempt) use (&$attempts) {
            $attempts[] = $attempt;

            return ['result' => null];
        };
        $last = self::retryable('fourth');
        $tool->hooks['perform'] = self::failing([self::retryable('1'), self::retryable('2'), self::retryable('3'), $last]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($last, $e);
        }
        self::assertSame([1, 2, 3], $attempts);
        self::assertSame(4, count(array_keys($tool->log, 'perform')));
        self::assertSame(4, count(array_keys($tool->log, 'maxRecoveryAttempts')), 'asked anew after each failure');
    }

    public function testMaxRecoveryAttemptsIsAskedAfterEachFailure(): void
    {
        $tool = new HookedContractTool();
        $answers = [2, 0];
        $tool->hooks['maxRecoveryAttempts'] = function () use (&$answers) {
            return array_shift($answers);
        };
        $second = self::retryable('second');
        $tool->hooks['perform'] = self::failing([self::retryable('first'), $second]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($second, $e, 'the second answer (0) stops the retries');
        }
    }

    public function testRecoverCanFinishTheRun(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['perform'] = self::failing([new ToolException('no previous')]);
        $tool->hooks['recover'] = fn (ToolException $e, int $attempt) => ['result' => "recovered from {$e->getMessage()} at $attempt"];
        self::assertSame('recovered from no previous at 1', $tool->execute([]));
        self::assertSame(['plan', 'perform', 'maxRecoveryAttempts', 'recover'], $tool->log);
    }

    public function testRecoverOverrideCanRetryANonRetryableFailure(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['perform'] = self::failing([new ToolException('no previous')]);
        $tool->hooks['recover'] = fn () => ['result' => null];
        $tool->execute([]);
        self::assertSame(2, count(array_keys($tool->log, 'perform')));
    }

    public function testIsRetryableOverrideWins(): void
    {
        $tool = new HookedContractTool();
        $tool->hooks['isRetryableInfrastructureFailure'] = fn (ToolException $e) => $e->getMessage() === 'transient';
        $tool->hooks['perform'] = self::failing([new ToolException('transient')]);
        $tool->execute([]);
        self::assertSame(2, count(array_keys($tool->log, 'perform')));

        $tool = new HookedContractTool();
        $tool->hooks['isRetryableInfrastructureFailure'] = fn () => false;
        $failure = self::retryable();
        $tool->hooks['perform'] = self::failing([$failure]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame($failure, $e);
        }
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testDefaultRecoverAndIsRetryable(string $class): void
    {
        $tool = new $class();
        self::assertTrue($tool->call('isRetryableInfrastructureFailure', self::retryable()));
        self::assertFalse($tool->call('isRetryableInfrastructureFailure', new ToolException('x')));
        self::assertSame(['result' => null], $tool->call('recover', self::retryable(), 1));
        $plain = new ToolException('plain');
        try {
            $tool->call('recover', $plain, 1);
            self::fail('recover() kept a non-retryable failure');
        } catch (ToolException $e) {
            self::assertSame($plain, $e);
            self::assertSame(__LINE__ - 6, $e->getLine());
        }
    }

    /** @return iterable<string, array{class-string, Throwable}> */
    public static function otherFailures(): iterable
    {
        foreach (['contract' => ContractTool::class, 'core' => CoreTool::class] as $b => $class) {
            yield "$b RuntimeException" => [$class, new RuntimeException('r')];
            yield "$b PhpClawException (parent of ToolException)" => [$class, new PhpClawException('p', 0, new Exception('prev'))];
            yield "$b Error" => [$class, new Error('e')];
            yield "$b TypeError" => [$class, new TypeError('t')];
            yield "$b JsonException" => [$class, new JsonException('j')];
        }
    }

    /**
     * @dataProvider otherFailures
     */
    #[DataProvider('otherFailures')]
    public function testOtherFailuresPassThroughUntouched(string $class, Throwable $failure): void
    {
        foreach (['perform', 'verify', 'complete'] as $step) {
            $tool = new $class();
            $tool->hooks[$step] = fn () => throw $failure;
            try {
                $tool->execute([]);
                self::fail('no exception');
            } catch (Throwable $e) {
                self::assertSame($failure, $e, $step);
                self::assertSame(1, count(array_keys($tool->log, 'perform')), "$step: not retried");
            }
        }
    }

    public function testAnEngineTypeErrorInsideAStepPassesThrough(): void
    {
        $tool = new ContractTool();
        $tool->hooks['perform'] = fn () => strlen([]);
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (TypeError $e) {
            self::assertSame('strlen(): Argument #1 ($string) must be of type string, array given', $e->getMessage());
        }
    }

    // ------------------------------------------------------------------ exceptions from every callback

    /** @return iterable<string, array{class-string, string}> */
    public static function callbacks(): iterable
    {
        $names = ['plan', 'perform', 'verify', 'complete', 'recover', 'maxRecoveryAttempts',
            'isRetryableInfrastructureFailure', 'runningInConsole', 'callerHasCapability',
            'requiredCapability', 'guardCapability', 'error', 'success', 'encodeResult'];
        foreach (['contract' => HookedContractTool::class, 'core' => HookedCoreTool::class] as $b => $class) {
            foreach ($names as $name) {
                yield "$b $name" => [$class, $name];
            }
        }
    }

    /**
     * @dataProvider callbacks
     */
    #[DataProvider('callbacks')]
    public function testAnExceptionFromEachCallbackReachesTheCallerUnchanged(string $class, string $callback): void
    {
        $tool = new $class();
        // Route the run through $callback.
        $tool->hooks['plan'] = fn (array $in) => ['input' => $in, 'result' => $tool->call('guardCapability', 'run the test')];
        if ($callback === 'error') {
            $tool->hooks['callerHasCapability'] = fn () => false;
        }
        if (in_array($callback, ['recover', 'maxRecoveryAttempts', 'isRetryableInfrastructureFailure'], true)) {
            $tool->hooks['perform'] = self::failing([self::retryable()]);
            if ($callback !== 'maxRecoveryAttempts') {
                $tool->hooks['maxRecoveryAttempts'] = fn () => 1;
            }
        }
        $thrown = null;
        $line = 0;
        $tool->hooks[$callback] = function () use (&$thrown, &$line, $callback) {
            $line = __LINE__ + 1;
            throw $thrown = new DomainException("thrown by $callback");
        };
        try {
            $tool->execute([]);
            self::fail("nothing reached the caller from $callback");
        } catch (DomainException $e) {
            self::assertSame($thrown, $e);
            self::assertSame($line, $e->getLine());
            self::assertSame(__FILE__, $e->getFile());
            self::assertNull($e->getPrevious());
        }
        self::assertContains($callback, $tool->log);
    }

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testAToolExceptionFromEncodeResultInsideCompleteIsRecovered(string $class): void
    {
        // A ToolException thrown while complete() runs is a tool failure like any other.
        $tool = new $class();
        $tool->hooks['encodeResult'] = self::failing([self::retryable('encode once')], []);
        $tool->hooks['encodeResult'] = (function () {
            $fail = true;

            return function () use (&$fail) {
                if ($fail) {
                    $fail = false;
                    throw new ToolException('encode once', 0, new RuntimeException('cause'));
                }

                return 'encoded';
            };
        })();
        if ($class === HookedContractTool::class) {
            self::assertSame('encoded', $tool->execute([]));
            self::assertSame(2, count(array_keys($tool->log, 'complete')));
        } else {
            $this->expectException(ToolException::class);
            $this->expectExceptionMessage('encode once');
            $tool->execute([]);
        }
    }

    public function testTheEncodeFailureOfTheContractIsRetriedOnceThenSurfaces(): void
    {
        $tool = new ContractTool();
        $tool->hooks['perform'] = fn () => ['bad' => "\xB1\x31"];
        try {
            $tool->execute([]);
            self::fail('invalid UTF-8 was encoded');
        } catch (ToolException $e) {
            self::assertSame('Unable to encode tool response.', $e->getMessage());
            self::assertInstanceOf(JsonException::class, $e->getPrevious());
        }
        self::assertSame(['plan', 'perform', 'verify', 'complete', 'perform', 'verify', 'complete'], $tool->log);
    }

    public function testAnExceptionFromTheAuthorizerReachesTheCaller(): void
    {
        $tool = new CoreTool();
        $thrown = new DomainException('authorizer down');
        $tool->withAuthorizer(new FixtureAuthorizer(allows: fn () => throw $thrown));
        $tool->hooks['plan'] = fn (array $in) => ['input' => $in, 'result' => $tool->call('guardCapability', 'x')];
        try {
            $tool->execute([]);
            self::fail('no exception');
        } catch (DomainException $e) {
            self::assertSame($thrown, $e);
        }
        try {
            $tool->isEligibleForRouting();
            self::fail('no exception');
        } catch (DomainException $e) {
            self::assertSame($thrown, $e);
        }
    }

    public function testExceptionFromToolLabelInsideLogExecutionError(): void
    {
        $tool = new HookedContractTool();
        $thrown = new DomainException('label');
        $tool->hooks['toolLabel'] = fn () => throw $thrown;
        try {
            $tool->call('logExecutionError', new Exception('m'));
            self::fail('no exception');
        } catch (DomainException $e) {
            self::assertSame($thrown, $e);
        }
    }

    // ------------------------------------------------------------------ overrides win

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testSuccessGoesThroughAnEncodeResultOverride(string $class): void
    {
        $tool = new $class();
        $tool->hooks['encodeResult'] = fn (array $r) => 'custom:' . implode(',', array_keys($r));
        self::assertSame('custom:success,data,meta,warnings', $tool->call('success', ['a' => 1], []));
        self::assertSame('custom:success,error,data,meta,warnings', $tool->call('error', 'C', 'M'));
        self::assertSame('custom:success,data,meta,warnings', $tool->execute([]));
    }

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testEncodeResultOverrideReceivesTheEnvelopeArray(string $class): void
    {
        $tool = new $class();
        $got = null;
        $tool->hooks['encodeResult'] = function (array $r) use (&$got) {
            $got = $r;

            return 'x';
        };
        $tool->call('success', ['d' => 1], ['m' => 2], [['w' => 3]]);
        self::assertSame(['success' => true, 'data' => ['d' => 1], 'meta' => ['m' => 2], 'warnings' => [['w' => 3]]], $got);
        $tool->call('error', 'CODE', 'msg', ['hint' => 'h']);
        self::assertSame([
            'success' => false,
            'error' => ['code' => 'CODE', 'message' => 'msg', 'hint' => 'h'],
            'data' => null,
            'meta' => ['mode' => 'error'],
            'warnings' => [],
        ], $got);
    }

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testNativeHelpersGoThroughAnErrorOverride(string $class): void
    {
        $tool = new $class();
        $tool->hooks['error'] = fn (string $code, string $message, array $context = []) => "ERR|$code|$message|" . json_encode($context);
        $tool->hooks['callerHasCapability'] = fn () => false;
        self::assertStringStartsWith('ERR|FORBIDDEN|', $tool->call('guardCapability', 'act'));
        self::assertSame('ERR|UNKNOWN_ARGUMENT|Unknown argument "z".|{"accepted_arguments":["a"]}', $tool->call('rejectUnknownArguments', ['z' => 1], ['a']));
        self::assertSame('ERR|INVALID_LIMIT|"limit" must be an integer between 1 and 5.|[]', $tool->call('validatePaging', ['limit' => 6], 5, 5));
        self::assertSame('ERR|INVALID_OFFSET|"offset" must be an integer between 0 and 5.|[]', $tool->call('validatePaging', ['offset' => 6], 5, 5));
    }

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testGuardCapabilityOverrideWins(string $class): void
    {
        $tool = new $class();
        $tool->hooks['guardCapability'] = fn (string $subject) => "guarded: $subject";
        $tool->hooks['plan'] = fn (array $in) => ['input' => $in, 'result' => $tool->call('guardCapability', 'x')];
        self::assertSame('guarded: x', $tool->execute([]));
    }

    /**
     * @dataProvider hookedBindings
     */
    #[DataProvider('hookedBindings')]
    public function testToolLabelOverrideIsUsedByLogExecutionError(string $class): void
    {
        $tool = new $class();
        $tool->hooks['toolLabel'] = fn () => 'CustomLabel';
        $log = $this->captureErrorLog(fn () => $tool->call('logExecutionError', new Exception('boom')));
        self::assertSame(['phpClaw CustomLabel execution failed: boom'], $log);
    }

    public function testOverrideDeclaredInTheClassItselfWins(): void
    {
        $tool = new class () implements ToolInterface {
            use HasToolExecutionContract;

            public function name(): string
            {
                return 'anon';
            }

            public function description(): string
            {
                return '';
            }

            public function inputSchema(): array
            {
                return [];
            }

            public function requiredCapability(): string
            {
                return 'c';
            }

            protected function runningInConsole(): bool
            {
                return false;
            }

            protected function callerHasCapability(string $capability): bool
            {
                return false;
            }

            protected function plan(array $input): array
            {
                return ['input' => $input, 'result' => $input['guard'] ?? false ? $this->guardCapability('go') : null];
            }

            protected function perform(array $input): array
            {
                return $input;
            }

            protected function verify(array $execution, array $input): array
            {
                return ['result' => null];
            }

            protected function complete(array $execution, array $input): string
            {
                return $this->success($execution, []);
            }

            protected function encodeResult(array $result): string
            {
                return 'class-level:' . json_encode($result);
            }

            protected function maxRecoveryAttempts(): int
            {
                return 7;
            }
        };
        self::assertSame('class-level:{"success":true,"data":{"a":1},"meta":[],"warnings":[]}', $tool->execute(['a' => 1]));
        self::assertStringStartsWith('class-level:{"success":false,"error":{"code":"FORBIDDEN"', $tool->execute(['guard' => true]));
        self::assertSame(7, (fn () => $this->maxRecoveryAttempts())->call($tool));
        self::assertFalse((new ReflectionMethod($tool, 'encodeResult'))->isInternal());
        self::assertTrue((new ReflectionMethod($tool, 'success'))->isInternal());
    }

    public function testAliasesWithChangedVisibility(): void
    {
        $run = Subprocess::withModule('<?php
            require ' . var_export(__DIR__ . '/fixtures/Tools.php', true) . ';
            final class Aliased implements PhpClaw\Tools\Contracts\ToolInterface {
                use PhpClawTests\Fixtures\Hooks, PhpClawTests\Fixtures\Steps, PhpClawTests\Fixtures\Platform;
                use PhpClaw\Tools\Concerns\HasToolExecutionContract { success as public; execute as protected runTool; encodeResult as public encodePublic; }
                public function run(array $i): string { return $this->runTool($i); }
            }
            $a = new Aliased;
            echo $a->success(["a" => "&amp;"], []), "|", $a->run(["x" => 1]), "|", $a->encodePublic(["b" => "&lt;"]), "|",
                (new ReflectionMethod("Aliased", "runTool"))->isProtected() ? "protected" : "public";');
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertSame('{"success":true,"data":{"a":"&"},"meta":[],"warnings":[]}|{"success":true,"data":{"echo":{"x":1}},"meta":{"mode":"test"},"warnings":[]}|{"b":"<"}|protected', $run['stdout']);
    }
    public function testDecodeEntitiesRecursivelyOverrideIsUsedByEncodeResult(): void
    {
        // In phpClaw's trait encodeResult() calls self::decodeEntitiesRecursively(), so a class
        // that declares its own (private static) version changes what the contract encodes.
        $tool = new class () implements ToolInterface {
            use \PhpClawTests\Fixtures\Hooks;
            use HasToolExecutionContract;
            use \PhpClawTests\Fixtures\Steps;
            use \PhpClawTests\Fixtures\Platform;

            private static function decodeEntitiesRecursively(mixed $value): mixed
            {
                return is_array($value) ? array_map(self::decodeEntitiesRecursively(...), $value) : (is_string($value) ? strtoupper($value) : $value);
            }
        };
        self::assertSame('{"s":"&AMP;"}', $tool->call('encodeResult', ['s' => '&amp;']));
    }

    public function testCoreOverridesOfThePlatformAnswersWin(): void
    {
        $tool = new HookedCoreTool();
        $tool->hooks['runningInConsole'] = fn () => false;
        $tool->hooks['callerHasCapability'] = fn (string $capability) => $capability === 'custom_cap';
        $tool->hooks['requiredCapability'] = fn () => 'custom_cap';
        self::assertTrue($tool->isEligibleForRouting());
        self::assertNull($tool->call('guardCapability', 'x'));
        $tool->hooks['requiredCapability'] = fn () => 'other_cap';
        self::assertFalse($tool->isEligibleForRouting());
        self::assertStringContainsString('No authenticated caller was identified', (string) $tool->call('guardCapability', 'x'));
        $tool->hooks['runningInConsole'] = fn () => true;
        self::assertTrue($tool->isEligibleForRouting());
        self::assertNull($tool->call('guardCapability', 'x'));
    }

    // ------------------------------------------------------------------ how adapters bind

    protected function tearDown(): void
    {
        AcmePlatform::$console = false;
        AcmePlatform::$granted = [];
    }

    public function testAdapterTraitBindsThePlatform(): void
    {
        $tool = new AcmeReportTool();
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"The current user lacks the \"acme view reports\" capability required to view Acme reports."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(['period' => 'week']),
        );
        AcmePlatform::$granted = ['acme view reports'];
        self::assertSame('{"success":true,"data":{"period":"week","rows":3},"meta":{"source":"acme"},"warnings":[]}', $tool->execute(['period' => 'week']));
        AcmePlatform::$granted = [];
        AcmePlatform::$console = true;
        self::assertSame('{"success":true,"data":{"period":"today","rows":3},"meta":{"source":"acme"},"warnings":[]}', $tool->execute([]));
        self::assertSame(
            '{"success":false,"error":{"code":"UNKNOWN_ARGUMENT","message":"Unknown argument \"sort\".","accepted_arguments":["period","limit","offset"]},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(['period' => 'x', 'sort' => 'asc']),
        );
        self::assertSame(
            '{"success":false,"error":{"code":"INVALID_LIMIT","message":"\"limit\" must be an integer between 1 and 50."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(['limit' => 51]),
        );
        self::assertTrue((new ReflectionMethod($tool, 'execute'))->isInternal());
        self::assertFalse((new ReflectionMethod($tool, 'runningInConsole'))->isInternal());
    }

    // ------------------------------------------------------------------ anonymous classes

    /** @return object&ToolInterface */
    private static function anonymousCoreTool(): object
    {
        return new class () implements ToolInterface, AuthorizableToolInterface {
            use HasCoreToolBinding;

            public function name(): string
            {
                return 'anon_core';
            }

            public function description(): string
            {
                return '';
            }

            public function inputSchema(): array
            {
                return [];
            }

            protected function plan(array $input): array
            {
                return ['input' => $input, 'result' => $this->guardCapability('use the anonymous tool')];
            }

            protected function perform(array $input): array
            {
                return ['label' => $this->toolLabel()];
            }

            protected function verify(array $execution, array $input): array
            {
                return ['result' => null];
            }

            protected function complete(array $execution, array $input): string
            {
                return $this->success($execution, []);
            }
        };
    }

    public function testAnonymousCoreTool(): void
    {
        $tool = self::anonymousCoreTool();
        $parts = explode('\\', $tool::class);
        $expected = (string) end($parts);
        self::assertSame(json_encode(['success' => true, 'data' => ['label' => $expected], 'meta' => [], 'warnings' => []], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), $tool->execute([]));
        $tool->withAuthorizer(new FixtureAuthorizer(false));
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not use the anonymous tool."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute([]),
        );
    }

    // ------------------------------------------------------------------ guardCapability

    /** @return iterable<string, array{string, string}> */
    public static function subjects(): iterable
    {
        yield 'plain' => ['read files', 'read files'];
        yield 'quotes' => ['read "secret" files', 'read \"secret\" files'];
        yield 'slash and unicode' => ['read /etc/ files — ünïcode', 'read /etc/ files — ünïcode'];
        yield 'empty' => ['', ''];
    }

    /**
     * @dataProvider subjects
     */
    #[DataProvider('subjects')]
    public function testContractGuardMessage(string $subject, string $inJson): void
    {
        $tool = new ContractTool();
        $tool->allowed = false;
        $tool->capability = 'use phpclaw chat';
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"The current user lacks the \"use phpclaw chat\" capability required to ' . $inJson . '."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->call('guardCapability', $subject),
        );
        self::assertSame(['use phpclaw chat'], $tool->askedFor);
    }

    /**
     * @dataProvider subjects
     */
    #[DataProvider('subjects')]
    public function testCoreGuardMessage(string $subject, string $inJson): void
    {
        $tool = new CoreTool();
        $tool->withAuthorizer(new FixtureAuthorizer(allows: false, console: false));
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not ' . $inJson . '."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->call('guardCapability', $subject),
        );
    }

    public function testGuardMessageEntitiesFollowTheBinding(): void
    {
        $contract = new ContractTool();
        $contract->allowed = false;
        $contract->capability = 'a &amp; b';
        self::assertStringContainsString('lacks the \"a & b\" capability required to x & y.', $contract->call('guardCapability', 'x &amp; y'));
        $core = new CoreTool();
        $core->withAuthorizer(new FixtureAuthorizer(false));
        self::assertStringContainsString('may not x &amp; y.', $core->call('guardCapability', 'x &amp; y'));
    }

    public function testContractGuardChecksTheConsoleFirst(): void
    {
        $tool = new ContractTool();
        $tool->console = true;
        $tool->allowed = false;
        self::assertNull($tool->call('guardCapability', 'x'));
        self::assertSame([], $tool->askedFor, 'the capability is not asked on the console');
        $tool->console = false;
        $tool->allowed = true;
        self::assertNull($tool->call('guardCapability', 'x'));
        self::assertSame(['fixture_capability'], $tool->askedFor);
    }

    // ------------------------------------------------------------------ core binding and its authorizer

    /** @return iterable<string, array{?bool, ?bool, bool, bool}> */
    public static function authorizerCases(): iterable
    {
        // allows, console => guard allows, eligible
        yield 'no authorizer' => [null, null, true, true];
        yield 'allows, web' => [true, false, true, true];
        yield 'refuses, web' => [false, false, false, false];
        yield 'refuses, console' => [false, true, true, true];
        yield 'allows, console' => [true, true, true, true];
    }

    /**
     * @dataProvider authorizerCases
     */
    #[DataProvider('authorizerCases')]
    public function testCoreWithAuthorizer(?bool $allows, ?bool $console, bool $allowed, bool $eligible): void
    {
        $tool = new CoreTool();
        $authorizer = null;
        if ($allows !== null) {
            $authorizer = new FixtureAuthorizer($allows, (bool) $console);
            $tool->withAuthorizer($authorizer);
        }
        self::assertSame($allowed, $tool->call('guardCapability', 'x') === null);
        self::assertSame($eligible, $tool->isEligibleForRouting());
        self::assertSame($console ?? false, $tool->call('runningInConsole'));
        self::assertSame($allows ?? true, $tool->call('callerHasCapability', 'anything'));
        self::assertSame($authorizer, $tool->boundAuthorizer());
        if ($authorizer !== null && $console) {
            $before = $authorizer->allowsCalls;
            $tool->isEligibleForRouting();
            $tool->call('guardCapability', 'x');
            self::assertSame($before, $authorizer->allowsCalls, 'on the console allows() is not asked');
        }
    }

    public function testWithAuthorizerNullRemovesTheAuthorizer(): void
    {
        $tool = new CoreTool();
        $tool->withAuthorizer(new FixtureAuthorizer(false));
        self::assertFalse($tool->isEligibleForRouting());
        self::assertNull($tool->withAuthorizer(null));
        self::assertNull($tool->boundAuthorizer());
        self::assertTrue($tool->isEligibleForRouting());
        self::assertNull($tool->call('guardCapability', 'x'));
        $tool->withAuthorizer(authorizer: new FixtureAuthorizer(false));
        self::assertFalse($tool->isEligibleForRouting());
    }

    public function testAuthorizerIsPerObjectAndWorksInSubclasses(): void
    {
        $a = new CoreTool();
        $b = new ChildCoreTool();
        $auth = new FixtureAuthorizer(false);
        $b->withAuthorizer($auth);
        self::assertNull($a->boundAuthorizer());
        self::assertSame($auth, $b->boundAuthorizer());
        self::assertTrue($a->isEligibleForRouting());
        self::assertFalse($b->isEligibleForRouting());
        self::assertInstanceOf(AuthorizableToolInterface::class, $b);
    }

    public function testCoreCapabilityIsTheInterfaceConstant(): void
    {
        self::assertSame('phpclaw_use_tools', ToolAuthorizerInterface::CAPABILITY);
        self::assertSame(ToolAuthorizerInterface::CAPABILITY, (new CoreTool())->requiredCapability());
        $tool = new HookedCoreTool();
        $asked = [];
        $tool->hooks['callerHasCapability'] = function (string $c) use (&$asked) {
            $asked[] = $c;

            return true;
        };
        $tool->isEligibleForRouting();
        $tool->call('guardCapability', 'x');
        self::assertSame(['phpclaw_use_tools', 'phpclaw_use_tools'], $asked);
    }

    public function testWithAuthorizerTypeError(): void
    {
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage(self::FIXTURE . 'CoreTool::withAuthorizer(): Argument #1 ($authorizer) must be of type ?PhpClaw\Tools\Contracts\ToolAuthorizerInterface, stdClass given');
        (new CoreTool())->withAuthorizer(new stdClass());
    }

    public function testAuthorizerPropertyIsPrivateToTheUsingClass(): void
    {
        $p = new ReflectionProperty(CoreTool::class, 'authorizer');
        self::assertTrue($p->isPrivate());
        self::assertTrue($p->hasDefaultValue());
        self::assertNull($p->getDefaultValue());
        self::assertFalse(property_exists(ContractTool::class, 'authorizer'));
    }
    public function testAuthorizerPropertyIsTypedLikeTheReference(): void
    {
        // phpClaw declares `private ?ToolAuthorizerInterface $authorizer = null;`. A class that
        // repeats that declaration next to the trait must compose, and a wrong value must be refused.
        $run = Subprocess::withModule('<?php
            abstract class K { use PhpClaw\Tools\Concerns\HasCoreToolBinding; private ?PhpClaw\Tools\Contracts\ToolAuthorizerInterface $authorizer = null; }
            echo (string) (new ReflectionProperty("K", "authorizer"))->getType();');
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertSame('?PhpClaw\Tools\Contracts\ToolAuthorizerInterface', $run['stdout']);
        self::assertSame('?PhpClaw\Tools\Contracts\ToolAuthorizerInterface', (string) (new ReflectionProperty(CoreTool::class, 'authorizer'))->getType());
    }

    // ------------------------------------------------------------------ rejectUnknownArguments

    /** @return iterable<string, array{array<mixed>, array<mixed>, ?string}> */
    public static function argumentCases(): iterable
    {
        yield 'all allowed' => [['a' => 1, 'b' => 2], ['a', 'b', 'c'], null];
        yield 'empty input' => [[], ['a'], null];
        yield 'empty input, nothing allowed' => [[], [], null];
        yield 'unknown' => [['a' => 1, 'z' => 2], ['a'], 'z'];
        yield 'first unknown is reported' => [['x' => 1, 'y' => 2], ['a'], 'x'];
        yield 'int key vs string allowed (strict)' => [[0 => 'v'], ['0'], '0'];
        yield 'int key vs int allowed' => [[0 => 'v'], [0], null];
        yield 'numeric string key becomes int' => [['5' => 'v'], ['5'], '5'];
        yield 'numeric string key vs int allowed' => [['5' => 'v'], [5], null];
        yield 'string key vs true (strict)' => [['a' => 1], [true], 'a'];
        yield 'int key vs float (strict)' => [[1 => 1], [1.0], '1'];
        yield 'string key vs null' => [['' => 1], [null], ''];
        yield 'case matters' => [['Limit' => 1], ['limit'], 'Limit'];
        yield 'allowed keys are ignored, values count' => [['a' => 1], ['a' => 'b'], 'a'];
        yield 'negative int key' => [[-3 => 1], ['a'], '-3'];
        yield 'list input' => [['x', 'y'], [0, 1], null];
        yield 'unicode key' => [['ключ' => 1], ['ключ'], null];
    }

    /**
     * @dataProvider argumentCases
     * @param array<mixed> $input
     * @param array<mixed> $allowed
     */
    #[DataProvider('argumentCases')]
    public function testRejectUnknownArguments(array $input, array $allowed, ?string $unknown): void
    {
        foreach ([new ContractTool(), new CoreTool()] as $tool) {
            $result = $tool->call('rejectUnknownArguments', $input, $allowed);
            if ($unknown === null) {
                self::assertNull($result);
                continue;
            }
            $expected = json_encode([
                'success' => false,
                'error' => ['code' => 'UNKNOWN_ARGUMENT', 'message' => "Unknown argument \"$unknown\".", 'accepted_arguments' => $allowed],
                'data' => null,
                'meta' => ['mode' => 'error'],
                'warnings' => [],
            ], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
            self::assertSame($expected, $result);
        }
    }

    public function testRejectUnknownArgumentsWithReferencesInTheAllowedList(): void
    {
        $allowed = ['a', 'limit'];
        foreach ($allowed as &$entry) {
            // leaves the last element a reference
        }
        unset($entry);
        $allowed2 = ['a', 'limit'];
        foreach ($allowed2 as &$entry2) {
        }
        $value = 1;
        $input = ['limit' => &$value];
        $tool = new ContractTool();
        self::assertNull($tool->call('rejectUnknownArguments', $input, $allowed));
        self::assertNull($tool->call('rejectUnknownArguments', $input, $allowed2));
    }

    public function testRejectUnknownArgumentsDecodesTheContextOnlyForTheContract(): void
    {
        $contract = (new ContractTool())->call('rejectUnknownArguments', ['q' => 1], ['a&amp;b']);
        $core = (new CoreTool())->call('rejectUnknownArguments', ['q' => 1], ['a&amp;b']);
        self::assertStringContainsString('"accepted_arguments":["a&b"]', $contract);
        self::assertStringContainsString('"accepted_arguments":["a&amp;b"]', $core);
    }

    // ------------------------------------------------------------------ validatePaging

    /** @return iterable<string, array{array<string, mixed>, ?string}> */
    public static function pagingCases(): iterable
    {
        yield 'absent' => [[], null];
        yield 'other keys only' => [['page' => 'x'], null];
        yield 'limit at min' => [['limit' => 1], null];
        yield 'limit at max' => [['limit' => 50], null];
        yield 'limit below' => [['limit' => 0], 'INVALID_LIMIT'];
        yield 'limit negative' => [['limit' => -1], 'INVALID_LIMIT'];
        yield 'limit above' => [['limit' => 51], 'INVALID_LIMIT'];
        yield 'limit PHP_INT_MAX' => [['limit' => PHP_INT_MAX], 'INVALID_LIMIT'];
        yield 'limit PHP_INT_MIN' => [['limit' => PHP_INT_MIN], 'INVALID_LIMIT'];
        yield 'offset at min' => [['offset' => 0], null];
        yield 'offset at max' => [['offset' => 1000], null];
        yield 'offset below' => [['offset' => -1], 'INVALID_OFFSET'];
        yield 'offset above' => [['offset' => 1001], 'INVALID_OFFSET'];
        yield 'both valid' => [['limit' => 10, 'offset' => 10], null];
        yield 'both invalid: limit first' => [['offset' => -1, 'limit' => 0], 'INVALID_LIMIT'];
        yield 'limit float' => [['limit' => 5.0], 'INVALID_LIMIT'];
        yield 'limit numeric string' => [['limit' => '5'], 'INVALID_LIMIT'];
        yield 'limit null' => [['limit' => null], 'INVALID_LIMIT'];
        yield 'limit true' => [['limit' => true], 'INVALID_LIMIT'];
        yield 'limit array' => [['limit' => [5]], 'INVALID_LIMIT'];
        yield 'offset float' => [['offset' => 0.0], 'INVALID_OFFSET'];
        yield 'offset string' => [['offset' => '0'], 'INVALID_OFFSET'];
        yield 'offset null' => [['offset' => null], 'INVALID_OFFSET'];
        yield 'offset false' => [['offset' => false], 'INVALID_OFFSET'];
    }

    /**
     * @dataProvider pagingCases
     * @param array<string, mixed> $input
     */
    #[DataProvider('pagingCases')]
    public function testValidatePaging(array $input, ?string $code): void
    {
        foreach ([new ContractTool(), new CoreTool()] as $tool) {
            $result = $tool->call('validatePaging', $input, 50, 1000);
            if ($code === null) {
                self::assertNull($result);
                continue;
            }
            $message = $code === 'INVALID_LIMIT' ? '"limit" must be an integer between 1 and 50.' : '"offset" must be an integer between 0 and 1000.';
            self::assertSame(json_encode([
                'success' => false,
                'error' => ['code' => $code, 'message' => $message],
                'data' => null,
                'meta' => ['mode' => 'error'],
                'warnings' => [],
            ], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), $result);
        }
    }

    public function testValidatePagingWithReferencesAndNamedArguments(): void
    {
        $tool = new ContractTool();
        $limit = 5;
        $input = ['limit' => &$limit];
        self::assertNull($tool->call('validatePaging', $input, 10, 10));
        $limit = 11;
        self::assertStringContainsString('INVALID_LIMIT', (string) $tool->call('validatePaging', $input, 10, 10));
        self::assertStringContainsString('between 0 and 3.', (string) $tool->call('validatePaging', maxOffset: 3, maxLimit: 10, input: ['offset' => 4]));
        self::assertStringContainsString('between 1 and -1.', (string) $tool->call('validatePaging', ['limit' => 1], -1, 0));
    }

    // ------------------------------------------------------------------ success() and error()

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testSuccessEnvelope(string $class): void
    {
        $tool = new $class();
        self::assertSame('{"success":true,"data":[],"meta":[],"warnings":[]}', $tool->call('success', [], []));
        self::assertSame('{"success":true,"data":{"a":1},"meta":{"m":true},"warnings":[{"code":"W"}]}', $tool->call('success', ['a' => 1], ['m' => true], [['code' => 'W']]));
        self::assertSame('{"success":true,"data":["x"],"meta":{"k":null},"warnings":[]}', $tool->call('success', meta: ['k' => null], data: ['x']));
        self::assertSame('{"success":true,"data":[],"meta":[],"warnings":["w"]}', $tool->call('success', [], [], warnings: ['w']));
    }

    /** @return iterable<string, array{array<mixed>}> */
    public static function errorContexts(): iterable
    {
        yield 'none' => [[]];
        yield 'extra string keys' => [['hint' => 'h', 'field' => 'f']];
        yield 'overrides code and message in place' => [['message' => 'over', 'code' => 'X']];
        yield 'int keys are appended and renumbered' => [[5 => 'a', 'k' => 'v', 9 => 'b']];
        yield 'list context' => [['a', 'b']];
        yield 'numeric string key' => [['7' => 'seven']];
        yield 'nested' => [['details' => ['x' => [1, 2]], 'n' => null]];
        yield 'message null' => [['message' => null]];
    }

    /**
     * @dataProvider errorContexts
     * @param array<mixed> $context
     */
    #[DataProvider('errorContexts')]
    public function testErrorEnvelopeMergesContextLikeArrayMerge(array $context): void
    {
        foreach ([new ContractTool(), new CoreTool()] as $tool) {
            $expected = json_encode([
                'success' => false,
                'error' => array_merge(['code' => 'THE_CODE', 'message' => 'The message.'], $context),
                'data' => null,
                'meta' => ['mode' => 'error'],
                'warnings' => [],
            ], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
            self::assertSame($expected, $tool->call('error', 'THE_CODE', 'The message.', $context));
        }
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testErrorNamedArgumentsAndDefault(string $class): void
    {
        $tool = new $class();
        self::assertSame(
            '{"success":false,"error":{"code":"C","message":"M","z":1},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->call('error', context: ['z' => 1], message: 'M', code: 'C'),
        );
        self::assertSame(
            '{"success":false,"error":{"code":"C","message":"M"},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->call('error', 'C', 'M'),
        );
    }

    // ------------------------------------------------------------------ encodeResult

    public function testContractDecodesEntitiesInValuesNotKeys(): void
    {
        $tool = new ContractTool();
        $value = ['a&amp;b' => 'x &lt; y &amp;&amp; z &quot;q&quot; &#39;s&#39; &apos;t&apos; &copy; &#x263A; &nbsp;', 'n' => ['deep' => ['&gt;']], 7 => 1];
        self::assertSame(
            json_encode(['a&amp;b' => "x < y && z \"q\" 's' 't' © ☺ \u{a0}", 'n' => ['deep' => ['>']], 7 => 1], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES),
            $tool->call('encodeResult', $value),
        );
    }

    public function testCoreEncodesVerbatim(): void
    {
        $tool = new CoreTool();
        $value = ['a&amp;b' => 'x &lt; y', 'path' => '/a/b', 'u' => 'é'];
        self::assertSame('{"a&amp;b":"x &lt; y","path":"/a/b","u":"é"}', $tool->call('encodeResult', $value));
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testEncodeFailureIsAToolExceptionWithAJsonExceptionPrevious(string $class): void
    {
        $tool = new $class();
        try {
            $tool->call('encodeResult', ['bad' => "\xB1\x31"]);
            self::fail('invalid UTF-8 was encoded');
        } catch (ToolException $e) {
            self::assertSame(ToolException::class, $e::class);
            self::assertSame('Unable to encode tool response.', $e->getMessage());
            self::assertSame(0, $e->getCode());
            $previous = $e->getPrevious();
            self::assertInstanceOf(JsonException::class, $previous);
            self::assertSame('Malformed UTF-8 characters, possibly incorrectly encoded', $previous->getMessage());
            self::assertSame(JSON_ERROR_UTF8, $previous->getCode());
            self::assertNull($previous->getPrevious());
        }
        self::assertNull(error_get_last());
        self::assertSame(JSON_ERROR_NONE, json_last_error(), 'json_last_error() is untouched by a throwing encode');
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testEncodeFailureFromSuccess(string $class): void
    {
        $tool = new $class();
        $this->expectException(ToolException::class);
        $this->expectExceptionMessage('Unable to encode tool response.');
        $tool->call('success', ['x' => NAN], []);
    }

    public function testDecodeEntitiesRecursivelyIsPrivateStatic(): void
    {
        $m = new ReflectionMethod(ContractTool::class, 'decodeEntitiesRecursively');
        self::assertTrue($m->isPrivate());
        self::assertTrue($m->isStatic());
        $m->setAccessible(true);
        self::assertSame(['k&amp;' => ['<', 5, null, 1.5]], $m->invoke(null, ['k&amp;' => ['&lt;', 5, null, 1.5]]));
        self::assertSame('"', $m->invoke(null, '&quot;'));
        $o = new stdClass();
        $o->s = '&amp;';
        self::assertSame($o, $m->invoke(null, $o), 'objects are returned untouched');
        self::assertSame('&amp;', $o->s);
        $this->expectException(Error::class);
        $this->expectExceptionMessage('Call to private method ' . ContractTool::class . '::decodeEntitiesRecursively() from scope ' . self::class);
        ContractTool::decodeEntitiesRecursively('x');
    }

    // ------------------------------------------------------------------ logExecutionError, toolLabel, examples

    /** @return list<string> the lines written to the error log while $fn ran */
    private function captureErrorLog(callable $fn): array
    {
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-log-');
        $old = ini_set('error_log', $file);
        try {
            $fn();
        } finally {
            ini_set('error_log', (string) $old);
        }
        $lines = file($file, FILE_IGNORE_NEW_LINES);
        unlink($file);

        return array_map(static fn (string $line) => (string) preg_replace('/^\[[^\]]+\] /', '', $line), $lines === false ? [] : $lines);
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testLogExecutionErrorWritesToTheErrorLog(string $class): void
    {
        $tool = new $class();
        $log = $this->captureErrorLog(function () use ($tool) {
            self::assertNull($tool->call('logExecutionError', new RuntimeException('disk full')));
            $tool->call('logExecutionError', new TypeError('bad "type" – ü'));
        });
        $label = substr($class, strrpos($class, '\\') + 1);
        self::assertSame(["phpClaw $label execution failed: disk full", "phpClaw $label execution failed: bad \"type\" – ü"], $log);
    }

    public function testLogExecutionErrorMatchesErrorLogByteForByte(): void
    {
        $tool = new ContractTool();
        $message = "bytes \xff\xfe and % and %s";
        $native = $this->captureErrorLog(fn () => $tool->call('logExecutionError', new Exception($message)));
        $userland = $this->captureErrorLog(fn () => error_log("phpClaw ContractTool execution failed: $message"));
        self::assertSame($userland, $native);
    }
    public function testLogExecutionErrorWithANulByteMatchesErrorLog(): void
    {
        $tool = new ContractTool();
        $native = $this->captureErrorLog(fn () => $tool->call('logExecutionError', new Exception("before\0after")));
        $userland = $this->captureErrorLog(fn () => error_log("phpClaw ContractTool execution failed: before\0after"));
        self::assertSame($userland, $native);
    }

    public function testLogExecutionErrorTypeError(): void
    {
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage(self::FIXTURE . 'ContractTool::logExecutionError(): Argument #1 ($exception) must be of type Throwable, string given');
        (new ContractTool())->call('logExecutionError', 'boom');
    }

    public function testToolLabel(): void
    {
        self::assertSame('ContractTool', (new ContractTool())->call('toolLabel'));
        self::assertSame('ChildCoreTool', (new ChildCoreTool())->call('toolLabel'), 'static::class, not the using class');
        $global = Subprocess::withModule('<?php
            class GlobalTool { use PhpClaw\Tools\Concerns\HasCoreToolBinding;
                protected function plan(array $i): array { return []; } protected function perform(array $i): array { return []; }
                protected function verify(array $e, array $i): array { return []; } protected function complete(array $e, array $i): string { return ""; }
                public function label(): string { return $this->toolLabel(); } }
            echo (new GlobalTool)->label();');
        self::assertSame('GlobalTool', $global['stdout'], $global['stderr']);
    }

    /**
     * @dataProvider bindings
     */
    #[DataProvider('bindings')]
    public function testExamplesIsAnEmptyStaticList(string $class): void
    {
        self::assertSame([], $class::examples());
        self::assertSame([], (new $class())->examples());
        $m = new ReflectionMethod($class, 'examples');
        self::assertTrue($m->isStatic());
        self::assertTrue($m->isPublic());
    }

    // ------------------------------------------------------------------ reflection and calling conventions

    /** @return iterable<string, array{class-string, string, bool}> */
    public static function internalMethods(): iterable
    {
        $native = ['execute', 'maxRecoveryAttempts', 'toolLabel', 'guardCapability', 'rejectUnknownArguments', 'validatePaging',
            'recover', 'isRetryableInfrastructureFailure', 'success', 'error', 'encodeResult', 'decodeEntitiesRecursively',
            'examples', 'logExecutionError'];
        foreach ($native as $m) {
            yield "contract $m" => [ContractTool::class, $m, true];
            yield "core $m" => [CoreTool::class, $m, true];
        }
        foreach (['withAuthorizer', 'requiredCapability', 'isEligibleForRouting', 'runningInConsole', 'callerHasCapability'] as $m) {
            yield "core $m" => [CoreTool::class, $m, true];
        }
        foreach (['plan', 'perform', 'verify', 'complete', 'requiredCapability', 'runningInConsole', 'callerHasCapability'] as $m) {
            yield "contract PHP $m" => [ContractTool::class, $m, false];
        }
        yield 'hooked override' => [HookedContractTool::class, 'encodeResult', false];
        yield 'hooked alias' => [HookedContractTool::class, 'nativeEncodeResult', true];
        yield 'adapter trait execute' => [AcmeReportTool::class, 'execute', true];
    }

    /**
     * @dataProvider internalMethods
     */
    #[DataProvider('internalMethods')]
    public function testMethodsAreNative(string $class, string $method, bool $internal): void
    {
        $m = new ReflectionMethod($class, $method);
        self::assertSame($internal, $m->isInternal());
        self::assertSame($class, $m->getDeclaringClass()->getName());
        if ($internal) {
            self::assertSame('phpclaw', $m->getExtensionName());
        }
    }

    public function testTraitsAreInternalAndUsed(): void
    {
        self::assertTrue((new ReflectionClass(HasToolExecutionContract::class))->isInternal());
        self::assertTrue((new ReflectionClass(HasCoreToolBinding::class))->isInternal());
        self::assertSame([HasToolExecutionContract::class], array_values(array_filter(
            (new ReflectionClass(ContractTool::class))->getTraitNames(),
            static fn (string $t) => str_starts_with($t, 'PhpClaw\\'),
        )));
        self::assertContains(HasCoreToolBinding::class, class_uses(CoreTool::class));
    }

    public function testExecuteWithNamedArgument(): void
    {
        $tool = new ContractTool();
        self::assertSame('{"success":true,"data":{"echo":{"k":1}},"meta":{"mode":"test"},"warnings":[]}', $tool->execute(input: ['k' => 1]));
        self::assertSame($tool->execute(['k' => 1]), $tool->execute(...['input' => ['k' => 1]]));
        $refused = new ContractTool();
        $refused->allowed = false;
        self::assertNull((new ContractTool())->call('guardCapability', subject: 'x'));
        self::assertStringContainsString('required to named.', (string) $refused->call('guardCapability', subject: 'named'));
    }

    /** @return iterable<string, array{string, list<mixed>, string}> */
    public static function typeErrors(): iterable
    {
        yield 'execute string' => ['execute', ['x'], 'execute(): Argument #1 ($input) must be of type array, string given'];
        yield 'execute null' => ['execute', [null], 'execute(): Argument #1 ($input) must be of type array, null given'];
        yield 'execute object' => ['execute', [new stdClass()], 'execute(): Argument #1 ($input) must be of type array, stdClass given'];
        yield 'guardCapability array' => ['guardCapability', [[]], 'guardCapability(): Argument #1 ($subject) must be of type string, array given'];
        yield 'guardCapability int (strict)' => ['guardCapability', [5], 'guardCapability(): Argument #1 ($subject) must be of type string, int given'];
        yield 'rejectUnknownArguments 2nd' => ['rejectUnknownArguments', [[], 'a'], 'rejectUnknownArguments(): Argument #2 ($allowed) must be of type array, string given'];
        yield 'validatePaging string (strict)' => ['validatePaging', [[], '5', 1], 'validatePaging(): Argument #2 ($maxLimit) must be of type int, string given'];
        yield 'validatePaging float (strict)' => ['validatePaging', [[], 1, 2.0], 'validatePaging(): Argument #3 ($maxOffset) must be of type int, float given'];
        yield 'recover RuntimeException' => ['recover', [new RuntimeException('x'), 1], 'recover(): Argument #1 ($exception) must be of type PhpClaw\Exceptions\ToolException, RuntimeException given'];
        yield 'recover PhpClawException' => ['recover', [new PhpClawException('x'), 1], 'recover(): Argument #1 ($exception) must be of type PhpClaw\Exceptions\ToolException, PhpClaw\Exceptions\PhpClawException given'];
        yield 'recover null' => ['recover', [null, 1], 'recover(): Argument #1 ($exception) must be of type PhpClaw\Exceptions\ToolException, null given'];
        yield 'recover attempt' => ['recover', [new ToolException('x'), 'one'], 'recover(): Argument #2 ($attempt) must be of type int, string given'];
        yield 'isRetryable' => ['isRetryableInfrastructureFailure', [new Exception('x')], 'isRetryableInfrastructureFailure(): Argument #1 ($exception) must be of type PhpClaw\Exceptions\ToolException, Exception given'];
        yield 'success data' => ['success', ['x', []], 'success(): Argument #1 ($data) must be of type array, string given'];
        yield 'success meta' => ['success', [[], null], 'success(): Argument #2 ($meta) must be of type array, null given'];
        yield 'success warnings' => ['success', [[], [], 'w'], 'success(): Argument #3 ($warnings) must be of type array, string given'];
        yield 'error code' => ['error', [[], 'm'], 'error(): Argument #1 ($code) must be of type string, array given'];
        yield 'error message' => ['error', ['c', 1.5], 'error(): Argument #2 ($message) must be of type string, float given'];
        yield 'error context' => ['error', ['c', 'm', 'ctx'], 'error(): Argument #3 ($context) must be of type array, string given'];
        yield 'encodeResult' => ['encodeResult', ['{}'], 'encodeResult(): Argument #1 ($result) must be of type array, string given'];
        yield 'encodeResult bool' => ['encodeResult', [true], 'encodeResult(): Argument #1 ($result) must be of type array, bool given'];
    }

    /**
     * @dataProvider typeErrors
     * @param list<mixed> $args
     */
    #[DataProvider('typeErrors')]
    public function testTypeErrorsUsePhpsStandardMessage(string $method, array $args, string $message): void
    {
        foreach ([ContractTool::class, CoreTool::class] as $class) {
            try {
                (new $class())->call($method, ...$args);
                self::fail("$class::$method accepted a wrong type");
            } catch (TypeError $e) {
                self::assertSame($class . '::' . $message, $e->getMessage());
                self::assertSame(TypeError::class, $e::class);
            }
        }
    }

    public function testCallerHasCapabilityTypeErrorOnCore(): void
    {
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage(self::FIXTURE . 'CoreTool::callerHasCapability(): Argument #1 ($capability) must be of type string, array given');
        (new CoreTool())->call('callerHasCapability', []);
    }

    /** @return iterable<string, array{mixed}> */
    public static function weakInts(): iterable
    {
        yield 'int' => [5];
        yield 'numeric string' => ['50'];
        yield 'leading whitespace' => [' 50'];
        yield 'integral float' => [50.0];
        yield 'true' => [true];
        yield 'plus sign' => ['+7'];
    }

    /**
     * Weak mode (a caller without strict_types) coerces scalars exactly as PHP does.
     *
     * @dataProvider weakInts
     */
    #[DataProvider('weakInts')]
    public function testWeakModeIntCoercionMatchesPhp(mixed $maxLimit): void
    {
        $this->assertWeakIntLike($maxLimit);
    }

    /** @return iterable<string, array{mixed}> */
    public static function weakIntsKnownBad(): iterable
    {
        yield 'trailing whitespace' => ['50 '];
        yield 'integral float string' => ['50.0'];
        yield 'exponent string' => ['5e1'];
    }

    /**
     * @dataProvider weakIntsKnownBad
     */
    #[DataProvider('weakIntsKnownBad')]
    public function testWeakModeNumericStringsMatchPhp(mixed $maxLimit): void
    {
        $this->assertWeakIntLike($maxLimit);
    }

    private function assertWeakIntLike(mixed $maxLimit): void
    {
        $expected = weak_int($maxLimit);
        $tool = new ContractTool();
        $result = weak_call($tool, 'validatePaging', ['limit' => 1000], $maxLimit, 10);
        self::assertStringContainsString("between 1 and $expected.", (string) $result);
    }

    /** @return iterable<string, array{mixed}> */
    public static function weakIntsRefused(): iterable
    {
        yield 'word' => ['five'];
        yield 'hex' => ['0x1A'];
        yield 'leading numeric' => ['5 apples'];
        yield 'null' => [null];
        yield 'array' => [[]];
        yield 'NAN' => [NAN];
        yield 'huge float' => [1e30];
    }

    /**
     * @dataProvider weakIntsRefused
     */
    #[DataProvider('weakIntsRefused')]
    public function testWeakModeRefusesWhatPhpRefuses(mixed $maxLimit): void
    {
        try {
            weak_int($maxLimit);
            self::fail('PHP accepted it');
        } catch (TypeError $phpError) {
        }
        try {
            weak_call(new ContractTool(), 'validatePaging', [], $maxLimit, 10);
            self::fail('the native method accepted it');
        } catch (TypeError $e) {
            $type = get_debug_type($maxLimit);
            self::assertSame(ContractTool::class . "::validatePaging(): Argument #2 (\$maxLimit) must be of type int, $type given", $e->getMessage());
        }
    }

    /** @return iterable<string, array{mixed}> */
    public static function weakStrings(): iterable
    {
        yield 'int' => [42];
        yield 'float' => [1.5];
        yield 'true' => [true];
        yield 'false' => [false];
        yield 'negative zero' => [-0.0];
        yield 'exponent float' => [1e25];
        yield 'small float' => [1e-7];
    }

    /**
     * @dataProvider weakStrings
     */
    #[DataProvider('weakStrings')]
    public function testWeakModeStringCoercionMatchesPhp(mixed $subject): void
    {
        $this->assertWeakStringLike($subject);
    }

    /** @return iterable<string, array{mixed}> */
    public static function weakStringsKnownBad(): iterable
    {
        yield 'float needing 17 digits' => [0.1 + 0.2];
        yield 'large float' => [1.2345678901234568E+17];
        yield 'Stringable' => [new class () {
            public function __toString(): string
            {
                return 'stringable subject';
            }
        }];
    }

    /**
     * @dataProvider weakStringsKnownBad
     */
    #[DataProvider('weakStringsKnownBad')]
    public function testWeakModeStringCoercionKnownBugs(mixed $subject): void
    {
        $this->assertWeakStringLike($subject);
    }

    private function assertWeakStringLike(mixed $subject): void
    {
        $expected = weak_string($subject);
        $tool = new CoreTool();
        $tool->withAuthorizer(new FixtureAuthorizer(false));
        $result = weak_call($tool, 'guardCapability', $subject);
        self::assertSame("No authenticated caller was identified, so this request may not $expected.", json_decode((string) $result, true)['error']['message']);
    }

    /** @return iterable<string, array{string, list<mixed>, string}> */
    public static function argumentCounts(): iterable
    {
        yield 'execute none' => ['execute', [], 'execute() expects exactly 1 argument, 0 given'];
        yield 'execute two' => ['execute', [[], []], 'execute() expects exactly 1 argument, 2 given'];
        yield 'success one' => ['success', [[]], 'success() expects at least 2 arguments, 1 given'];
        yield 'success four' => ['success', [[], [], [], []], 'success() expects at most 3 arguments, 4 given'];
        yield 'validatePaging two' => ['validatePaging', [[], 1], 'validatePaging() expects exactly 3 arguments, 2 given'];
        yield 'toolLabel one' => ['toolLabel', [1], 'toolLabel() expects exactly 0 arguments, 1 given'];
    }

    /**
     * @dataProvider argumentCounts
     * @param list<mixed> $args
     */
    #[DataProvider('argumentCounts')]
    public function testArgumentCountErrorsUsePhpsStandardMessage(string $method, array $args, string $message): void
    {
        try {
            (new ContractTool())->call($method, ...$args);
            self::fail('the wrong argument count was accepted');
        } catch (ArgumentCountError $e) {
            self::assertSame(ContractTool::class . '::' . $message, $e->getMessage());
        }
    }

    // ------------------------------------------------------------------ engine interplay

    public function testStepsMaySuspendAFiber(): void
    {
        $tool = new ContractTool();
        $tool->hooks['perform'] = fn (array $in) => ['resumed with' => \Fiber::suspend('suspended in perform')];
        $fiber = new \Fiber(fn () => $tool->execute([]));
        self::assertSame('suspended in perform', $fiber->start());
        $fiber->resume('value');
        self::assertSame('{"success":true,"data":{"resumed with":"value"},"meta":{"mode":"test"},"warnings":[]}', $fiber->getReturn());
    }

    public function testNestedExecutions(): void
    {
        $inner = new CoreTool();
        $outer = new ContractTool();
        $outer->hooks['perform'] = fn (array $in) => ['inner' => json_decode($inner->execute(['depth' => 2]), true)];
        self::assertSame(
            '{"success":true,"data":{"inner":{"success":true,"data":{"echo":{"depth":2}},"meta":{"mode":"test"},"warnings":[]}},"meta":{"mode":"test"},"warnings":[]}',
            $outer->execute([]),
        );
    }

    public function testNoMemoryIsLeakedOnAnyPath(): void
    {
        $paths = [
            'happy' => function () {
                (new ContractTool())->execute(['a' => 1]);
            },
            'retry' => function () {
                $t = new ContractTool();
                $t->hooks['perform'] = self::failing([self::retryable()]);
                $t->execute([]);
            },
            'rethrow' => function () {
                $t = new CoreTool();
                $t->hooks['perform'] = fn () => throw new ToolException('x');
                try {
                    $t->execute([]);
                } catch (ToolException) {
                }
            },
            'malformed' => function () {
                $t = new ContractTool();
                $t->hooks['plan'] = fn () => [];
                try {
                    $t->execute([]);
                } catch (ToolException) {
                }
            },
            'encode failure' => function () {
                try {
                    (new CoreTool())->call('success', ["\xff"], []);
                } catch (ToolException) {
                }
            },
            'authorizer' => function () {
                $t = new CoreTool();
                $t->withAuthorizer(new FixtureAuthorizer(false));
                $t->call('guardCapability', 'x');
                $t->isEligibleForRouting();
            },
            'helpers' => function () {
                $t = new ContractTool();
                $t->call('rejectUnknownArguments', ['a' => 1, 'b' => 2], ['a']);
                $t->call('validatePaging', ['limit' => 100], 10, 10);
                $t->call('error', 'C', 'M', ['x' => [1, 2], 3 => 'y']);
                $t->call('encodeResult', ['a' => ['b' => '&amp;']]);
            },
            'type error' => function () {
                try {
                    (new ContractTool())->execute('x');
                } catch (TypeError) {
                }
            },
        ];
        foreach ($paths as $name => $run) {
            self::assertLessThan(4096, Heap::growth($run, 500, 50), "$name leaks");
        }
    }
    public function testExitInsideAStepEndsTheScript(): void
    {
        $fixtures = __DIR__ . '/fixtures/Tools.php';
        $run = Subprocess::withModule("<?php
            require '$fixtures';
            \$t = new PhpClawTests\\Fixtures\\ContractTool;
            \$t->hooks['perform'] = function () { echo 'exiting;'; exit(3); };
            try { \$t->execute([]); } catch (Throwable \$e) { echo get_class(\$e), ': ', \$e->getMessage(), ';'; }
            echo 'after exit';");
        self::assertSame('exiting;', $run['stdout']);
        self::assertSame(3, $run['code']);
        self::assertSame('', $run['stderr']);
    }
    public function testAFatalErrorInsideAStepEndsTheScript(): void
    {
        if (getenv('USE_ZEND_ALLOC') === '0') {
            self::markTestSkipped('memory_limit is not enforced without the Zend allocator (valgrind runs)');
        }
        $fixtures = __DIR__ . '/fixtures/Tools.php';
        $run = Subprocess::withModule("<?php
            require '$fixtures';
            \$t = new PhpClawTests\\Fixtures\\ContractTool;
            \$t->hooks['perform'] = function () { return [str_repeat('x', PHP_INT_MAX)]; };
            try { \$t->execute([]); } catch (Throwable \$e) { echo get_class(\$e), ': ', \$e->getMessage(), ';'; }
            echo 'after fatal';", ['memory_limit=64M']);
        self::assertSame(255, $run['code']);
        self::assertStringContainsString('Allowed memory size', $run['stderr']);
        self::assertStringNotContainsString('after fatal', $run['stdout']);
    }

    public function testAUserFatalErrorInsideAStepEndsTheScript(): void
    {
        $fixtures = __DIR__ . '/fixtures/Tools.php';
        $run = Subprocess::withModule("<?php
            require '$fixtures';
            \$t = new PhpClawTests\\Fixtures\\ContractTool;
            \$t->hooks['perform'] = function () { trigger_error('user fatal', E_USER_ERROR); };
            \$t->execute([]);
            echo 'after fatal';");
        self::assertSame(255, $run['code']);
        self::assertStringContainsString('Fatal error: user fatal', $run['stderr']);
        self::assertStringNotContainsString('after fatal', $run['stdout']);
    }
}
