<?php
// db_query on SQLite: a grouped read with a parameter, a 300-row read that spills (checked and
// removed), and two refusals.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\DatabaseQueryTool;

use function PhpClawSoak\{db_checks, serve, ws};

require __DIR__ . '/_db.php';

serve(static fn (): array => db_checks(new DatabaseQueryTool(new PDO('sqlite:' . ws() . '/database/shop.sqlite'))));
