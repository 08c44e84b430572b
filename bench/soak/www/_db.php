<?php
// The db_query calls both database endpoints make, on the soak_orders table setup.php fills
// with the same 300 rows in SQLite and MariaDB.

declare(strict_types=1);

namespace PhpClawSoak;

use PhpClaw\Tools\DatabaseQueryTool;

function db_checks(DatabaseQueryTool $db): array
{
    $data = success($db->execute(['sql' => 'SELECT status, COUNT(*) AS n FROM soak_orders WHERE total > ? GROUP BY status ORDER BY status', 'params' => [100]]))['data'];
    $counts = array_map(static fn (array $r) => [$r['status'], (int) $r['n']], $data['rows']);
    expect($counts === [['open', 73], ['paid', 74], ['refunded', 73]], 'grouped: ' . json_encode($data['rows']));

    // 300 rows: the first 100 are kept (inline and in the spill file), the rest never fetched.
    $data = success($db->execute(['sql' => 'SELECT id, customer, total FROM soak_orders ORDER BY id']))['data'];
    $spill = $data['spill_path'] ?? '';
    expect($spill !== '' && is_file($spill), 'no spill file: ' . json_encode(array_diff_key($data, ['rows' => 1])));
    $lines = count(file($spill));
    unlink($spill);
    expect($lines === 100 && $data['truncated'] === true, "spill file holds $lines rows, not 100");

    refused(fn () => $db->execute(['sql' => 'DELETE FROM soak_orders']), 'Only single SELECT/WITH read queries are permitted.');
    refused(fn () => $db->execute(['sql' => 'SELECT 1; DROP TABLE soak_orders']), 'Only a single statement is permitted (";" found).');

    return ['refusals' => 2];
}
