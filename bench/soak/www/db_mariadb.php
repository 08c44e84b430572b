<?php
// db_query on the throw-away MariaDB server: the same calls as on SQLite.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\DatabaseQueryTool;

use function PhpClawSoak\{db_checks, env, serve};

require __DIR__ . '/_db.php';

serve(static fn (): array => db_checks(new DatabaseQueryTool(new PDO(env('SOAK_MYSQL_DSN'), env('SOAK_MYSQL_USER'), env('SOAK_MYSQL_PASSWORD')))));
