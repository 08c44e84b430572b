<?php
// A refused shell_exec call through PHP: the native ShellTool against a plain-PHP refusal of the
// same commands written below (guard, trim, metacharacter scan, argv split, hard-blocked and
// allowlist checks, the hook lookup, the exception), in one process, same messages checked first.
// Nothing is executed: every command here is refused before a process could start.
// Run: php -d extension=<path>/libphpclaw.so bench/shell.php

declare(strict_types=1);

use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Tools\ShellTool;

/** A plain-PHP shell_exec refusal: the steps a refused command takes, nothing more. */
final class PlainShellRefusal
{
    private const METACHARACTERS = [';', '&', '|', '>', '<', '`', '$', '(', ')', '{', '}', '[', ']', '\\', '"', "'", '!'];
    private const HARD_BLOCKED = ['rm', 'mv', 'dd', 'mkfs', 'fdisk', 'shred', 'mkfifo', 'mknod', 'chmod', 'chown', 'chattr', 'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'ftp', 'rsync', 'kill', 'killall', 'pkill', 'reboot', 'shutdown', 'halt', 'poweroff', 'init', 'sudo', 'su', 'doas', 'pkexec', 'newgrp', 'chroot', 'bash', 'sh', 'zsh', 'fish', 'csh', 'ksh', 'tcsh', 'dash', 'python', 'python2', 'python3', 'ruby', 'perl', 'node', 'npx', 'npm', 'pip', 'pip3', 'at', 'batch', 'nohup', 'crontab', 'gdb', 'strace', 'ltrace', 'ptrace', 'ps', 'pstree', 'top', 'htop', 'du', 'find', 'env', 'printenv', 'set', 'export', 'artisan'];

    /** @param list<string> $allowlist */
    public function __construct(private array $allowlist)
    {
    }

    public function execute(array $input): string
    {
        $command = trim((string) ($input['command'] ?? ''));
        if ($command === '') {
            throw new RuntimeException('No command provided.');
        }
        foreach (self::METACHARACTERS as $char) {
            if (str_contains($command, $char)) {
                $this->deny($command, '', 'metacharacter', 'Command contains a disallowed shell metacharacter.');
            }
        }
        $parts = preg_split('/\s+/', $command) ?: [];
        $program = $parts[0] ?? '';
        if (in_array(strtolower(basename($program)), self::HARD_BLOCKED, true)) {
            $this->deny($command, $program, 'hard_blocked', "Command '$program' is permanently blocked and cannot be executed.");
        }
        if (!in_array($program, $this->allowlist, true)) {
            $this->deny($command, $program, 'not_in_allowlist', "Command '$program' is not in the shell allowlist.");
        }
        return '';
    }

    private function deny(string $command, string $program, string $reason, string $message): never
    {
        if (class_exists('PhpClaw\\Hooks\\HookRegistry')) {
            PhpClaw\Hooks\HookRegistry::fire('shell.denied', ['command' => $command, 'cmd_name' => $program, 'reason' => $reason]);
        }
        throw new ShellDeniedException($message);
    }
}

/** CPU time (user + system) of this process so far, in microseconds. */
function cpu_us(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] * 1e6 + $u['ru_utime.tv_usec'] + $u['ru_stime.tv_sec'] * 1e6 + $u['ru_stime.tv_usec'];
}

/**
 * Median of $rounds timings of $n calls of $fn, in microseconds per call: [wall, cpu].
 *
 * @return array{float, float}
 */
function us_per_call(callable $fn, int $n, int $rounds = 7): array
{
    $wall = [];
    $cpu = [];
    for ($r = 0; $r < $rounds; $r++) {
        $c = cpu_us();
        $s = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $fn();
        }
        $wall[] = (hrtime(true) - $s) / $n / 1000;
        $cpu[] = (cpu_us() - $c) / $n;
    }
    sort($wall);
    sort($cpu);
    return [$wall[intdiv($rounds, 2)], $cpu[intdiv($rounds, 2)]];
}

/** The refusal message of one call. */
function refusal(object $tool, string $command): string
{
    try {
        $tool->execute(['command' => $command]);
    } catch (ShellDeniedException $e) {
        return $e->getMessage();
    }
    return '(not refused)';
}

$allowlist = ['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami'];
$native = new ShellTool($allowlist);
$plain = new PlainShellRefusal($allowlist);
$commands = [
    'not on the allowlist' => 'git status',
    'hard-blocked' => 'rm -rf /',
    'metacharacter' => 'ls; cat /etc/passwd',
];
foreach ($commands as $label => $command) {
    if (refusal($native, $command) !== refusal($plain, $command)) {
        fwrite(STDERR, "mismatch for $label: " . refusal($native, $command) . ' vs ' . refusal($plain, $command) . "\n");
        exit(1);
    }
}

$n = 20000;
printf("a refused shell_exec call through PHP, exception caught (median of 7 x %d calls; load average %.1f)\n", $n, sys_getloadavg()[0]);
printf("                                              wall us/call   cpu us/call\n");
foreach ($commands as $label => $command) {
    $input = ['command' => $command];
    $call = function (object $tool) use ($input): void {
        try {
            $tool->execute($input);
        } catch (ShellDeniedException) {
        }
    };
    $nativeUs = us_per_call(fn () => $call($native), $n);
    $plainUs = us_per_call(fn () => $call($plain), $n);
    printf("  %-22s native ShellTool       %8.2f      %8.2f\n", $label, ...$nativeUs);
    printf("  %-22s plain-PHP refusal      %8.2f      %8.2f   (native/plain cpu: %.2f)\n", '', ...[...$plainUs, $nativeUs[1] / $plainUs[1]]);
}
$input = ['command' => 'git status'];
$mutating = us_per_call(fn () => $native->isMutating($input), $n);
printf("  isMutating() of a refused command           %8.2f      %8.2f\n", ...$mutating);
