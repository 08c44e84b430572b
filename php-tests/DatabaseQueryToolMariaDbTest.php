<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\DatabaseQueryTool;
use PHPUnit\Framework\TestCase;

/**
 * The native DatabaseQueryTool against a real MariaDB server through pdo_mysql: rows as PDO
 * itself returns them, parameters, the 100-row and 8192-byte caps with spill files, MySQL-only
 * tricks refused before the server sees them, and server errors. The server comes from
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
