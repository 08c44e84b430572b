<?php
// What confinement costs: spawn-to-exit of an allowed `wc -l file` through the native ShellTool,
// confined (Landlock ruleset built in the parent, applied in the child) against the same call
// with the sandbox off, alternated in one sitting; and the policy time of a refused command
// (`cat .env`) and of an allowed one, separately from the spawn.
// The setting is php.ini-only, so each side runs in a child PHP; this script starts both.
// Run: PHPCLAW_SO=<path>/libphpclaw.so php bench/shell_sandbox.php

declare(strict_types=1);

// The module path for the two children: PHPCLAW_SO (bench/run.sh sets it).
$so = (string) getenv('PHPCLAW_SO');
if ($so === '' && !isset($argv[1])) {
    fwrite(STDERR, "set PHPCLAW_SO to the module's path\n");
    exit(2);
}
if (!isset($argv[1])) {
    $dir = sys_get_temp_dir() . '/phpclaw-bench-box-' . getmypid();
    @mkdir($dir);
    file_put_contents("$dir/file.txt", str_repeat("a line of text\n", 2000));
    file_put_contents("$dir/.env", "APP_KEY=x\n");
    $self = __FILE__;
    $run = function (string $mode) use ($self, $dir, $so): array {
        $cmd = [PHP_BINARY, '-d', 'extension=' . $so, '-d', "phpclaw.shell_sandbox=$mode", $self, $dir];
        $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        $text = stream_get_contents($pipes[1]);
        proc_close($p);
        return json_decode((string) $text, true) ?? [];
    };
    $rows = ['auto' => [], 'off' => []];
    for ($i = 0; $i < 5; $i++) {
        foreach (['auto', 'off'] as $mode) {
            $rows[$mode][] = $run($mode);
        }
    }
    $median = function (array $rs, string $k): float {
        $v = array_column($rs, $k);
        sort($v);
        return $v[intdiv(count($v), 2)];
    };
    $conf = $median($rows['auto'], 'spawn_wall');
    $free = $median($rows['off'], 'spawn_wall');
    printf("wc -l through ShellTool, spawn to exit (median of 5 alternated runs of 200 calls):\n");
    printf("  confined   %8.1f us wall  %8.1f us cpu (parent+child)\n", $conf, $median($rows['auto'], 'spawn_cpu'));
    printf("  unconfined %8.1f us wall  %8.1f us cpu (parent+child)\n", $free, $median($rows['off'], 'spawn_cpu'));
    printf("  confinement costs %.1f us, %.1f%% of the unconfined spawn\n", $conf - $free, ($conf - $free) / $free * 100);
    printf("policy only: refused 'cat .env' %.2f us/call (confined build), %.2f us/call (off)\n",
        $median($rows['auto'], 'refused'), $median($rows['off'], 'refused'));
    @unlink("$dir/file.txt");
    @unlink("$dir/.env");
    @rmdir($dir);
    exit(0);
}

// ---- child: one side ----------------------------------------------------------------------
use PhpClaw\Tools\ShellTool;

function cpu_all_us(): float
{
    $s = getrusage();
    $c = getrusage(1);
    $t = 0.0;
    foreach ([$s, $c] as $u) {
        $t += $u['ru_utime.tv_sec'] * 1e6 + $u['ru_utime.tv_usec'] + $u['ru_stime.tv_sec'] * 1e6 + $u['ru_stime.tv_usec'];
    }
    return $t;
}

chdir($argv[1]);
$tool = new ShellTool(['wc', 'cat']);
$n = 200;
$tool->execute(['command' => 'wc -l file.txt']);
$c = cpu_all_us();
$s = hrtime(true);
for ($i = 0; $i < $n; $i++) {
    $tool->execute(['command' => 'wc -l file.txt']);
}
$wall = (hrtime(true) - $s) / $n / 1000;
$cpu = (cpu_all_us() - $c) / $n;
$m = 20000;
$s = hrtime(true);
for ($i = 0; $i < $m; $i++) {
    try {
        $tool->execute(['command' => 'cat .env']);
    } catch (Throwable $e) {
    }
}
$refused = (hrtime(true) - $s) / $m / 1000;
echo json_encode(['spawn_wall' => $wall, 'spawn_cpu' => $cpu, 'refused' => $refused]);
