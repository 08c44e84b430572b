<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\DatabaseQueryTool;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native DatabaseQueryTool against a real MariaDB server through pdo_mysql: rows as PDO
 * itself returns them, parameters, the 100-row and 8192-byte caps with spill files, MySQL-only
 * tricks refused before the server sees them, server errors, and the state and time class:
 * sequences, waits, sleeps, locks, the mysql schema and variable assignment refused before the
 * server, and a slow legitimate query ended by max_statement_time. The server comes from
 * PHPCLAW_MYSQL_DSN / _USER / _PASSWORD (scripts/test.sh starts one on loopback); without it
 * these tests skip, unless PHPCLAW_REQUIRE_MYSQL=1 says the server must be there (CI).
 */
final class DatabaseQueryToolMariaDbTest extends TestCase
{
    private static ?\PDO $pdo = null;
    private string $dir;
    private string $table;

    private static function server(): \PDO
    {
        if (self::$pdo !== null) {
            return self::$pdo;
        }
        $required = getenv('PHPCLAW_REQUIRE_MYSQL') === '1';
        $dsn = (string) getenv('PHPCLAW_MYSQL_DSN');
        if (!extension_loaded('pdo_mysql') || $dsn === '') {
            $why = extension_loaded('pdo_mysql') ? 'PHPCLAW_MYSQL_DSN is not set' : 'pdo_mysql is not loaded';
            $required ? self::fail($why) : self::markTestSkipped($why);
        }
        try {
            $pdo = new \PDO($dsn, (string) getenv('PHPCLAW_MYSQL_USER'), (string) getenv('PHPCLAW_MYSQL_PASSWORD'));
        } catch (\PDOException $e) {
            $required ? self::fail('MariaDB not reachable: ' . $e->getMessage()) : self::markTestSkipped($e->getMessage());
        }
        $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
        $pdo->exec("SET NAMES utf8mb4");
        return self::$pdo = $pdo;
    }

    protected function setUp(): void
    {
        $pdo = self::server();
        $this->table = 'items_' . getmypid() . '_' . bin2hex(random_bytes(3));
        $pdo->exec("CREATE TABLE {$this->table} (id INT PRIMARY KEY, name TEXT CHARACTER SET utf8mb4,
            price DECIMAL(10,2), ratio DOUBLE, made DATETIME, note TEXT CHARACTER SET utf8mb4 NULL) ENGINE=InnoDB");
        $this->dir = sys_get_temp_dir() . '/phpclaw-dbq-my-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        self::$pdo?->exec("DROP TABLE IF EXISTS {$this->table}");
        foreach (glob($this->dir . '/*') ?: [] as $f) {
            unlink($f);
        }
        @rmdir($this->dir);
    }

    private function fill(int $rows, int $width = 1): void
    {
        $ins = self::server()->prepare("INSERT INTO {$this->table} VALUES (?, ?, ?, ?, ?, ?)");
        for ($i = 1; $i <= $rows; $i++) {
            $ins->execute([$i, str_repeat('n', $width) . $i, $i + 0.25, $i / 8, '2026-11-30 12:00:00', $i % 2 ? null : 'é☃😀']);
        }
    }

    /** @return array<string, mixed> */
    private function run_(string $sql, array $params = []): array
    {
        $tool = new DatabaseQueryTool(self::server(), $this->dir);
        $input = ['sql' => $sql] + ($params === [] ? [] : ['params' => $params]);
        return json_decode($tool->execute($input), true, 512, JSON_THROW_ON_ERROR);
    }

    public function testRowsAreWhatPdoReturns(): void
    {
        $this->fill(4);
        $sql = "SELECT id, name, price, ratio, made, note FROM {$this->table} ORDER BY id";
        $r = $this->run_($sql);
        $direct = self::server()->query($sql)->fetchAll(\PDO::FETCH_ASSOC);
        self::assertSame(4, $r['data']['count']);
        self::assertSame($direct, $r['data']['rows']);
        self::assertSame('é☃😀', $r['data']['rows'][1]['note']);
        self::assertNull($r['data']['rows'][0]['note']);
        self::assertSame(['mode' => 'query'], $r['meta']);
    }

    public function testParamsPositionalNamedAndCte(): void
    {
        $this->fill(3);
        self::assertSame([['name' => 'n2']], $this->run_("SELECT name FROM {$this->table} WHERE id = ?", [2])['data']['rows']);
        self::assertSame([['name' => 'n3']], $this->run_("SELECT name FROM {$this->table} WHERE id = :id", ['id' => 3])['data']['rows']);
        $r = $this->run_("WITH t AS (SELECT id FROM {$this->table} WHERE id > ?) SELECT COUNT(*) AS c FROM t", [1]);
        self::assertEquals(2, $r['data']['rows'][0]['c']);
        // A quote in a parameter is data, never SQL.
        $r = $this->run_("SELECT COUNT(*) AS c FROM {$this->table} WHERE name = ?", ["x' OR '1'='1"]);
        self::assertEquals(0, $r['data']['rows'][0]['c']);
    }

    public function testAtTheRowCapNothingIsCut(): void
    {
        $this->fill(100);
        $r = $this->run_("SELECT id FROM {$this->table} ORDER BY id");
        self::assertSame(100, $r['data']['count']);
        self::assertArrayNotHasKey('truncated', $r['data']);
        self::assertSame([], glob($this->dir . '/*'));
    }

    public function testPastTheRowCapSpillsJsonLines(): void
    {
        $this->fill(101);
        $r = $this->run_("SELECT id FROM {$this->table} ORDER BY id");
        self::assertSame(100, $r['data']['count']);
        self::assertTrue($r['data']['truncated']);
        self::assertSame(['mode' => 'query', 'truncated' => true, 'limit' => 100], $r['meta']);
        $lines = explode("\n", rtrim((string) file_get_contents($r['data']['spill_path']), "\n"));
        self::assertCount(100, $lines);
        self::assertSame(['id' => 1], json_decode($lines[0], true));
        self::assertSame(['id' => 100], json_decode($lines[99], true));
    }

    public function testByteCapAtAndPast(): void
    {
        $this->fill(2, 10);
        $pdo = self::server();
        $sql = "SELECT id, name FROM {$this->table} ORDER BY id";
        $bytes = static fn (): int => array_sum(array_map(
            static fn (array $row): int => strlen(json_encode($row)) + 1,
            $pdo->query($sql)->fetchAll(\PDO::FETCH_ASSOC),
        ));
        $pdo->exec("UPDATE {$this->table} SET name = CONCAT(name, REPEAT('p', " . (8192 - $bytes()) . ')) WHERE id = 2');
        self::assertSame(8192, $bytes());
        $r = $this->run_($sql);
        self::assertSame(2, $r['data']['count']);
        self::assertArrayNotHasKey('truncated', $r['data']);
        $pdo->exec("UPDATE {$this->table} SET name = CONCAT(name, 'q') WHERE id = 2");
        $r = $this->run_($sql);
        self::assertSame(1, $r['data']['count']);
        self::assertSame(2, $r['data']['total_rows']);
        self::assertFileExists($r['data']['spill_path']);
    }

    /** @return array<string, array{string, string}> */
    public static function mysqlTricks(): array
    {
        return [
            'backslash escape hides a second statement' => ["SELECT 'a\\'; DELETE FROM %s -- '", 'Only a single statement'],
            'versioned comment' => ['SELECT 1 /*!50000 , (SELECT 1) */ FROM %s', 'SQL comments'],
            'hash comment' => ["SELECT 1 FROM %s # x", 'SQL comments'],
            'into outfile' => ["SELECT * FROM %s INTO OUTFILE '/tmp/phpclaw-x'", 'Blocked keyword: INTO'],
            'into variable' => ['SELECT id FROM %s LIMIT 1 INTO @v', 'Blocked keyword: INTO'],
            'load_file' => ["SELECT LOAD_FILE('/etc/passwd') FROM %s", 'Blocked keyword: LOAD_FILE'],
            'sleep' => ['SELECT SLEEP(5) FROM %s', 'Blocked keyword: SLEEP'],
            'benchmark' => ['SELECT BENCHMARK(100000000, MD5(1)) FROM %s', 'Blocked keyword: BENCHMARK'],
            'locking read' => ['SELECT * FROM %s FOR UPDATE', 'Blocked keyword: UPDATE'],
            'handler' => ['HANDLER %s OPEN', 'Only single SELECT/WITH'],
            'delete' => ['DELETE FROM %s', 'Only single SELECT/WITH'],
        ];
    }

    /** @dataProvider mysqlTricks */
    #[DataProvider('mysqlTricks')]
    public function testMysqlTricksRefusedBeforeTheServer(string $sql, string $message): void
    {
        $this->fill(3);
        $questions = static fn (): int => (int) self::server()->query("SHOW SESSION STATUS LIKE 'Questions'")->fetchColumn(1);
        $calibrate = $questions();
        $idle = $questions() - $calibrate;
        $before = $questions();
        try {
            $this->run_(sprintf($sql, $this->table));
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertStringContainsString($message, $e->getMessage());
        }
        self::assertSame($idle, $questions() - $before, 'no statement reached the server');
        self::assertSame('3', (string) self::server()->query("SELECT COUNT(*) FROM {$this->table}")->fetchColumn());
        self::assertFileDoesNotExist('/tmp/phpclaw-x');
    }

    private const TIME_MESSAGE = 'db_query: the query ran past its time budget of %d ms and was stopped. Narrow it (WHERE, LIMIT, fewer joins) and try again.';
    private const RESTRICTED = 'db_query: query references a restricted table or column and was blocked.';

    /** A cross join of ten 10-row tables: 10^10 rows to count, far past any budget. */
    private function slowQuery(): string
    {
        $pdo = self::server();
        $pdo->exec("INSERT INTO {$this->table} (id) VALUES " . implode(', ', array_map(static fn ($i) => "($i)", range(1, 10))));
        $from = implode(', ', array_map(fn ($i) => "{$this->table} t$i", range(1, 10)));
        return "SELECT COUNT(*) AS n FROM $from WHERE t1.id > ?";
    }

    /** The statements this session has sent so far (SHOW SESSION STATUS 'Questions'). */
    private static function questions(): int
    {
        return (int) self::server()->query("SHOW SESSION STATUS LIKE 'Questions'")->fetchColumn(1);
    }

    /** Refused with $message before anything reached the server, within a second. */
    private function assertRefusedBeforeTheServer(string $sql, string $message): void
    {
        $calibrate = self::questions();
        $idle = self::questions() - $calibrate;
        $before = self::questions();
        $t = microtime(true);
        try {
            $this->run_($sql);
            self::fail("no exception for $sql");
        } catch (ToolException $e) {
            self::assertSame($message, $e->getMessage(), $sql);
        }
        self::assertLessThan(1.0, microtime(true) - $t);
        self::assertSame($idle, self::questions() - $before, "no statement reached the server: $sql");
    }

    public function testNextValueForARealSequenceIsRefusedAndTheSequenceNotAdvanced(): void
    {
        $pdo = self::server();
        $seq = 'seq_' . getmypid() . '_' . bin2hex(random_bytes(3));
        $pdo->exec("CREATE SEQUENCE $seq START WITH 1 INCREMENT BY 1");
        try {
            foreach ([
                "SELECT NEXT VALUE FOR $seq" => 'Blocked clause: NEXT VALUE FOR.',
                "select next  value\nfor $seq" => 'Blocked clause: NEXT VALUE FOR.',
                "SELECT PREVIOUS VALUE FOR $seq" => 'Blocked clause: PREVIOUS VALUE FOR.',
                "SELECT NEXTVAL($seq)" => 'Blocked keyword: NEXTVAL.',
                "SELECT `nextval`($seq)" => 'Function not permitted: NEXTVAL.',
                "SELECT lastval($seq)" => 'Function not permitted: LASTVAL.',
                "SELECT SETVAL($seq, 100)" => 'Blocked keyword: SETVAL.',
                "SELECT $seq.nextval" => 'Blocked keyword: NEXTVAL.',
            ] as $sql => $message) {
                $this->assertRefusedBeforeTheServer($sql, $message);
            }
            // Reading the sequence's row is a plain read, and leaves it where it was.
            $r = $this->run_("SELECT next_not_cached_value AS v FROM $seq");
            self::assertEquals(1, $r['data']['rows'][0]['v']);
            self::assertSame('1', (string) $pdo->query("SELECT NEXT VALUE FOR $seq")->fetchColumn());
        } finally {
            $pdo->exec("DROP SEQUENCE $seq");
        }
    }

    public function testWaitsSleepsAndLocksNeverReachTheServer(): void
    {
        foreach ([
            "SELECT MASTER_GTID_WAIT('0-1-1000000', 30)" => 'Function not permitted: MASTER_GTID_WAIT.',
            "SELECT `master_gtid_wait`('0-1-1000000')" => 'Function not permitted: MASTER_GTID_WAIT.',
            "SELECT MASTER_POS_WAIT('log', 4, 30)" => 'Blocked keyword: MASTER_POS_WAIT.',
            'SELECT SLEEP(30)' => 'Blocked keyword: SLEEP.',
            'SELECT `sleep`(30)' => 'Function not permitted: SLEEP.',
            'SELECT "SLEEP"(30)' => 'Function not permitted: SLEEP.',
            'SELECT `benchmark`(100000000000, 1)' => 'Function not permitted: BENCHMARK.',
            "SELECT `get_lock`('phpclaw', 30)" => 'Function not permitted: GET_LOCK.',
            "SELECT IS_FREE_LOCK('phpclaw')" => 'Function not permitted: IS_FREE_LOCK.',
            "SELECT `load_file`('/etc/hosts')" => 'Function not permitted: LOAD_FILE.',
            'SELECT LAST_INSERT_ID(42)' => 'Function not permitted: LAST_INSERT_ID.',
            'SELECT phpclaw_test.some_function(1)' => 'Function not permitted: SOME_FUNCTION.',
            // One call on two long strings costs their product, past any max_statement_time.
            "SELECT LOCATE(CONCAT(REPEAT('a', 2000000), 'b'), REPEAT('a', 4000000))" => 'Function not permitted: LOCATE.',
            "SELECT INSTR(REPEAT('a', 4000000), REPEAT('a', 2000000))" => 'Function not permitted: INSTR.',
            "SELECT POSITION('b' IN REPEAT('a', 4000000))" => 'Function not permitted: POSITION.',
            "SELECT SUBSTRING_INDEX(REPEAT('a', 4000000), CONCAT(REPEAT('a', 2000000), 'b'), 1)" => 'Function not permitted: SUBSTRING_INDEX.',
        ] as $sql => $message) {
            $this->assertRefusedBeforeTheServer($sql, $message);
        }
    }

    public function testTheServersOwnSchemasAndCredentialsAreRefused(): void
    {
        foreach ([
            'SELECT * FROM `mysql`.`user`',
            'SELECT User FROM mysql.user',
            'SELECT Priv FROM `mysql`.global_priv',
            'SELECT * FROM `information_schema`.`tables`',
            'SELECT * FROM `performance_schema`.`threads`',
            'SELECT * FROM sys.session',
            "SELECT `authentication_string` FROM {$this->table}",
        ] as $sql) {
            $this->assertRefusedBeforeTheServer($sql, self::RESTRICTED);
        }
    }

    public function testVariableAssignmentIsRefused(): void
    {
        $this->assertRefusedBeforeTheServer('SELECT @phpclaw := 1', 'Variable assignment (:=) is not permitted.');
        self::assertNull(self::server()->query('SELECT @phpclaw')->fetchColumn());
    }

    public function testMariaDbFunctionsOnTheAllowListRun(): void
    {
        $this->fill(3);
        $r = $this->run_("SELECT COUNT(*) AS n, GROUP_CONCAT(id ORDER BY id SEPARATOR ',') AS ids, DATE_FORMAT(MAX(made), '%Y') AS y, "
            . "IF(COUNT(*) > 2, 'many', 'few') AS k FROM {$this->table} WHERE id IN (?, ?, ?)", [1, 2, 3]);
        self::assertEquals([['n' => 3, 'ids' => '1,2,3', 'y' => '2026', 'k' => 'many']], $r['data']['rows']);
    }

    public function testASlowLegitimateQueryIsEndedByMaxStatementTime(): void
    {
        $sql = $this->slowQuery();
        $t = microtime(true);
        try {
            $this->run_($sql, [0]);
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame(sprintf(self::TIME_MESSAGE, 5000), $e->getMessage());
        }
        $took = microtime(true) - $t;
        self::assertGreaterThanOrEqual(4.9, $took);
        self::assertLessThan(8.0, $took);
        // Nothing of the wrapper stays on the site's session.
        self::assertEquals(0, self::server()->query('SELECT @@SESSION.max_statement_time')->fetchColumn());
        self::assertSame('1', (string) self::server()->query('SELECT 1')->fetchColumn());
    }

    public function testTimeBudgetAtAndPastWithEmulatedAndServerPrepares(): void
    {
        $sql = $this->slowQuery();
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-dbq-my-child-');
        file_put_contents($file, <<<'PHP'
            <?php
            [, $sql, $emulate] = $argv;
            $pdo = new PDO(getenv('PHPCLAW_MYSQL_DSN'), getenv('PHPCLAW_MYSQL_USER'), getenv('PHPCLAW_MYSQL_PASSWORD'));
            $pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
            $pdo->setAttribute(PDO::ATTR_EMULATE_PREPARES, $emulate === '1');
            $tool = new PhpClaw\Tools\DatabaseQueryTool($pdo);
            $out = [];
            foreach (['within' => [str_replace('t1.id > ?', 't1.id > ? AND t2.id = 1 AND t3.id = 1 AND t4.id = 1 AND t5.id = 1 AND t6.id = 1 AND t7.id = 1', $sql), [0]],
                      'past' => [$sql, [0]],
                      'named' => ['SELECT :a + 1 AS v', ['a' => 41]]] as $k => [$q, $p]) {
                $t = microtime(true);
                try {
                    $out[$k] = json_decode($tool->execute(['sql' => $q, 'params' => $p]), true)['data']['rows'];
                } catch (PhpClaw\Exceptions\ToolException $e) {
                    $out[$k] = $e->getMessage();
                }
                $out[$k . '_s'] = microtime(true) - $t;
            }
            $out['session'] = $pdo->query('SELECT @@SESSION.max_statement_time')->fetchColumn();
            echo json_encode($out);
            PHP);
        try {
            foreach (['1', '0'] as $emulate) {
                $run = Subprocess::php(['-d', 'extension=' . PHPCLAW_MODULE, '-d', 'phpclaw.test_db_time_budget_ms=500',
                    '-d', 'display_errors=stderr', $file, $sql, $emulate]);
                self::assertSame(0, $run['code'], $run['stdout'] . $run['stderr']);
                $r = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
                self::assertEquals([['n' => 10000]], $r['within'], "emulate=$emulate");
                self::assertLessThan(0.5, $r['within_s']);
                self::assertSame(sprintf(self::TIME_MESSAGE, 500), $r['past'], "emulate=$emulate");
                self::assertGreaterThanOrEqual(0.45, $r['past_s']);
                self::assertLessThan(3.0, $r['past_s']);
                self::assertEquals([['v' => 42]], $r['named']);
                self::assertEquals(0, $r['session']);
            }
        } finally {
            unlink($file);
        }
    }

    public function testAHugeResultNeverReachesPhpsMemory(): void
    {
        // 300 rows of 1 MB: buffered, the whole 300 MB would land in PHP's memory (and with
        // memory_limit=-1, Debian's CLI default, nothing would stop it). Unbuffered, fetching
        // stops once 16 MiB are in, and the rest is drained without being kept.
        $file = tempnam(sys_get_temp_dir(), 'phpclaw-dbq-my-child-');
        file_put_contents($file, <<<'PHP'
            <?php
            $pdo = new PDO(getenv('PHPCLAW_MYSQL_DSN'), getenv('PHPCLAW_MYSQL_USER'), getenv('PHPCLAW_MYSQL_PASSWORD'));
            $pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
            $pdo->setAttribute(PDO::ATTR_EMULATE_PREPARES, $argv[1] === '1');
            $tool = new PhpClaw\Tools\DatabaseQueryTool($pdo, sys_get_temp_dir() . '/phpclaw-no-such-dir');
            $base = memory_get_usage();
            $r = json_decode($tool->execute(['sql' => "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) "
                . "SELECT x, REPEAT('a', 1000000) AS big FROM c"]), true);
            echo json_encode([
                'total' => $r['data']['total_rows'], 'truncated' => $r['data']['truncated'],
                'peak' => memory_get_peak_usage() - $base,
                'buffered' => $pdo->getAttribute(PDO::MYSQL_ATTR_USE_BUFFERED_QUERY),
                'next' => $pdo->query('SELECT 41 + 1')->fetchColumn(),
            ]);
            PHP);
        try {
            foreach (['1', '0'] as $emulate) {
                $run = Subprocess::php(['-d', 'extension=' . PHPCLAW_MODULE, '-d', 'memory_limit=128M',
                    '-d', 'display_errors=stderr', $file, $emulate]);
                self::assertSame(0, $run['code'], $run['stdout'] . $run['stderr']);
                $r = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
                self::assertSame(17, $r['total'], "emulate=$emulate");
                self::assertTrue($r['truncated']);
                self::assertLessThan(100 << 20, $r['peak'], "emulate=$emulate");
                self::assertEquals(1, $r['buffered'], 'the site\'s setting is back');
                self::assertEquals(42, $r['next']);
            }
        } finally {
            unlink($file);
        }
    }

    public function testServerErrorIsDatabaseQueryFailed(): void
    {
        $log = $this->dir . '/error.log';
        $old = ini_set('error_log', $log);
        try {
            $this->run_('SELECT nope FROM phpclaw_no_such_table');
            self::fail('no exception');
        } catch (ToolException $e) {
            self::assertSame('Database query failed.', $e->getMessage());
        } finally {
            ini_set('error_log', (string) $old);
        }
        self::assertStringContainsString('SQLSTATE[42S02]', (string) file_get_contents($log));
    }
}
