<?php
// The soak's fixtures, made before the servers start (run by bench/soak/run.sh with php CLI):
// a small Laravel-style workspace for the file, search, project, zip and shell tools, an SQLite
// database of 300 orders (more than db_query's 100 inline rows, so every full read spills) and,
// when a MariaDB server is given (PHPCLAW_MYSQL_DSN/_USER/_PASSWORD), the same table there.
//   php bench/soak/setup.php WORKSPACE

declare(strict_types=1);

$ws = $argv[1] ?? '';
if ($ws === '' || !is_dir($ws)) {
    fwrite(STDERR, "usage: php setup.php EXISTING-WORKSPACE-FOLDER\n");
    exit(2);
}

$files = [
    'artisan' => "#!/usr/bin/env php\n<?php\n// console entry point\n",
    'composer.json' => json_encode(['name' => 'acme/shop', 'require' => ['php' => '^8.2', 'laravel/framework' => '^11.0']], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n",
    'composer.lock' => json_encode(['packages' => [['name' => 'laravel/framework', 'version' => 'v11.9.2']]], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n",
    '.env' => "APP_KEY=base64:c29haw==\nDB_PASSWORD=soak\n",
    'app/Models/Order.php' => "<?php\n\nnamespace App\\Models;\n\nfinal class Order\n{\n    public const TAX = 0.2;\n\n    public function total(array \$lines): float\n    {\n        return array_sum(\$lines) * (1 + self::TAX);\n    }\n}\n",
    'app/Http/Controllers/OrderController.php' => "<?php\n\nnamespace App\\Http\\Controllers;\n\nuse App\\Models\\Order;\n\nfinal class OrderController\n{\n    public function show(Order \$order): array\n    {\n        return ['total' => \$order->total([10, 20])];\n    }\n\n    public function refund(int \$id): void\n    {\n    }\n}\n",
    'routes/web.php' => "<?php\n\nRoute::get('/orders/{order}', [OrderController::class, 'show']);\n",
    'vendor/laravel/framework/src/Order.php' => "<?php // vendor code: code_search skips it\n",
    // Longer than shell_exec's 8192-byte inline cap: `cat` of it spills.
    'storage/logs/big.log' => implode('', array_map(static fn (int $i) => sprintf("line %05d of the soak log\n", $i), range(1, 1000))),
];
// Some bulk for the walkers: 40 folders of 10 classes.
for ($d = 0; $d < 40; $d++) {
    for ($f = 0; $f < 10; $f++) {
        $files["app/Domain/Area$d/Thing$f.php"] = "<?php\n\nnamespace App\\Domain\\Area$d;\n\nfinal class Thing$f\n{\n    public function order(): int\n    {\n        return $d$f;\n    }\n}\n";
    }
}
foreach ($files as $path => $body) {
    if (!is_dir(dirname("$ws/$path"))) {
        mkdir(dirname("$ws/$path"), 0755, true);
    }
    file_put_contents("$ws/$path", $body);
}
mkdir("$ws/notes");
mkdir("$ws/shared");
mkdir("$ws/database");

$rows = [];
for ($i = 1; $i <= 300; $i++) {
    $rows[] = ['customer' => 'customer-' . ($i % 37), 'total' => round($i * 1.25, 2), 'status' => ['paid', 'open', 'refunded'][$i % 3]];
}

/** Create and fill soak_orders through $db (SQLite or MariaDB). */
function fill(PDO $db, array $rows, string $idColumn): void
{
    $db->exec('DROP TABLE IF EXISTS soak_orders');
    $db->exec("CREATE TABLE soak_orders (id $idColumn, customer VARCHAR(40), total DECIMAL(10,2), status VARCHAR(10))");
    $insert = $db->prepare('INSERT INTO soak_orders (customer, total, status) VALUES (?, ?, ?)');
    foreach ($rows as $row) {
        $insert->execute([$row['customer'], $row['total'], $row['status']]);
    }
}

$sqlite = new PDO("sqlite:$ws/database/shop.sqlite", null, null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
fill($sqlite, $rows, 'INTEGER PRIMARY KEY');
echo "soak: workspace with ", count($files), " files and an SQLite database at $ws\n";

$dsn = getenv('PHPCLAW_MYSQL_DSN');
if (is_string($dsn) && $dsn !== '') {
    $my = new PDO($dsn, (string) getenv('PHPCLAW_MYSQL_USER'), (string) getenv('PHPCLAW_MYSQL_PASSWORD'), [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
    fill($my, $rows, 'INT AUTO_INCREMENT PRIMARY KEY');
    echo "soak: table soak_orders at $dsn\n";
}
