<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\DatabaseQueryTool;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native DatabaseQueryTool on a real in-memory SQLite database (pdo_sqlite): class shape,
 * the read-only guard before the database, parameters, the 100-row and 8192-byte caps, spill
 * files and the discard note, PDO failures, the FORBIDDEN envelope, and the time, size and
 * read-only budget on the site's own connection (ended at the deadline, values and columns
 * capped, the connection the site's again afterwards). The MariaDB cases are in
 * DatabaseQueryToolMariaDbTest.
 */
final class DatabaseQueryToolTest extends TestCase
{
    private string $dir;

    protected function setUp(): void
    {
        if (!extension_loaded('pdo_sqlite')) {
            self::markTestSkipped('pdo_sqlite is not loaded');
        }
        $this->dir = sys_get_temp_dir() . '/phpclaw-dbq-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        foreach (glob($this->dir . '/*') ?: [] as $f) {
            unlink($f);
        }
        @rmdir($this->dir);
    }

    private static function pdo(int $rows = 3, int $width = 1): \PDO
    {
        $pdo = new \PDO('sqlite::memory:');
        $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
        $pdo->exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)');
        $pdo->beginTransaction();
        $ins = $pdo->prepare('INSERT INTO items (id, name, price) VALUES (?, ?, ?)');
        for ($i = 1; $i <= $rows; $i++) {
            $ins->execute([$i, str_repeat('n', $width) . $i, $i + 0.5]);
        }
        $pdo->commit();
        return $pdo;
    }

    /** @return array<string, mixed> */
    private function exec(DatabaseQueryTool $tool, array $input): array
    {
        return json_decode($tool->execute($input), true, 512, JSON_THROW_ON_ERROR);
    }

    public function testShape(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        self::assertInstanceOf(ToolInterface::class, $tool);
        self::assertInstanceOf(AuthorizableToolInterface::class, $tool);
        self::assertInstanceOf(ToolRoutingInterface::class, $tool);
        self::assertTrue((new \ReflectionClass($tool))->isFinal());
        self::assertSame('db_query', $tool->name());
        self::assertStringStartsWith('EXECUTE a read-only SQL SELECT', $tool->description());
        self::assertSame(['sql'], $tool->inputSchema()['required']);
        self::assertSame(['string', 'integer', 'number', 'null'], $tool->inputSchema()['properties']['params']['items']['type']);
        self::assertSame('phpclaw_use_tools', $tool->requiredCapability());
        $meta = $tool->routingMetadata();
        self::assertInstanceOf(ToolRoutingMetadata::class, $meta);
        self::assertSame(['database', 'data'], $meta->domains);
        self::assertSame([], DatabaseQueryTool::examples());
        $p = (new \ReflectionMethod(DatabaseQueryTool::class, '__construct'))->getParameters();
        self::assertSame(['pdo', 'spillDir'], array_map(static fn ($x) => $x->getName(), $p));
        self::assertSame('', $p[1]->getDefaultValue());
    }

    public function testConstructorTypes(): void
    {
        $this->expectException(\TypeError::class);
        new DatabaseQueryTool(new \stdClass());
    }

    public function testSelectReturnsRows(): void
    {
        $tool = new DatabaseQueryTool(self::pdo(), $this->dir);
        $json = $tool->execute(['sql' => '  SELECT id, name, price FROM items ORDER BY id  ']);
        self::assertSame(
            '{"success":true,"data":{"rows":[{"id":1,"name":"n1","price":1.5},{"id":2,"name":"n2","price":2.5},{"id":3,"name":"n3","price":3.5}],"count":3},"meta":{"mode":"query"},"warnings":[]}',
            $json
        );
    }

    public function testParamsPositionalAndNamed(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        $r = $this->exec($tool, ['sql' => 'SELECT name FROM items WHERE id = ?', 'params' => [2]]);
        self::assertSame([['name' => 'n2']], $r['data']['rows']);
        $r = $this->exec($tool, ['sql' => 'SELECT name FROM items WHERE id = :id', 'params' => ['id' => 3]]);
        self::assertSame([['name' => 'n3']], $r['data']['rows']);
        $r = $this->exec($tool, ['sql' => 'SELECT name FROM items WHERE id = ?', 'params' => 1]);
        self::assertSame([['name' => 'n1']], $r['data']['rows']);
    }

    /** @return array<string, array{string}> */
    public static function refused(): array
    {
        return [
            'delete' => ['DELETE FROM items'],
            'drop' => ['DROP TABLE items'],
            'two statements' => ['SELECT 1; DELETE FROM items'],
            'comment' => ['SELECT 1 -- x'],
            'update' => ['UPDATE items SET name = 1'],
        ];
    }

    /** @dataProvider refused */
    #[DataProvider('refused')]
    public function testGuardRefusesBeforeTheDatabase(string $sql): void
    {
        $pdo = self::pdo();
        $tool = new DatabaseQueryTool($pdo);
        try {
            $tool->execute(['sql' => $sql]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertNotSame('', $e->getMessage());
        }
        self::assertSame('3', (string) $pdo->query('SELECT COUNT(*) FROM items')->fetchColumn());
    }

    /**
     * The guard answers before the connection is asked anything: a PDO that cannot even say
     * its driver (constructor never run) still gets the guard's refusal, not PHP's Error.
     * @dataProvider refused
     */
    #[DataProvider('refused')]
    public function testGuardRefusesBeforeAskingTheDriver(string $sql): void
    {
        $pdo = new class ('sqlite::memory:') extends \PDO {
            public function __construct(string $dsn)
            {
            }
        };
        $tool = new DatabaseQueryTool($pdo);
        $this->expectException(ToolException::class);
        $tool->execute(['sql' => $sql]);
    }

    public function testEmptyAndRestricted(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        foreach ([[], ['sql' => '   ']] as $input) {
            try {
                $tool->execute($input);
                self::fail('no exception');
            } catch (ToolException $e) {
                self::assertSame('No SQL query provided.', $e->getMessage());
            }
        }
        $this->expectExceptionMessage('db_query: query references a restricted table or column and was blocked.');
        $tool->execute(['sql' => 'SELECT password FROM users']);
    }

    public function testPdoFailureIsDatabaseQueryFailed(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        $log = $this->dir . '/error.log';
        $old = ini_set('error_log', $log);
        try {
            $tool->execute(['sql' => 'SELECT nope FROM missing_table']);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame('Database query failed.', $e->getMessage());
            self::assertNull($e->getPrevious());
        } finally {
            ini_set('error_log', (string) $old);
        }
        self::assertStringContainsString('[phpClaw] DatabaseQueryTool: SQLSTATE[HY000]', (string) file_get_contents($log));
    }

    public function testSilentPrepareFailure(): void
    {
        $pdo = self::pdo();
        $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_SILENT);
        $tool = new DatabaseQueryTool($pdo);
        $this->expectExceptionMessage('Failed to prepare SQL statement.');
        $tool->execute(['sql' => 'SELECT nope FROM missing_table']);
    }

    public function testAtTheRowCapNothingIsCut(): void
    {
        $r = $this->exec(new DatabaseQueryTool(self::pdo(100), $this->dir), ['sql' => 'SELECT id FROM items']);
        self::assertSame(100, $r['data']['count']);
        self::assertArrayNotHasKey('truncated', $r['data']);
        self::assertSame(['mode' => 'query'], $r['meta']);
        self::assertSame([], glob($this->dir . '/*'));
    }

    public function testPastTheRowCapSpills(): void
    {
        $r = $this->exec(new DatabaseQueryTool(self::pdo(150), $this->dir), ['sql' => 'SELECT id FROM items ORDER BY id']);
        self::assertSame(100, $r['data']['count']);
        self::assertSame(100, $r['data']['total_rows']);
        self::assertTrue($r['data']['truncated']);
        self::assertSame(100, $r['data']['limit']);
        self::assertSame(['mode' => 'query', 'truncated' => true, 'limit' => 100], $r['meta']);
        $path = $r['data']['spill_path'];
        self::assertStringStartsWith($this->dir . '/phpclaw-db-', $path);
        $body = file_get_contents($path);
        self::assertSame(strlen($body), $r['data']['spill_bytes']);
        $lines = explode("\n", rtrim($body, "\n"));
        self::assertCount(100, $lines);
        self::assertSame('{"id":100}', $lines[99]);
        self::assertStringStartsWith('Preview only.', $r['data']['hint']);
    }

    public function testByteCapAtAndPast(): void
    {
        // One row line is strlen(json) + 1 bytes; {"id":N,"name":"nnn…N","price":N.5}.
        $pdo = self::pdo(2, 4000);
        $tool = new DatabaseQueryTool($pdo, $this->dir);
        $lineBytes = static function (\PDO $pdo, int $id): int {
            $row = $pdo->query("SELECT id, name, price FROM items WHERE id = $id")->fetch(\PDO::FETCH_ASSOC);
            return strlen(json_encode($row)) + 1;
        };
        $total = $lineBytes($pdo, 1) + $lineBytes($pdo, 2);
        // Pad row 2 so the two lines are exactly 8192 bytes: both inline.
        $pad = 8192 - $total;
        $pdo->exec("UPDATE items SET name = name || '" . str_repeat('p', $pad) . "' WHERE id = 2");
        $r = $this->exec($tool, ['sql' => 'SELECT id, name, price FROM items ORDER BY id']);
        self::assertSame(2, $r['data']['count']);
        self::assertArrayNotHasKey('truncated', $r['data']);
        // One byte more: the second row is cut and spilled.
        $pdo->exec("UPDATE items SET name = name || 'q' WHERE id = 2");
        $r = $this->exec($tool, ['sql' => 'SELECT id, name, price FROM items ORDER BY id']);
        self::assertSame(1, $r['data']['count']);
        self::assertSame(2, $r['data']['total_rows']);
        self::assertFileExists($r['data']['spill_path']);
    }

    public function testEscapedSlashesCountLikeJsonEncode(): void
    {
        $pdo = self::pdo(2, 1);
        $row1 = json_encode(['id' => 1, 'name' => 'n1', 'price' => 1.5]);
        // Slashes double under json_encode's default flags: counted escaped, the row no longer fits.
        $pdo->exec("UPDATE items SET name = '" . str_repeat('/', 4090) . "' WHERE id = 2");
        $r = $this->exec(new DatabaseQueryTool($pdo, $this->dir), ['sql' => 'SELECT id, name, price FROM items ORDER BY id']);
        $line2 = strlen(json_encode(['id' => 2, 'name' => str_repeat('/', 4090), 'price' => 2.5])) + 1;
        self::assertGreaterThan(8192, strlen($row1) + 1 + $line2);
        self::assertLessThan(8192, strlen($row1) + 1 + 4090 + 40);
        self::assertSame(1, $r['data']['count']);
    }

    public function testFirstRowAlwaysInlineAndDiscardNote(): void
    {
        $pdo = self::pdo(3, 9000);
        $r = $this->exec(new DatabaseQueryTool($pdo, $this->dir . '/missing'), ['sql' => 'SELECT id, name FROM items']);
        self::assertSame(1, $r['data']['count']);
        self::assertSame(3, $r['data']['total_rows']);
        self::assertArrayNotHasKey('spill_path', $r['data']);
        self::assertSame('2 more rows discarded. Narrow the query with fewer columns, a smaller LIMIT, or OFFSET.', $r['data']['hint']);
    }

    // ---- the budget ------------------------------------------------------------------------

    private const TIME_MESSAGE = 'db_query: the query ran past its time budget of %d ms and was stopped. Narrow it (WHERE, LIMIT, fewer joins) and try again.';
    private const SIZE_MESSAGE = 'db_query: the query exceeded its size budget (1048576 bytes per value, 64 columns, 100-byte LIKE/GLOB patterns) and was stopped. Select fewer or shorter columns (e.g. SUBSTR) or a shorter pattern.';
    private const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c';

    private function refusal(DatabaseQueryTool $tool, string $sql): string
    {
        try {
            $tool->execute(['sql' => $sql]);
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail("no exception for $sql");
    }

    /** Peak resident memory of this process, in bytes. */
    private static function peakRss(): int
    {
        preg_match('/^VmHWM:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $m);
        return (int) ($m[1] ?? 0) * 1024;
    }

    /** The site's own checks that its connection behaves as before. */
    private static function assertTheSitesConnection(\PDO $pdo, string $queryOnly = '0'): void
    {
        self::assertSame($queryOnly, (string) $pdo->query('PRAGMA query_only')->fetchColumn());
        if ($queryOnly === '0') {
            $before = (int) $pdo->query('SELECT COUNT(*) FROM items')->fetchColumn();
            $pdo->exec("INSERT INTO items (name, price) VALUES ('site', 1)");
            self::assertSame($before + 1, (int) $pdo->query('SELECT COUNT(*) FROM items')->fetchColumn());
        }
        // The length and column limits are SQLite's defaults again.
        self::assertSame('2000000', (string) $pdo->query('SELECT length(zeroblob(2000000))')->fetchColumn());
        $row = $pdo->query('SELECT ' . implode(', ', range(1, 100)))->fetch(\PDO::FETCH_NUM);
        self::assertCount(100, $row);
        // No progress handler is left: a query of well over 1000 steps runs to its end.
        self::assertSame('300000', (string) $pdo->query(
            'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT max(x) FROM c'
        )->fetchColumn());
    }

    /** Run PHP code with the module, php.ini (for pdo_sqlite) and a short test time budget. */
    private static function child(string $code, int $budgetMs): mixed
    {
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-dbq-child-');
        file_put_contents($file, $code);
        try {
            $run = Subprocess::php(['-d', 'extension=' . PHPCLAW_MODULE, '-d', 'phpclaw.test_db_time_budget_ms=' . $budgetMs,
                '-d', 'display_errors=stderr', $file]);
        } finally {
            unlink($file);
        }
        self::assertSame(0, $run['code'], $run['stdout'] . $run['stderr']);
        return json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
    }

    public function testRecursiveCteEndsAtTheDefaultTimeBudget(): void
    {
        $pdo = self::pdo();
        $tool = new DatabaseQueryTool($pdo);
        $t = microtime(true);
        self::assertSame(sprintf(self::TIME_MESSAGE, 5000), $this->refusal($tool, self::ENDLESS));
        $took = microtime(true) - $t;
        self::assertGreaterThanOrEqual(4.9, $took);
        self::assertLessThan(8.0, $took);
        self::assertTheSitesConnection($pdo);
    }

    public function testTimeBudgetAtAndPastUnderTheTestSetting(): void
    {
        $r = self::child(<<<'PHP'
            <?php
            $pdo = new PDO('sqlite::memory:');
            $pdo->setAttribute(PDO::ATTR_ERRMODE, (int) getenv('ERRMODE'));
            $tool = new PhpClaw\Tools\DatabaseQueryTool($pdo);
            $out = ['ini' => ini_get('phpclaw.test_db_time_budget_ms'), 'ini_set' => ini_set('phpclaw.test_db_time_budget_ms', '9')];
            foreach (['within' => 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT count(*) AS n FROM c',
                      'past' => 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c'] as $k => $sql) {
                $t = microtime(true);
                try {
                    $out[$k] = json_decode($tool->execute(['sql' => $sql]), true)['data']['rows'];
                } catch (PhpClaw\Exceptions\ToolException $e) {
                    $out[$k] = $e->getMessage();
                }
                $out[$k . '_s'] = microtime(true) - $t;
            }
            echo json_encode($out);
            PHP, 400);
        self::assertSame('400', $r['ini']);
        self::assertFalse($r['ini_set'], 'php.ini only');
        self::assertSame([['n' => 20000]], $r['within']);
        self::assertLessThan(0.4, $r['within_s']);
        self::assertSame(sprintf(self::TIME_MESSAGE, 400), $r['past']);
        self::assertGreaterThanOrEqual(0.39, $r['past_s']);
        self::assertLessThan(3.0, $r['past_s']);
    }

    public function testTimeBudgetInSilentErrorMode(): void
    {
        $r = self::child(<<<'PHP'
            <?php
            $pdo = new PDO('sqlite::memory:');
            $pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_SILENT);
            $tool = new PhpClaw\Tools\DatabaseQueryTool($pdo);
            try {
                $out = $tool->execute(['sql' => 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c']);
            } catch (PhpClaw\Exceptions\ToolException $e) {
                $out = $e->getMessage();
            }
            echo json_encode($out);
            PHP, 300);
        self::assertSame(sprintf(self::TIME_MESSAGE, 300), $r);
    }

    public function testTheSitesOpenTransactionSurvivesATimeOut(): void
    {
        $pdo = self::pdo();
        $pdo->beginTransaction();
        $pdo->exec("INSERT INTO items (name, price) VALUES ('in-tx', 1)");
        $r = self::child(<<<'PHP'
            <?php
            $db = tempnam(sys_get_temp_dir(), 'phpclaw-dbq-tx-');
            $pdo = new PDO('sqlite:' . $db);
            $pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
            $pdo->exec('CREATE TABLE t (a)');
            $pdo->beginTransaction();
            $pdo->exec('INSERT INTO t VALUES (1)');
            try {
                (new PhpClaw\Tools\DatabaseQueryTool($pdo))->execute(['sql' => 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c']);
            } catch (PhpClaw\Exceptions\ToolException $e) {
            }
            $pdo->exec('INSERT INTO t VALUES (2)');
            $pdo->commit();
            $count = (new PDO('sqlite:' . $db))->query('SELECT COUNT(*) FROM t')->fetchColumn();
            unlink($db);
            echo json_encode(['in_tx' => $pdo->inTransaction(), 'count' => (int) $count]);
            PHP, 200);
        self::assertSame(['in_tx' => false, 'count' => 2], $r);
        $pdo->rollBack();
    }

    public function testZeroblobOfAGigabyteIsRefusedByTheLengthCapWithMemoryIntact(): void
    {
        $pdo = self::pdo();
        $tool = new DatabaseQueryTool($pdo);
        $before = self::peakRss();
        foreach ([
            'SELECT zeroblob(1e9)',
            'SELECT zeroblob(1e9), zeroblob(1e9), zeroblob(1e9)',
            'SELECT randomblob(1000000000)',
            'SELECT hex(zeroblob(400000)) || hex(zeroblob(400000))',
            'SELECT group_concat(hex(zeroblob(100000))) FROM (' . implode(' UNION ALL ', array_fill(0, 8, 'SELECT 1')) . ')',
        ] as $sql) {
            for ($i = 0; $i < 3; $i++) {
                self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, $sql), $sql);
            }
        }
        self::assertLessThan(64 << 20, self::peakRss() - $before, 'no gigabyte was allocated');
        self::assertTheSitesConnection($pdo);
    }

    public function testValueBudgetAtAndPast(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        $r = $this->exec($tool, ['sql' => "SELECT length(zeroblob(1048576)) AS n, length(hex(zeroblob(524287)) || 'ab') AS t"]);
        self::assertSame([['n' => 1048576, 't' => 1048576]], $r['data']['rows']);
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, 'SELECT length(zeroblob(1048577)) AS n'));
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, "SELECT length(hex(zeroblob(524287)) || 'abc') AS t"));
        // A stored value over the cap is refused when read, not copied.
        $pdo = self::pdo();
        $pdo->exec('UPDATE items SET name = hex(zeroblob(600000)) WHERE id = 1');
        self::assertSame(self::SIZE_MESSAGE, $this->refusal(new DatabaseQueryTool($pdo), 'SELECT name FROM items WHERE id = 1'));
        self::assertTheSitesConnection($pdo);
    }

    public function testColumnBudgetAtAndPast(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        $cols = static fn (int $n): string => 'SELECT ' . implode(', ', array_map(static fn ($i) => "$i AS c$i", range(1, $n)));
        $r = $this->exec($tool, ['sql' => $cols(64)]);
        self::assertCount(64, $r['data']['rows'][0]);
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, $cols(65)));
    }

    public function testPatternBudgetAtAndPast(): void
    {
        // One LIKE call on a 1 MiB value with a 20000-byte pattern ran for minutes: SQLite
        // cannot interrupt a function call, so the pattern length is capped.
        $tool = new DatabaseQueryTool(self::pdo());
        $at = str_repeat('%0', 49) . '%1';
        self::assertSame(100, strlen($at));
        $t = microtime(true);
        $r = $this->exec($tool, ['sql' => 'SELECT hex(zeroblob(524287)) LIKE ? AS l, hex(zeroblob(524287)) GLOB ? AS g',
            'params' => [$at, str_replace('%', '*', $at)]]);
        self::assertSame([['l' => 0, 'g' => 0]], $r['data']['rows']);
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, "SELECT hex(zeroblob(524287)) LIKE '" . $at . "0' AS l"));
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, "SELECT hex(zeroblob(524287)) LIKE '%' || hex(zeroblob(10000)) || '1%' AS l"));
        self::assertLessThan(3.0, microtime(true) - $t);
    }

    public function testQuadraticSingleCallsAreRefused(): void
    {
        // Each of these ran for seconds to minutes in one call, out of the progress handler's reach.
        $tool = new DatabaseQueryTool(self::pdo());
        foreach ([
            "SELECT length(trim(hex(zeroblob(65536)), hex(zeroblob(32768)) || 'x')) AS n" => 'Function not permitted: TRIM with more than one argument.',
            "SELECT ltrim(name, 'n') FROM items" => 'Function not permitted: LTRIM with more than one argument.',
            "SELECT instr(hex(zeroblob(524287)) || '1', hex(zeroblob(262143)) || '1') AS i" => 'Function not permitted: INSTR.',
            "SELECT length(printf('%.*c', 2000000000, 'x')) AS n" => 'Function not permitted: PRINTF.',
            "SELECT format('%.*c', 2000000000, 'x') AS n" => 'Function not permitted: FORMAT.',
            "SELECT json_patch('{}', '{}') AS j" => 'Function not permitted: JSON_PATCH.',
        ] as $sql => $message) {
            $t = microtime(true);
            self::assertSame($message, $this->refusal($tool, $sql), $sql);
            self::assertLessThan(1.0, microtime(true) - $t);
        }
        $r = $this->exec($tool, ['sql' => "SELECT trim('  a  ') AS t, ltrim(' b') AS l, rtrim('c ') AS r"]);
        self::assertSame([['t' => 'a', 'l' => 'b', 'r' => 'c']], $r['data']['rows']);
    }

    public function testFetchingStopsAfterSixteenMegabytesOfRows(): void
    {
        // Rows of 1 MiB - 1 bytes (with the column name): 16 stay under 16 MiB, the 17th
        // crosses it and is the last one fetched.
        $r = $this->exec(new DatabaseQueryTool(self::pdo(), $this->dir), ['sql' =>
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40) SELECT hex(zeroblob(524287)) AS v FROM c"]);
        self::assertSame(17, $r['data']['total_rows']);
        self::assertTrue($r['data']['truncated']);
        self::assertSame(1, $r['data']['count']);
    }

    public function testNothingCanWriteWhileTheQueryRuns(): void
    {
        // A PDO subclass runs the site's own code inside the tool's prepare(): the connection
        // is read-only then, and writable again afterwards.
        $pdo = new class ('sqlite::memory:') extends \PDO {
            public ?string $seen = null;

            public function prepare(string $query, array $options = []): \PDOStatement|false
            {
                try {
                    $this->exec("INSERT INTO items (name, price) VALUES ('sneaky', 1)");
                    $this->seen = 'written';
                } catch (\PDOException $e) {
                    $this->seen = $e->getMessage();
                }
                return parent::prepare($query, $options);
            }
        };
        $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
        $pdo->exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)');
        $r = $this->exec(new DatabaseQueryTool($pdo), ['sql' => 'SELECT COUNT(*) AS n FROM items']);
        self::assertSame([['n' => 0]], $r['data']['rows']);
        self::assertStringContainsString('readonly database', (string) $pdo->seen);
        self::assertTheSitesConnection($pdo);
    }

    public function testTheSitesOwnSettingsAreKept(): void
    {
        $pdo = self::pdo();
        $pdo->exec('PRAGMA query_only = 1');
        $tool = new DatabaseQueryTool($pdo);
        $this->exec($tool, ['sql' => 'SELECT 1 AS x']);
        self::assertSame(self::SIZE_MESSAGE, $this->refusal($tool, 'SELECT zeroblob(1e9)'));
        self::assertTheSitesConnection($pdo, '1');
    }

    public function testTheConnectionIsTheSitesAfterEveryOutcome(): void
    {
        $pdo = self::pdo();
        $tool = new DatabaseQueryTool($pdo);
        $this->exec($tool, ['sql' => 'SELECT id FROM items']);
        self::assertTheSitesConnection($pdo);
        $this->refusal($tool, 'SELECT nope FROM missing_table');
        self::assertTheSitesConnection($pdo);
        $this->refusal($tool, 'DELETE FROM items');
        self::assertTheSitesConnection($pdo);
    }

    /** @return array<string, array{string, string}> */
    public static function refusedFunctionsAndNames(): array
    {
        return [
            'quoted sleep' => ['SELECT `sleep`(5)', 'Function not permitted: SLEEP.'],
            'load_extension quoted' => ['SELECT "load_extension"(\'/tmp/x.so\')', 'Function not permitted: LOAD_EXTENSION.'],
            'bracket name' => ['SELECT [site_fn](1)', 'Function not permitted: SITE_FN.'],
            'user function' => ['SELECT site_fn(1)', 'Function not permitted: SITE_FN.'],
            'qualified' => ['SELECT main.abs(1)', 'Function not permitted: ABS.'],
            'mysql-only function' => ["SELECT DATE_FORMAT('2020-01-01', '%Y')", 'Function not permitted: DATE_FORMAT.'],
            'settable pragma table' => ['SELECT * FROM pragma_query_only WHERE arg = 0', 'Function not permitted: PRAGMA_QUERY_ONLY.'],
            'settable pragma call' => ['SELECT * FROM pragma_foreign_keys(0)', 'Function not permitted: PRAGMA_FOREIGN_KEYS.'],
            'quoted schema' => ['SELECT * FROM "information_schema"."tables"', 'db_query: query references a restricted table or column and was blocked.'],
            'credential column' => ['SELECT [authentication_string] FROM items', 'db_query: query references a restricted table or column and was blocked.'],
        ];
    }

    /** @dataProvider refusedFunctionsAndNames */
    #[DataProvider('refusedFunctionsAndNames')]
    public function testFunctionAllowListAndRestrictedNames(string $sql, string $message): void
    {
        $pdo = self::pdo();
        $pdo->sqliteCreateFunction('site_fn', static fn ($x) => $x);
        self::assertSame($message, $this->refusal(new DatabaseQueryTool($pdo), $sql));
        self::assertSame('0', (string) $pdo->query('PRAGMA query_only')->fetchColumn());
        self::assertSame('0', (string) $pdo->query('PRAGMA foreign_keys')->fetchColumn());
    }

    public function testAllowedFunctionsAndReadOnlyPragmaTablesRun(): void
    {
        $r = $this->exec(new DatabaseQueryTool(self::pdo()), ['sql' =>
            "SELECT COUNT(*) AS n, max(price) AS p, upper('a') AS u, typeof(zeroblob(2)) AS t, "
            . "(SELECT COUNT(*) FROM pragma_table_info('items')) AS cols, "
            . '(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT sum(x) FROM c) AS s FROM items']);
        self::assertSame([['n' => 3, 'p' => 3.5, 'u' => 'A', 't' => 'blob', 'cols' => 3, 's' => 15]], $r['data']['rows']);
    }

    public function testTheTestSettingIsSystemOnly(): void
    {
        self::assertFalse(ini_set('phpclaw.test_db_time_budget_ms', '1'));
        self::assertSame(INI_SYSTEM, ini_get_all('phpclaw')['phpclaw.test_db_time_budget_ms']['access']);
    }

    public function testForbiddenCallerGetsTheEnvelopeAndNothingRuns(): void
    {
        $tool = new DatabaseQueryTool(self::pdo());
        $tool->withAuthorizer(new class () implements ToolAuthorizerInterface {
            public function runningInConsole(): bool
            {
                return false;
            }

            public function allows(): bool
            {
                return false;
            }
        });
        $r = $this->exec($tool, ['sql' => 'DELETE FROM items']);
        self::assertFalse($r['success']);
        self::assertSame('FORBIDDEN', $r['error']['code']);
        self::assertStringContainsString('query the database', $r['error']['message']);
    }
}
