<?php
// A refused shell_exec call through PHP: the native ShellTool against a plain-PHP refusal of the
// same commands written below (guard, trim, metacharacter scan, argv split, hard-blocked and
// allowlist checks, the hook lookup, the exception), in one process, same messages checked first.
// Refused commands: nothing is executed, every one is refused before a process could start.
// Allowed commands: the policy's checks alone (native: the same module in a child PHP with
// phpclaw.shell_sandbox=required and phpclaw.test_sandbox_abi=0, so every call is judged in
// full and then stops where the child would be started; PHP: the plain check below, which
// never starts one) next to the native whole call (spawn and run included), so the spawn cost
// shows apart from the checks.
// Run: php -d extension=<path>/libphpclaw.so bench/shell.php

declare(strict_types=1);

require __DIR__.'/PlainLifecycle.php';
require __DIR__.'/measure.php';

use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Tools\ShellTool;

/**
 * A plain-PHP shell_exec up to its refusals, step for step as the reference takes them: execute()
 * through the lifecycle (bench/PlainLifecycle.php), plan() with the capability guard, trim, the
 * refusal check building its reason array (metacharacters, then the program split off with
 * preg_split + array_filter, hard-blocked, allowlist), the file-argument rules of file-reading
 * programs (basename, backup suffix, extensions, .env, folder segments, path patterns, realpath),
 * the denied event through a two-hop static dispatcher with its context array (phpClaw's
 * HookDispatcher → ShellEventDispatcher → HookRegistry, absent here as in the native run), and
 * the exception.
 */
final class PlainShell
{
    use PhpClawBench\PlainLifecycle;

    private const METACHARACTERS = [';', '&', '|', '>', '<', '`', '$', '(', ')', '{', '}', '[', ']', '\\', '"', "'", '!'];
    private const HARD_BLOCKED = ['rm', 'mv', 'dd', 'mkfs', 'fdisk', 'shred', 'mkfifo', 'mknod', 'chmod', 'chown', 'chattr', 'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'ftp', 'rsync', 'kill', 'killall', 'pkill', 'reboot', 'shutdown', 'halt', 'poweroff', 'init', 'sudo', 'su', 'doas', 'pkexec', 'newgrp', 'chroot', 'bash', 'sh', 'zsh', 'fish', 'csh', 'ksh', 'tcsh', 'dash', 'python', 'python2', 'python3', 'ruby', 'perl', 'node', 'npx', 'npm', 'pip', 'pip3', 'at', 'batch', 'nohup', 'crontab', 'gdb', 'strace', 'ltrace', 'ptrace', 'ps', 'pstree', 'top', 'htop', 'du', 'find', 'env', 'printenv', 'set', 'export', 'artisan'];
    private const FILE_READING = ['cat', 'head', 'tail', 'less', 'more', 'tac', 'nl', 'grep', 'egrep', 'fgrep', 'awk', 'sed', 'wc', 'sort', 'uniq', 'cut', 'paste', 'tr', 'strings', 'xxd', 'hexdump', 'od'];
    private const FILENAMES = ['wp-config.php', 'wp-config-sample.php', 'config.php', 'configuration.php', 'database.php', 'settings.php', 'local_settings.php', 'settings.local.php', 'local.php', 'app.php', 'env.php', 'config.local.php', 'config.prod.php', 'settings.inc.php', 'parameters.php', 'parameters.yml', 'parameters.yaml', '.htpasswd', '.htaccess', '.htdigest', 'nginx.conf', 'httpd.conf', 'php.ini', '.npmrc', '.pypirc', '.netrc', '.envrc', '.my.cnf', '.pgpass', 'credentials.json', 'service-account.json', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa', 'known_hosts', 'authorized_keys', 'docker-compose.yml', 'docker-compose.yaml', '.dockerenv'];
    private const EXTENSIONS = ['env', 'key', 'pem', 'crt', 'p12', 'pfx', 'cer', 'der', 'jks', 'keystore', 'truststore', 'sqlite', 'sqlite3', 'db', 'mdb', 'kdbx', 'kwallet'];
    private const DIRS = ['.git', '.ssh', '.gnupg', '.aws', '.azure', '.gcloud', '.kube', '.docker', '.config', 'wp-admin', 'wp-includes'];
    private const PATTERNS = ['#/etc/(passwd|shadow|group|gshadow|sudoers|hosts|fstab|crontab)#', '#/etc/ssh/#', '#/etc/ssl/#', '#/proc/#', '#/sys/#', '#^/dev/#', '#\.env(\.|$)#'];

    /** @param list<string> $allowlist */
    public function __construct(private array $allowlist)
    {
    }

    public function requiredCapability(): string { return 'phpclaw.tools'; }
    protected function runningInConsole(): bool { return false; }
    protected function callerHasCapability(string $capability): bool { return true; }
    protected function maxRecoveryAttempts(): int { return 0; }

    protected function plan(array $input): array
    {
        $forbidden = $this->guardCapability('run a shell command');
        if ($forbidden !== null) {
            return ['input' => $input, 'result' => $forbidden];
        }
        $command = trim((string) ($input['command'] ?? ''));
        if ($command === '') {
            throw new PhpClaw\Exceptions\ToolException('No command provided.');
        }
        $refusal = $this->refusal($command);
        if ($refusal !== null) {
            PlainHooks::shellDenied($command, $refusal['program'], $refusal['reason'], $refusal['detail']);
            throw new ShellDeniedException($refusal['message']);
        }
        $program = $this->program($command);
        if (in_array($program, self::FILE_READING, true)) {
            $tokens = preg_split('/\s+/', $command) ?: [];
            array_shift($tokens);
            foreach ($tokens as $token) {
                $token = trim($token);
                if ($token === '') {
                    continue;
                }
                if (!str_starts_with($token, '-')) {
                    $this->judgePath($command, $program, $token);
                    continue;
                }
                $eq = strpos($token, '=');
                if ($eq !== false && substr($token, $eq + 1) !== '') {
                    $this->judgePath($command, $program, substr($token, $eq + 1));
                }
            }
        }
        return ['input' => ['command' => $command, 'command_name' => $program], 'result' => null];
    }

    protected function perform(array $input): array { return $input; }
    protected function verify(array $execution, array $input): array { return ['result' => null]; }
    protected function complete(array $execution, array $input): string { return $this->success($execution, ['mode' => 'shell']); }

    private function refusal(string $command): ?array
    {
        foreach (self::METACHARACTERS as $char) {
            if (str_contains($command, $char)) {
                return ['reason' => 'metacharacter', 'program' => '', 'detail' => $char, 'message' => 'Command contains a disallowed shell metacharacter.'];
            }
        }
        $program = $this->program($command);
        if (in_array(strtolower(basename($program)), self::HARD_BLOCKED, true)) {
            return ['reason' => 'hard_blocked', 'program' => $program, 'detail' => '', 'message' => "Command '$program' is permanently blocked and cannot be executed."];
        }
        if (!in_array($program, $this->allowlist, true)) {
            return ['reason' => 'not_in_allowlist', 'program' => $program, 'detail' => '', 'message' => "Command '$program' is not in the shell allowlist."];
        }
        return null;
    }

    private function program(string $command): string
    {
        $parts = array_values(array_filter(preg_split('/\s+/', trim($command)) ?: [], static fn (string $p): bool => $p !== ''));
        return $parts[0] ?? '';
    }

    private function judgePath(string $command, string $program, string $token): void
    {
        $base = strtolower(basename($token));
        $stripped = rtrim($base, '~');
        $effective = preg_replace('/\.(bak|old|orig|save|swp|swo|tmp|copy|backup)$/', '', $stripped) ?? $stripped;
        $ext = strtolower(pathinfo($token, PATHINFO_EXTENSION));
        $effectiveExt = strtolower(pathinfo($effective, PATHINFO_EXTENSION));
        $lower = strtolower($token);
        if (in_array($base, self::FILENAMES, true) || in_array($effective, self::FILENAMES, true)) {
            PlainHooks::shellDenied($command, $program, 'sensitive_file', $token);
            throw new ShellDeniedException("Access to '$base' is blocked: contains sensitive configuration.");
        }
        if (($ext !== '' && in_array($ext, self::EXTENSIONS, true)) || ($effectiveExt !== '' && in_array($effectiveExt, self::EXTENSIONS, true))) {
            PlainHooks::shellDenied($command, $program, 'sensitive_extension', $token);
            throw new ShellDeniedException("Access to '.$ext' files is blocked: may contain secrets.");
        }
        if (str_starts_with($base, '.env')) {
            PlainHooks::shellDenied($command, $program, 'sensitive_file', $token);
            throw new ShellDeniedException("Access to '$base' is blocked: environment files contain secrets.");
        }
        foreach (preg_split('/[\/\\\\]/', $lower) ?: [] as $segment) {
            if ($segment !== '' && in_array($segment, self::DIRS, true)) {
                PlainHooks::shellDenied($command, $program, 'sensitive_directory', $token);
                throw new ShellDeniedException("Access to files in '$segment/' is blocked.");
            }
        }
        foreach (self::PATTERNS as $pattern) {
            if (preg_match($pattern, $lower) === 1) {
                PlainHooks::shellDenied($command, $program, 'sensitive_path', $token);
                throw new ShellDeniedException("Access to '$token' is blocked: system file.");
            }
        }
    }
}

/** The denied event's two static hops and context array; the registry is absent, as in the native run. */
final class PlainHooks
{
    public static function shellDenied(string $command, string $program, string $reason, string $detail = ''): void
    {
        PlainShellEvents::denied($command, $program, $reason, $detail);
    }
}

final class PlainShellEvents
{
    public static function denied(string $command, string $program, string $reason, string $detail): void
    {
        $context = ['command' => $command, 'cmd_name' => $program, 'reason' => $reason];
        if ($detail !== '') {
            $context[$reason === 'metacharacter' ? 'char' : 'file'] = $detail;
        }
        if (class_exists('PhpClaw\\Hooks\\HookRegistry')) {
            PhpClaw\Hooks\HookRegistry::fire('shell.denied', $context);
        }
    }
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

$allowlist = ['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami', 'cat'];
$native = new ShellTool($allowlist);
$plain = new PlainShell($allowlist);
/** Allowed commands, run in this folder. */
$allowed = [
    'pwd' => 'pwd',
    'wc -l on a file' => 'wc -l measure.php',
    'cat of a file' => 'cat measure.php',
];
chdir(__DIR__);

/**
 * The child's part: the checks of each allowed command, native (stopped before the spawn by
 * the required sandbox this child cannot have) against the plain check.
 */
if (($argv[1] ?? '') === '--checks-only') {
    foreach ($allowed as $label => $command) {
        $input = ['command' => $command];
        $checks = function () use ($native, $input): void {
            try {
                $native->execute($input);
            } catch (PhpClaw\Exceptions\ToolException $e) {
                if (!str_contains($e->getMessage(), 'was not run')) {
                    throw $e;
                }
                return;
            }
            throw new RuntimeException('the checks-only child started a process');
        };
        bench_compare("shell_exec allowed, checks alone: $label", $checks, fn () => $plain->execute($input), 2000);
    }
    exit(0);
}

$commands = [
    'not on the allowlist' => 'git status',
    'hard-blocked' => 'rm -rf /',
    'metacharacter' => 'ls; cat /etc/passwd',
    'secret file (cat .env)' => 'cat .env',
];
foreach ($commands as $label => $command) {
    [$n, $p] = [refusal($native, $command), refusal($plain, $command)];
    if ($n === '(not refused)' || $p === '(not refused)' || ($n !== $p && $label !== 'secret file (cat .env)')) {
        fwrite(STDERR, "mismatch for $label: $n vs $p\n");
        exit(1);
    }
}

$n = 20000;
printf("a refused shell_exec call through PHP, exception caught (median of 7 alternated rounds of %d calls; %s)\n", $n, bench_load());
foreach ($commands as $label => $command) {
    $input = ['command' => $command];
    $call = function (object $tool) use ($input): void {
        try {
            $tool->execute($input);
        } catch (ShellDeniedException) {
        }
    };
    bench_compare("shell_exec refused: $label", fn () => $call($native), fn () => $call($plain), $n);
}
$input = ['command' => 'git status'];
[$w, $c] = bench_us(fn () => $native->isMutating($input), $n);
printf("  isMutating() of a refused command: %.2f us wall, %.2f us cpu\n", $w, $c);

/** The loaded module's file (for the checks-only child): PHPCLAW_SO, else this process's own mapping. */
function module_path(): ?string
{
    $so = getenv('PHPCLAW_SO');
    if (is_string($so) && $so !== '') {
        return $so;
    }
    $maps = (string) @file_get_contents('/proc/self/maps');
    return preg_match('#\s(/\S*libphpclaw\.so)$#m', $maps, $m) === 1 ? $m[1] : null;
}

printf("allowed shell_exec calls: the checks alone (native stopped before the spawn, in a child PHP) vs the whole native call (%s)\n", bench_load());
$so = module_path();
if ($so === null) {
    fwrite(STDERR, "cannot find the loaded module for the checks-only child; set PHPCLAW_SO\n");
    exit(1);
}
$child = sprintf('%s -d extension=%s -d phpclaw.shell_sandbox=required -d phpclaw.test_sandbox_abi=0 %s --checks-only',
    escapeshellarg(PHP_BINARY), escapeshellarg($so), escapeshellarg(__FILE__));
exec($child, $lines, $code);
if ($code !== 0) {
    fwrite(STDERR, "checks-only child failed ($code)\n" . implode("\n", $lines) . "\n");
    exit(1);
}
$checks = [];
foreach ($lines as $line) {
    echo $line, "\n";
    $f = explode('|', $line);
    if ($f[0] === 'ratio') {
        $checks[substr($f[1], strlen('shell_exec allowed, checks alone: '))] = [(float) $f[2], (float) $f[3]];
    }
}
foreach ($allowed as $label => $command) {
    $input = ['command' => $command];
    [$w, $c] = bench_us(fn () => $native->execute($input), 200);
    [$cw, $cc] = $checks[$label] ?? [0.0, 0.0];
    printf("  %-44s whole call %9.2f us wall %9.2f us cpu | checks %7.2f us wall %7.2f us cpu | spawn and run %9.2f us wall\n",
        "shell_exec allowed: $label", $w, $c, $cw, $cc, $w - $cw);
}
