<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\DatabaseQueryTool;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClaw\Tools\HttpTool;
use PhpClaw\Tools\LoadSkillTool;
use PhpClaw\Tools\ProjectTool;
use PhpClaw\Tools\ShellTool;
use PhpClaw\Tools\ToolCatalogue;
use PhpClaw\Tools\ToolInput;
use PhpClaw\Tools\ToolRegistry;
use PhpClaw\Tools\ToolRouter;
use PhpClaw\Tools\ZipPackagerTool;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Heap;

/**
 * A long-running worker calls the same tools thousands of times: every native tool, on its
 * success path and on a refusal (an exception), must leave the Zend heap where it found it, and
 * a tool must be freed once the caller drops it. Rust-side leaks are valgrind's part
 * (php-tests/valgrind.sh); this test catches PHP values the bindings keep alive.
 */
final class MemoryTest extends TestCase
{
    private static string $ws;

    public static function setUpBeforeClass(): void
    {
        self::$ws = sys_get_temp_dir() . '/phpclaw-mem-' . getmypid() . '-' . bin2hex(random_bytes(3));
        mkdir(self::$ws . '/src/app', 0777, true);
        file_put_contents(self::$ws . '/composer.lock', '{"packages":[{"name":"a/b","version":"1.0.0"}]}');
        file_put_contents(self::$ws . '/artisan', "<?php\n");
        for ($i = 0; $i < 5; $i++) {
            file_put_contents(self::$ws . "/src/app/F$i.php", str_repeat("<?php // needle line $i\n", 20));
        }
        file_put_contents(self::$ws . '/notes.txt', "alpha\nbeta\n");
    }

    public static function tearDownAfterClass(): void
    {
        Files::remove(self::$ws);
    }

    /** @return array<string, array{\Closure(): object, array<string, mixed>, int}> */
    public static function calls(): array
    {
        $ws = static fn (): string => self::$ws;
        $pdo = static function (): \PDO {
            $pdo = new \PDO('sqlite::memory:');
            $pdo->exec('CREATE TABLE t (id INTEGER, name TEXT)');
            $pdo->exec("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            return $pdo;
        };
        return [
            'file_read' => [static fn () => new FileReadTool($ws()), ['path' => 'notes.txt', 'line_numbers' => true], 1000],
            'file_read refused' => [static fn () => new FileReadTool($ws()), ['path' => '../x'], 1000],
            'file_write' => [static fn () => new FileWriteTool($ws()), ['path' => 'out/w.txt', 'content' => 'x'], 300],
            'file_write refused' => [static fn () => new FileWriteTool($ws()), ['path' => 'a.php', 'content' => 'x'], 1000],
            'file_edit unread refused' => [static fn () => new FileEditTool($ws()), ['path' => 'notes.txt', 'old_str' => 'alpha', 'new_str' => 'beta'], 1000],
            'code_search literal' => [static fn () => new CodeSearchTool($ws()), ['pattern' => 'needle', 'context_lines' => 1], 300],
            'code_search regex' => [static fn () => new CodeSearchTool($ws()), ['pattern' => '/needle line [0-4]/', 'is_regex' => true], 300],
            'code_search bad regex' => [static fn () => new CodeSearchTool($ws()), ['pattern' => '/(/', 'is_regex' => true], 1000],
            'project_info' => [static fn () => new ProjectTool($ws()), ['depth' => 3], 300],
            'shell refused' => [static fn () => new ShellTool(), ['command' => 'rm -rf /'], 1000],
            'shell run' => [static fn () => new ShellTool(), ['command' => 'pwd'], 100],
            'http refused' => [static fn () => new HttpTool(), ['url' => 'http://169.254.169.254/'], 1000],
            'db_query' => [static fn () => new DatabaseQueryTool($pdo()), ['sql' => 'SELECT id, name FROM t WHERE id > ?', 'params' => [0]], 1000],
            'db_query refused' => [static fn () => new DatabaseQueryTool($pdo()), ['sql' => 'DELETE FROM t'], 1000],
            'zip_package' => [static fn () => new ZipPackagerTool($ws()), ['source_dir' => 'src', 'output_name' => 'phpclaw-mem-' . getmypid()], 100],
            'load_skill unknown' => [static fn () => new LoadSkillTool(), ['name' => 'nope'], 1000],
        ];
    }

    /**
     * @dataProvider calls
     * @param \Closure(): object $make
     */
    #[DataProvider('calls')]
    public function testRepeatedCallsDoNotGrowTheHeap(\Closure $make, array $input, int $times): void
    {
        if (getenv('USE_ZEND_ALLOC') === '0') {
            self::markTestSkipped('memory_get_usage() does not track memory without the Zend allocator');
        }
        $tool = $make();
        $call = static function () use ($tool, $input): void {
            try {
                $tool->execute($input);
            } catch (ToolException) {
            }
        };
        $growth = Heap::growth($call, $times);
        if (isset($input['output_name'])) {
            @unlink(sys_get_temp_dir() . '/' . $input['output_name'] . '.zip');
        }
        self::assertLessThan(2048, $growth, "$times calls grew the heap");
        $weak = \WeakReference::create($tool);
        unset($tool, $call);
        gc_collect_cycles();
        self::assertNull($weak->get(), 'the tool is freed when the caller drops it');
    }

    public function testRouterRegistryAndInputDoNotGrowTheHeap(): void
    {
        if (getenv('USE_ZEND_ALLOC') === '0') {
            self::markTestSkipped('memory_get_usage() does not track memory without the Zend allocator');
        }
        $tools = [new FileReadTool(self::$ws), new CodeSearchTool(self::$ws), new ProjectTool(self::$ws), new ShellTool()];
        $router = new ToolRouter(2);
        $registry = new ToolRegistry();
        $registry->register($tools);
        $schema = $tools[0]->inputSchema();
        $run = static function () use ($router, $registry, $schema): void {
            $router->filter($registry->schemas('openai'), 'search the code for needle and read the file');
            ToolInput::tidy(['path' => ' notes.txt ', 'line_numbers' => 'true', 'extra' => 1], $schema);
            ToolInput::capResult(str_repeat('x', 20000));
            ToolCatalogue::all();
        };
        self::assertLessThan(2048, Heap::growth($run, 1000));
    }
}
