<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Concerns\HasCoreToolBinding;
use PhpClaw\Tools\Concerns\HasToolExecutionContract;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;
use ReflectionClass;

/**
 * With opcache.preload set the module leaves the lifecycle traits to PHP: a preloaded tool on a
 * PHP fallback trait must run, and `php --ri phpclaw` must say so. Without preload the traits
 * are native.
 */
final class PreloadTest extends TestCase
{
    private const DIR = __DIR__ . '/fixtures/preload';

    /** @return list<string> the ini flags of a preloading child */
    private static function preloadFlags(string $preload = self::DIR . '/preload.php'): array
    {
        $flags = ['-n', '-d', 'zend_extension=opcache', '-d', 'opcache.enable=1', '-d', 'opcache.enable_cli=1',
            '-d', 'opcache.preload=' . $preload, '-d', 'extension=' . PHPCLAW_MODULE,
            '-d', 'display_errors=stderr', '-d', 'error_reporting=-1'];
        if (function_exists('posix_getuid') ? posix_getuid() === 0 : trim((string) shell_exec('id -u')) === '0') {
            // PHP refuses to preload as root unless told which user to preload as.
            array_push($flags, '-d', 'opcache.preload_user=root');
        }

        return $flags;
    }

    protected function setUp(): void
    {
        $probe = Subprocess::php(['-n', '-d', 'zend_extension=opcache', '-r', 'echo extension_loaded("Zend OPcache") ? "yes" : "no";']);
        if ($probe['stdout'] !== 'yes') {
            self::markTestSkipped('OPcache is not available as a shared extension');
        }
    }

    public function testPreloadedToolRunsOnThePhpFallbackTrait(): void
    {
        $run = Subprocess::php([...self::preloadFlags(), self::DIR . '/main.php']);
        self::assertSame(0, $run['code'], "exit code; stderr: {$run['stderr']}");
        self::assertSame('', $run['stderr']);
        $report = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
        self::assertTrue($report['preloaded_class'], 'the tool class was preloaded');
        self::assertTrue($report['trait_exists']);
        self::assertFalse($report['trait_internal'], 'the trait is the PHP fallback');
        self::assertFalse($report['core_trait_exists'], 'the native core trait is not registered either');
        self::assertTrue($report['interface_internal'], 'contracts stay native under preload');
        self::assertTrue($report['exception_internal'], 'exceptions stay native under preload');
        self::assertTrue($report['metadata']);
        self::assertSame('{"success":true,"data":{"q":"hello","html":"a & b","attempts":1},"meta":[],"warnings":[]}', $report['result']);
        self::assertSame('{"success":true,"data":{"q":null,"html":"a & b","attempts":2},"meta":[],"warnings":[]}', $report['retried']);
        self::assertSame(
            '{"success":false,"error":{"code":"UNKNOWN_ARGUMENT","message":"Unknown argument \"nope\".","accepted_arguments":["q","fail"]},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $report['unknown'],
        );
    }

    public function testInfoSaysTheTraitsAreNotRegisteredUnderPreload(): void
    {
        $run = Subprocess::php([...self::preloadFlags(), '--ri', 'phpclaw']);
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertMatchesRegularExpression('/^Native lifecycle traits => not registered: opcache\.preload is set/m', $run['stdout']);
        self::assertStringNotContainsString('registered (HasToolExecutionContract', $run['stdout']);
    }

    public function testInfoSaysTheTraitsAreRegisteredWithoutPreload(): void
    {
        $run = Subprocess::php(['-n', '-d', 'extension=' . PHPCLAW_MODULE, '--ri', 'phpclaw']);
        self::assertSame(0, $run['code'], $run['stderr']);
        self::assertMatchesRegularExpression('/^Native lifecycle traits => registered \(HasToolExecutionContract, HasCoreToolBinding\)$/m', $run['stdout']);
    }

    public function testAnEmptyPreloadSettingKeepsTheNativeTraits(): void
    {
        $run = Subprocess::php(['-n', '-d', 'opcache.preload=', '-d', 'extension=' . PHPCLAW_MODULE, '-r',
            'echo (new ReflectionClass(PhpClaw\Tools\Concerns\HasToolExecutionContract::class))->isInternal() ? "internal" : "php";']);
        self::assertSame('internal', $run['stdout'], $run['stderr']);
    }

    public function testWithoutPreloadTheTraitsAreInternal(): void
    {
        foreach ([HasToolExecutionContract::class, HasCoreToolBinding::class] as $trait) {
            self::assertTrue(trait_exists($trait, false), $trait);
            $ref = new ReflectionClass($trait);
            self::assertTrue($ref->isInternal(), $trait);
            self::assertTrue($ref->isTrait(), $trait);
            self::assertSame('phpclaw', $ref->getExtensionName());
        }
        $child = Subprocess::withModule('<?php echo json_encode([
            trait_exists(PhpClaw\Tools\Concerns\HasToolExecutionContract::class, false),
            (new ReflectionClass(PhpClaw\Tools\Concerns\HasCoreToolBinding::class))->isInternal(),
        ]);');
        self::assertSame('[true,true]', $child['stdout'], $child['stderr']);
    }

    public function testTheFallbackIsNotDeclaredWhenTheNativeTraitExists(): void
    {
        // Loading the preload fixture as a plain script (no preload) keeps the native trait.
        $fixture = self::DIR . '/preload.php';
        $run = Subprocess::withModule("<?php require '$fixture';
            \$t = new PhpClawPreload\\PreloadedTool();
            echo (new ReflectionMethod(\$t, 'execute'))->isInternal() ? 'native' : 'php', ' ', \$t->execute(['q' => 'x']);");
        self::assertSame('native {"success":true,"data":{"q":"x","html":"a & b","attempts":1},"meta":[],"warnings":[]}', $run['stdout'], $run['stderr']);
    }

    public function testTheFallbackMatchesTheNativeTrait(): void
    {
        // The same tool, once on the PHP fallback (preloaded) and once on the native trait,
        // gives identical envelopes.
        $main = self::DIR . '/main.php';
        $preloaded = Subprocess::php([...self::preloadFlags(), $main]);
        $fixture = self::DIR . '/preload.php';
        $native = Subprocess::withModule("<?php require '$fixture'; require '$main';");
        $a = json_decode($preloaded['stdout'], true, 512, JSON_THROW_ON_ERROR);
        $b = json_decode($native['stdout'], true, 512, JSON_THROW_ON_ERROR);
        self::assertTrue($b['trait_internal']);
        self::assertFalse($a['trait_internal']);
        foreach (['result', 'retried', 'unknown'] as $key) {
            self::assertSame($b[$key], $a[$key], $key);
        }
    }
}
