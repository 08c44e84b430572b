<?php

declare(strict_types=1);

namespace PhpClawTests;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;

/** A class shaped the way the suite must not be: what SuiteShapeTest has to catch (@group x). */
final class MisshapenSuiteFixture
{
    /** @return iterable<array{int}> */
    public function cases(): iterable
    {
        yield [1];
    }

    /**
     * @dataProvider cases
     * @group slow
     */
    #[DataProvider('cases')]
    public function testSomething(int $n): void
    {
    }

    /** Takes a name that PHPUnit 10+ declares final in TestCase. */
    private function output(): string
    {
        return '';
    }
}

/**
 * The suite runs unchanged under PHPUnit 9.6 (Debian 12), which reads docblock annotations, and
 * PHPUnit 11 (Debian 13), which reads attributes, wants static data providers and declares some
 * TestCase methods final. A test written for one must not silently change under the other.
 */
final class SuiteShapeTest extends TestCase
{
    /** TestCase methods that PHPUnit 11.5 declares final (a test class cannot declare them). */
    private const FINAL_IN_PHPUNIT_11 = [
        'addToAssertionCount', 'any', 'atLeast', 'atLeastOnce', 'atMost', 'count',
        'createConfiguredMock', 'createConfiguredStub', 'createMock',
        'createMockForIntersectionOfInterfaces', 'createPartialMock', 'createStub',
        'createStubForIntersectionOfInterfaces', 'createTestProxy', 'dataName',
        'dataSetAsString', 'dataSetAsStringWithData', 'dependencyInput',
        'doesNotPerformAssertions', 'exactly', 'expectException', 'expectExceptionCode',
        'expectExceptionMessage', 'expectExceptionMessageMatches', 'expectExceptionObject',
        'expectNotToPerformAssertions', 'expectOutputRegex', 'expectOutputString',
        'expectsOutput', 'expectUserDeprecationMessage',
        'expectUserDeprecationMessageMatches', 'getActualOutputForAssertion',
        'getMockBuilder', 'getMockForAbstractClass', 'getMockForTrait', 'getMockFromWsdl',
        'getObjectForTrait', 'groups', 'hasDependencyInput', 'hasUnexpectedOutput',
        'iniSet', 'name', 'nameWithDataSet', 'never', 'numberOfAssertionsPerformed', 'once',
        'onConsecutiveCalls', 'output', 'providedData', 'provides', 'registerComparator',
        'registerFailureType', 'registerMockObject', 'requires', 'result', 'returnArgument',
        'returnCallback', 'returnSelf', 'returnValue', 'returnValueMap', 'run', 'runBare',
        'setBackupGlobals', 'setBackupGlobalsExcludeList', 'setBackupStaticProperties',
        'setBackupStaticPropertiesExcludeList', 'setData', 'setDependencies',
        'setDependencyInput', 'setGroups', 'setInIsolation', 'setLocale',
        'setPreserveGlobalState', 'setResult', 'setRunClassInSeparateProcess',
        'setRunTestInSeparateProcess', 'size', 'sortId', 'status', 'throwException',
        'usesDataProvider', 'valueObjectForEvents', 'wasPrepared',
    ];

    /**
     * What is wrong with a class's shape: an annotation without its attribute twin (or the
     * reverse), a data provider that is not public and static, a method named like a final one.
     *
     * @param ReflectionClass<object> $class
     * @return list<string>
     */
    public static function problems(ReflectionClass $class): array
    {
        $problems = [];
        // PHPUnit 11 reads metadata from a class's doc comment too (and deprecates it there).
        $mismatch = self::annotationMismatch((string) $class->getDocComment(), $class->getAttributes());
        if ($mismatch !== null) {
            $problems[] = $class->getShortName() . ": $mismatch";
        }
        $final = array_map('strtolower', self::FINAL_IN_PHPUNIT_11);
        foreach ($class->getMethods() as $method) {
            if ($method->getDeclaringClass()->getName() !== $class->getName()) {
                continue;
            }
            $where = $class->getShortName() . '::' . $method->getName();
            if (in_array(strtolower($method->getName()), $final, true)) {
                $problems[] = "$where: a final TestCase method in PHPUnit 11";
            }
            $mismatch = self::annotationMismatch((string) $method->getDocComment(), $method->getAttributes());
            if ($mismatch !== null) {
                $problems[] = "$where: $mismatch";
            }
            preg_match_all('/@dataProvider\s+(\w+)/', (string) $method->getDocComment(), $m);
            foreach ($m[1] as $provider) {
                if (!$class->hasMethod($provider)) {
                    $problems[] = "$where: no provider $provider";
                } elseif (!$class->getMethod($provider)->isStatic() || !$class->getMethod($provider)->isPublic()) {
                    $problems[] = "$where: provider $provider is not public static";
                }
            }
        }

        return $problems;
    }

    /**
     * How a doc comment's dataProvider and group annotations differ from the attributes beside
     * them; null when they match.
     *
     * @param list<\ReflectionAttribute<object>> $attributeList
     */
    private static function annotationMismatch(string $doc, array $attributeList): ?string
    {
        preg_match_all('/@(dataProvider|group)\s+([\w-]+)/', $doc, $m, PREG_SET_ORDER);
        $annotations = [];
        foreach ($m as [, $tag, $argument]) {
            $annotations[] = ucfirst($tag) . "($argument)";
        }
        $attributes = [];
        foreach ($attributeList as $attribute) {
            $short = substr((string) strrchr('\\' . $attribute->getName(), '\\'), 1);
            if (in_array($short, ['DataProvider', 'Group'], true)) {
                $attributes[] = $short . '(' . implode(', ', $attribute->getArguments()) . ')';
            }
        }
        sort($annotations);
        sort($attributes);
        if ($annotations === $attributes) {
            return null;
        }

        return 'docblock [' . implode(' ', $annotations) . '] but attributes [' . implode(' ', $attributes) . ']';
    }

    public function testTheCheckFindsEachKindOfProblem(): void
    {
        self::assertSame([
            'MisshapenSuiteFixture: docblock [Group(x)] but attributes []',
            'MisshapenSuiteFixture::testSomething: docblock [DataProvider(cases) Group(slow)] but attributes [DataProvider(cases)]',
            'MisshapenSuiteFixture::testSomething: provider cases is not public static',
            'MisshapenSuiteFixture::output: a final TestCase method in PHPUnit 11',
        ], self::problems(new ReflectionClass(MisshapenSuiteFixture::class)));
    }

    public function testEveryTestClassOfTheSuiteHasTheShape(): void
    {
        $checked = 0;
        $problems = [];
        // Every test class PHPUnit has loaded from this folder (all of them on a whole run).
        foreach (get_declared_classes() as $name) {
            $class = new ReflectionClass($name);
            if ($class->isSubclassOf(TestCase::class) && dirname((string) $class->getFileName()) === __DIR__) {
                $problems = array_merge($problems, self::problems($class));
                $checked++;
            }
        }
        self::assertGreaterThan(0, $checked);
        self::assertSame([], $problems);
    }
}
