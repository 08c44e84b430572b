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
use PHPUnit\Framework\TestCase;

/**
 * The native DatabaseQueryTool on a real in-memory SQLite database (pdo_sqlite): class shape,
 * the read-only guard before the database, parameters, the 100-row and 8192-byte caps, spill
 * files and the discard note, PDO failures, the FORBIDDEN envelope. The MariaDB cases are in
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
