<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\MutatingToolInterface;
use PhpClaw\Tools\Contracts\PerInvocationMutabilityInterface;
use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\ShellTool;
use PhpClaw\Tools\ToolMutability;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClawTests\Support\ReadonlyProbe;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/**
 * The native ShellTool on real processes: class shape, named constructor arguments, the
 * policy's refusals and their hook events (in a child process with stand-in hook classes),
 * output cleaning, the inline caps and spill files, the 5 s timeout that kills the whole
 * process group, the 10 MB read ceiling, the filtered child environment and isMutating().
 * Self-contained: needs only the loaded module.
 */
final class ShellToolTest extends TestCase
{
    private string $dir;

    private string $cwd;

    /** @var list<string> */
    private array $spills = [];

    /** @var list<string> */
    private array $envSet = [];

    protected function setUp(): void
    {
        $this->cwd = (string) getcwd();
        $this->dir = sys_get_temp_dir() . '/phpclaw-sht-' . bin2hex(random_bytes(6));
        mkdir($this->dir, 0755, true);
        $this->dir = (string) realpath($this->dir);
    }

    protected function tearDown(): void
    {
        chdir($this->cwd);
        foreach ($this->envSet as $name) {
            putenv($name);
        }
        foreach ($this->spills as $file) {
            @unlink($file);
        }
        foreach (scandir($this->dir) ?: [] as $entry) {
            if ($entry !== '.' && $entry !== '..') {
                @unlink($this->dir . '/' . $entry);
            }
        }
        @rmdir($this->dir);
    }

    // ---- helpers ------------------------------------------------------------------------

    /** An executable shell script in the test folder; returns its absolute path. */
    private function script(string $name, string $body): string
    {
        $path = $this->dir . '/' . $name;
        file_put_contents($path, "#!/bin/sh\n" . $body . "\n");
        chmod($path, 0755);
        return $path;
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        return json_decode($json, true, 512, JSON_THROW_ON_ERROR);
    }

    private function commandOutput(ShellTool $tool, string $command): string
    {
        return self::decode($tool->execute(['command' => $command]))['data']['output'];
    }

    private function thrown(ShellTool $tool, mixed $command): \Throwable
    {
        try {
            $tool->execute(['command' => $command]);
        } catch (\Throwable $e) {
            return $e;
        }
        self::fail('expected an exception for ' . var_export($command, true));
    }

    /**
     * Split a spill answer into preview and file, checking the note's wording and the file.
     *
     * @return array{0: string, 1: string}
     */
    private function spill(string $output, string $stream, int $total): array
    {
        $pattern = '~\n\.\.\. \[truncated; full ' . $stream . ' \(' . $total . ' bytes\) written to (/\S+)\]$~';
        self::assertSame(1, preg_match($pattern, $output, $m), substr($output, -200));
        $file = $m[1];
        $this->spills[] = $file;
        $prefix = rtrim(sys_get_temp_dir(), '/') . '/phpclaw-shell-' . $stream . '-';
        self::assertStringStartsWith($prefix, $file);
        self::assertSame(strlen($prefix) + 6, strlen($file));
        self::assertFileExists($file);
        self::assertSame(0600, fileperms($file) & 0777);
        self::assertSame($total, filesize($file));
        return [substr($output, 0, strlen($output) - strlen($m[0])), $file];
    }

    /** The module under test (run.sh defines it; a plain `php -d extension=…` run names it). */
    private static function module(): string
    {
        if (defined('PHPCLAW_MODULE')) {
            return (string) constant('PHPCLAW_MODULE');
        }
        $env = getenv('PHPCLAW_MODULE');
        if (is_string($env) && $env !== '') {
            return $env;
        }
        $args = explode("\0", (string) @file_get_contents('/proc/self/cmdline'));
        foreach ($args as $i => $arg) {
            $setting = $arg === '-d' ? ($args[$i + 1] ?? '') : (str_starts_with($arg, '-d') ? substr($arg, 2) : '');
            if (str_starts_with($setting, 'extension=') && str_contains($setting, 'phpclaw')) {
                return substr($setting, strlen('extension='));
            }
        }
        self::markTestSkipped('cannot tell which module file is loaded');
    }

    /** @return array{code: int, stdout: string, stderr: string} */
    private static function child(array $args): array
    {
        $cmd = array_merge([PHP_BINARY, '-n', '-d', 'extension=' . self::module(), '-d', 'display_errors=stderr'], $args);
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($proc);
        fclose($pipes[0]);
        $stdout = (string) stream_get_contents($pipes[1]);
        $stderr = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return ['code' => proc_close($proc), 'stdout' => $stdout, 'stderr' => $stderr];
    }

    /** @return array<string, array{thrown: ?string, message: ?string, output: ?string, events: list<array{0: string, 1: array<string, string>}>}> */
    private function hookRun(?string $throwOn = null): array
    {
        $args = [__DIR__ . '/fixtures/shell_hooks.php', $this->dir];
        if ($throwOn !== null) {
            $args[] = $throwOn;
        }
        $run = self::child($args);
        self::assertSame(0, $run['code'], $run['stderr'] . $run['stdout']);
        self::assertSame('', $run['stderr']);
        return json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
    }

    // ---- class shape ----------------------------------------------------------------------

    public function testClassShape(): void
    {
        $class = new \ReflectionClass(ShellTool::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        foreach ([ToolInterface::class, AuthorizableToolInterface::class, ToolRoutingInterface::class, MutatingToolInterface::class, PerInvocationMutabilityInterface::class] as $iface) {
            self::assertTrue($class->implementsInterface($iface), $iface);
        }
        self::assertSame(8192, ShellTool::DEFAULT_MAX_STDOUT_BYTES);
        self::assertSame(10000, ShellTool::DEFAULT_MAX_STDERR_BYTES);
        self::assertSame(5, $class->getConstant('PROCESS_TIMEOUT_SECONDS'));
        self::assertSame(10485760, $class->getConstant('HARD_READ_CEILING_BYTES'));
        self::assertSame(9, $class->getConstant('SIGKILL'));
        self::assertSame(['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami'], $class->getConstant('DEFAULT_ALLOWLIST'));
        self::assertSame(['ls', 'pwd', 'df', 'cat', 'head', 'tail', 'grep', 'wc', 'date', 'uptime', 'hostname', 'whoami'], $class->getConstant('READONLY_COMMANDS'));
        self::assertCount(73, $class->getConstant('HARD_BLOCKED'));
        self::assertSame([';', '&', '|', '>', '<', '`', '$', '(', ')', '{', '}', '[', ']', '\\', '"', "'", '!'], $class->getConstant('METACHARACTERS'));
        self::assertFalse($class->getReflectionConstant('DEFAULT_ALLOWLIST')->isPublic());
        $params = $class->getConstructor()->getParameters();
        self::assertSame(['allowlist', 'maxStdoutBytes', 'maxStderrBytes'], array_map(fn ($p) => $p->getName(), $params));
        self::assertSame(['array', 'int', 'int'], array_map(fn ($p) => (string) $p->getType(), $params));
        self::assertSame(0, $class->getConstructor()->getNumberOfRequiredParameters());
        self::assertSame(ShellTool::DEFAULT_MAX_STDOUT_BYTES, $params[1]->getDefaultValue());
        self::assertSame($class->getConstant('DEFAULT_ALLOWLIST'), $params[0]->getDefaultValue());
        foreach (['allowlist', 'maxStdoutBytes', 'maxStderrBytes'] as $prop) {
            self::assertTrue($class->getProperty($prop)->isReadOnly(), $prop);
            self::assertTrue($class->getProperty($prop)->isPrivate(), $prop);
        }
        self::assertTrue($class->getMethod('assertPathNotSensitive')->isPrivate());
    }

    public function testNameDescriptionSchemaRouting(): void
    {
        $tool = new ShellTool();
        self::assertSame('shell_exec', $tool->name());
        self::assertSame('EXECUTE a shell command and return real stdout. Use for system state, versions, processes, dates. Invoke: do not describe.', $tool->description());
        self::assertSame([
            'type' => 'object',
            'properties' => [
                'command' => [
                    'type' => 'string',
                    'description' => 'The shell command to execute (e.g. "ls -la /var/log").',
                ],
            ],
            'required' => ['command'],
        ], $tool->inputSchema());
        $meta = $tool->routingMetadata();
        self::assertInstanceOf(ToolRoutingMetadata::class, $meta);
        self::assertSame(['system'], $meta->domains);
        self::assertSame(['shell', 'command', 'run', 'execute', 'terminal', 'bash', 'disk', 'usage', 'space'], $meta->tags);
        self::assertSame(['run command', 'execute shell'], $meta->intents);
        self::assertSame(['run whoami', 'check disk usage'], $meta->examples);
        self::assertSame([], ShellTool::examples());
        self::assertSame('phpclaw_use_tools', $tool->requiredCapability());
        self::assertTrue($tool->isEligibleForRouting());
    }

    public function testDefaultsAndNamedArguments(): void
    {
        $tool = new ShellTool();
        self::assertSame(['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami'], $tool->allowlist());
        self::assertSame(8192, $tool->maxStdoutBytes());
        self::assertSame(10000, $tool->maxStderrBytes());

        $tool = new ShellTool(maxStderrBytes: 5);
        self::assertSame([8192, 5], [$tool->maxStdoutBytes(), $tool->maxStderrBytes()]);
        self::assertCount(8, $tool->allowlist());

        $tool = new ShellTool(maxStdoutBytes: 10, allowlist: ['echo', 7, 'x' => 'pwd']);
        self::assertSame(['echo', 7, 'x' => 'pwd'], $tool->allowlist());
        self::assertSame([10, 10000], [$tool->maxStdoutBytes(), $tool->maxStderrBytes()]);
        self::assertSame('hi', $this->commandOutput($tool, 'echo hi'));

        $tool = new ShellTool([], 1, 2);
        self::assertSame([[], 1, 2], [$tool->allowlist(), $tool->maxStdoutBytes(), $tool->maxStderrBytes()]);
    }

    public function testUnknownNamedArgument(): void
    {
        $this->expectException(\Error::class);
        $this->expectExceptionMessage('Unknown named parameter $timeout');
        new ShellTool(timeout: 3);
    }

    public function testConstructorTypes(): void
    {
        try {
            new ShellTool('ls');
            self::fail('a string allowlist must be refused');
        } catch (\TypeError $e) {
            self::assertStringContainsString('Argument #1 ($allowlist) must be of type array, string given', $e->getMessage());
        }
        try {
            new ShellTool([], '12');
            self::fail('strict_types: a numeric string is not an int');
        } catch (\TypeError $e) {
            self::assertStringContainsString('Argument #2 ($maxStdoutBytes) must be of type int, string given', $e->getMessage());
        }
        $this->expectException(\ArgumentCountError::class);
        new ShellTool([], 1, 2, 3);
    }

    public function testPropertiesAreReadonly(): void
    {
        $tool = new ShellTool(['ls']);
        $this->expectException(\Error::class);
        $this->expectExceptionMessage(ReadonlyProbe::message(static function (ReadonlyProbe $p): void {
            $p->__construct(['rm']);
        }, ShellTool::class, 'allowlist'));
        $tool->__construct(['rm']);
    }

    // ---- running real commands ------------------------------------------------------------

    public function testRealCommands(): void
    {
        chdir($this->dir);
        file_put_contents($this->dir . '/b.txt', "one\ntwo\nthree\n");
        file_put_contents($this->dir . '/a.txt', '');
        $tool = new ShellTool(allowlist: ['ls', 'pwd', 'wc', 'date', 'sleep', 'echo']);
        self::assertSame("a.txt\nb.txt", $this->commandOutput($tool, 'ls'));
        self::assertSame($this->dir, $this->commandOutput($tool, 'pwd'));
        self::assertSame('3 b.txt', $this->commandOutput($tool, 'wc -l b.txt'));
        self::assertSame('3 ' . $this->dir . '/b.txt', $this->commandOutput($tool, 'wc -l ' . $this->dir . '/b.txt'));
        self::assertSame(gmdate('Y'), $this->commandOutput($tool, 'date -u +%Y'));
        self::assertSame('', $this->commandOutput($tool, 'sleep 0'));
        // argv goes to the program as is: no globbing, no tilde, no variable expansion
        self::assertSame('*.txt ~ %PATH%', $this->commandOutput($tool, "echo  *.txt\t~  %PATH%"));
    }

    public function testEnvelopeIsExact(): void
    {
        chdir($this->dir);
        $json = (new ShellTool())->execute(['command' => "  pwd \n"]);
        self::assertSame(
            '{"success":true,"data":{"command":"pwd","output":"' . $this->dir . '"},"meta":{"mode":"shell","command_name":"pwd"},"warnings":[]}',
            $json,
        );
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testStdinIsClosed(): void
    {
        $script = $this->script('stdin.sh', 'read line || echo "stdin at eof"');
        $started = microtime(true);
        self::assertSame('stdin at eof', $this->commandOutput(new ShellTool([$script]), $script));
        self::assertLessThan(2.0, microtime(true) - $started);
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testOutputIsCleaned(): void
    {
        $script = $this->script('ansi.sh', "printf ' \\033[1;31mred\\033[0m\\tx\\001\\177y\\r\\n\\n'");
        self::assertSame("red\txy", $this->commandOutput(new ShellTool([$script]), $script));
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testStderrAndExitCodes(): void
    {
        $tool = new ShellTool([
            $fail = $this->script('fail.sh', 'echo " problem " >&2; exit 3'),
            $silent = $this->script('silent.sh', 'exit 4'),
            $both = $this->script('both.sh', 'echo out; echo err >&2; exit 1'),
            $okErr = $this->script('okerr.sh', 'echo err >&2'),
            $killed = $this->script('killed.sh', 'kill -9 $$'),
            '/nonexistent/phpclaw-program',
        ]);
        self::assertSame('problem', $this->commandOutput($tool, $fail));
        self::assertSame('Command exited with code 4.', $this->commandOutput($tool, $silent));
        self::assertSame('out', $this->commandOutput($tool, $both));
        self::assertSame('', $this->commandOutput($tool, $okErr));
        self::assertSame('Command exited with code 9.', $this->commandOutput($tool, $killed));
        // a program that cannot be executed ends like PHP's forked child after a failed exec
        self::assertSame('Command exited with code 127.', $this->commandOutput($tool, '/nonexistent/phpclaw-program'));
    }

    // ---- caps and spill files -------------------------------------------------------------

    /** @group unconfined */
    #[Group('unconfined')]
    public function testStdoutAtTheCapIsInline(): void
    {
        $script = $this->script('out8192.sh', "printf '%08192d' 0");
        self::assertSame(str_repeat('0', 8192), $this->commandOutput(new ShellTool([$script]), $script));
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testStdoutPastTheCapIsSpilled(): void
    {
        $script = $this->script('big.sh', "printf '%08193d' 0");
        $output = $this->commandOutput(new ShellTool([$script]), $script);
        [$preview, $file] = $this->spill($output, 'stdout', 8193);
        self::assertSame(str_repeat('0', 8192), $preview);
        self::assertSame(str_repeat('0', 8193), file_get_contents($file));

        $script = $this->script('lines.sh', 'i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done');
        $output = $this->commandOutput(new ShellTool([$script], maxStdoutBytes: 100), $script);
        $expected = '';
        for ($i = 0; $i < 3000; $i++) {
            $expected .= "line $i\n";
        }
        $expected = rtrim($expected);
        [$preview, $file] = $this->spill($output, 'stdout', strlen($expected));
        self::assertSame(substr($expected, 0, 100), $preview);
        self::assertSame($expected, file_get_contents($file));
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testStderrOfAFailedCommandAtAndPastItsCap(): void
    {
        $at = $this->script('err10000.sh', "printf '%010000d' 0 >&2; exit 2");
        self::assertSame(str_repeat('0', 10000), $this->commandOutput(new ShellTool([$at]), $at));

        $past = $this->script('err10001.sh', "printf '%010001d' 0 >&2; exit 2");
        $output = $this->commandOutput(new ShellTool([$past]), $past);
        [$preview, $file] = $this->spill($output, 'stderr', 10001);
        self::assertSame(str_repeat('0', 10000), $preview);
        self::assertSame(str_repeat('0', 10001), file_get_contents($file));

        // stderr of a successful command is not answered, however long
        $quiet = $this->script('quiet.sh', "printf '%020000d' 0 >&2");
        self::assertSame('', $this->commandOutput(new ShellTool([$quiet]), $quiet));
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testPreviewNeverSplitsAUtf8Character(): void
    {
        $script = $this->script('utf8.sh', "printf 'abc\\303\\251def'");
        $output = $this->commandOutput(new ShellTool([$script], maxStdoutBytes: 4), $script);
        [$preview, $file] = $this->spill($output, 'stdout', 8);
        self::assertSame('abc', $preview);
        self::assertSame('abcédef', file_get_contents($file));
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testOutputThatIsNotUtf8CannotBeEncoded(): void
    {
        $script = $this->script('latin1.sh', "printf 'caf\\351'");
        $e = $this->thrown(new ShellTool([$script]), $script);
        self::assertSame(ToolException::class, get_class($e));
        self::assertSame('Unable to encode tool response.', $e->getMessage());
        self::assertInstanceOf(\JsonException::class, $e->getPrevious());
        self::assertSame(JSON_ERROR_UTF8, $e->getPrevious()->getCode());
    }

    // ---- limits: read ceiling and timeout ---------------------------------------------------

    /** @group unconfined */
    #[Group('unconfined')]
    public function testReadCeilingAtTheLimit(): void
    {
        $script = $this->script('ceiling.sh', 'head -c 10485760 /dev/zero | tr "\\000" a');
        $output = $this->commandOutput(new ShellTool([$script]), $script);
        [$preview, $file] = $this->spill($output, 'stdout', 10485760);
        self::assertSame(str_repeat('a', 8192), $preview);
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testReadCeilingOnePastTheLimit(): void
    {
        $script = $this->script('past.sh', 'head -c 10485761 /dev/zero | tr "\\000" a');
        $e = $this->thrown(new ShellTool([$script]), $script);
        self::assertSame(ToolException::class, get_class($e));
        self::assertSame("Command '$script' exceeded the output size limit and was terminated.", $e->getMessage());
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testReadCeilingCountsBothStreamsAndStopsEndlessOutput(): void
    {
        $script = $this->script('split.sh', 'head -c 5242880 /dev/zero; head -c 5242881 /dev/zero >&2');
        $e = $this->thrown(new ShellTool([$script]), $script);
        self::assertSame("Command '$script' exceeded the output size limit and was terminated.", $e->getMessage());

        $started = microtime(true);
        $e = $this->thrown(new ShellTool(['yes']), 'yes');
        self::assertSame("Command 'yes' exceeded the output size limit and was terminated.", $e->getMessage());
        self::assertLessThan(4.0, microtime(true) - $started);
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testTimeoutKillsTheWholeProcessGroup(): void
    {
        $pidFile = $this->dir . '/grandchild.pid';
        $script = $this->script('hang.sh', "sleep 60 &\necho \$! > $pidFile\nsleep 60");
        $tool = new ShellTool([$script]);
        $started = microtime(true);
        $e = $this->thrown($tool, $script);
        $elapsed = microtime(true) - $started;
        self::assertSame(ToolException::class, get_class($e));
        self::assertSame("Command '$script' was terminated after 5 seconds.", $e->getMessage());
        self::assertGreaterThanOrEqual(5.0, $elapsed);
        self::assertLessThan(6.5, $elapsed);
        $pid = (int) trim((string) file_get_contents($pidFile));
        self::assertGreaterThan(1, $pid);
        // The grandchild `sleep 60` got the same SIGKILL: gone, or a zombie nobody reaped yet.
        $deadline = microtime(true) + 2;
        do {
            $stat = @file_get_contents("/proc/$pid/stat");
            $dead = $stat === false || preg_match('/\) Z /', $stat) === 1;
            if (!$dead) {
                usleep(10000);
            }
        } while (!$dead && microtime(true) < $deadline);
        self::assertTrue($dead, "grandchild $pid survived the timeout");
    }

    // ---- the child's environment ------------------------------------------------------------

    /** @group unconfined */
    #[Group('unconfined')]
    public function testSecretsDoNotReachTheChild(): void
    {
        $vars = [
            'LC_MESSAGES' => 'C',
            'CLAWTEST_PLAIN' => 'withheld: only allow-listed names pass',
            'MYSQL_PWD' => 'pw-secret',
            'APP_PW' => 'pw2-secret',
            'CLAWTEST_API_KEY' => 'k-secret',
            'CLAWTEST_TOKEN' => 't-secret',
            'CLAWTEST_DB_PASSWORD' => 'p-secret',
            'CLAWTEST_CLIENT_SECRET' => 's-secret',
            'DATABASE_URL' => 'mysql://u:p@h/db',
            'BASH_ENV' => '/tmp/phpclaw-evil',
        ];
        foreach ($vars as $name => $value) {
            putenv("$name=$value");
            $this->envSet[] = $name;
        }
        $script = $this->script('env.sh', 'exec /usr/bin/env');
        $output = $this->commandOutput(new ShellTool([$script], maxStdoutBytes: 1 << 20), $script);
        $names = [];
        foreach (explode("\n", $output) as $line) {
            $names[] = explode('=', $line, 2)[0];
        }
        self::assertContains('LC_MESSAGES', $names);
        self::assertStringContainsString('LC_MESSAGES=C', $output);
        self::assertContains('PATH', $names);
        self::assertStringContainsString('HOME=' . getcwd(), $output);
        foreach (array_slice(array_keys($vars), 1) as $name) {
            self::assertNotContains($name, $names);
        }
        foreach (['k-secret', 't-secret', 'p-secret', 's-secret', 'mysql://'] as $secret) {
            self::assertStringNotContainsString($secret, $output);
        }
    }

    // ---- refusals and hook events ------------------------------------------------------------

    public function testEveryRefusalAndItsHookContext(): void
    {
        $runs = $this->hookRun();
        $denied = ShellDeniedException::class;
        $cases = [
            'metacharacter' => ['pwd; echo injected', '', 'metacharacter', ';', 'Command contains a disallowed shell metacharacter.'],
            'hard_blocked' => ['rm -rf /', 'rm', 'hard_blocked', null, "Command 'rm' is permanently blocked and cannot be executed."],
            'hard_blocked_variant' => ['/bin/rm x', '/bin/rm', 'hard_blocked', null, "Command '/bin/rm' is permanently blocked and cannot be executed."],
            'not_in_allowlist' => ['git status', 'git', 'not_in_allowlist', null, "Command 'git' is not in the shell allowlist."],
            'sensitive_file' => ['cat wp-config.php', 'cat', 'sensitive_file', 'wp-config.php', "Access to 'wp-config.php' is blocked: contains sensitive configuration."],
            'sensitive_extension' => ['cat server.key', 'cat', 'sensitive_extension', 'server.key', "Access to '.key' files is blocked: may contain secrets."],
            'sensitive_env' => ['cat .env.local', 'cat', 'sensitive_file', '.env.local', "Access to '.env.local' is blocked: environment files contain secrets."],
            'sensitive_directory' => ['cat .git/config', 'cat', 'sensitive_directory', '.git/config', "Access to files in '.git/' is blocked."],
            'sensitive_path' => ['cat /etc/passwd', 'cat', 'sensitive_path', '/etc/passwd', "Access to '/etc/passwd' is blocked: system file."],
            'flag_value' => ['cat --file=/proc/self/environ', 'cat', 'sensitive_path', '/proc/self/environ', "Access to '/proc/self/environ' is blocked: system file."],
        ];
        foreach ($cases as $label => [$command, $program, $reason, $file, $message]) {
            $run = $runs[$label];
            self::assertSame($denied, $run['thrown'], $label);
            self::assertSame($message, $run['message'], $label);
            $context = ['command' => $command, 'cmd_name' => $program, 'reason' => $reason];
            if ($file !== null) {
                $context['file'] = $file;
            }
            self::assertSame([['shell.denied', $context]], $run['events'], $label);
        }
        self::assertSame(['thrown' => ToolException::class, 'message' => 'No command provided.', 'output' => null, 'events' => []], $runs['blank']);
        self::assertSame(
            ['thrown' => null, 'message' => null, 'output' => 'hello', 'events' => [['shell.exec', ['command' => 'echo  hello', 'cmd_name' => 'echo', 'run_id' => 'run-1', 'parent_run_id' => 'parent-1']]]],
            $runs['exec'],
        );
        self::assertSame($denied, $runs['private_check']['thrown']);
        self::assertSame("Access to '.pem' files is blocked: may contain secrets.", $runs['private_check']['message']);
        self::assertSame([['shell.denied', ['command' => 'head -n 1 secret.pem', 'cmd_name' => 'head', 'reason' => 'sensitive_extension', 'file' => 'secret.pem']]], $runs['private_check']['events']);
    }

    public function testAListenerExceptionEndsTheCall(): void
    {
        $runs = $this->hookRun('shell.denied');
        self::assertSame('RuntimeException', $runs['hard_blocked']['thrown']);
        self::assertSame('listener boom on shell.denied', $runs['hard_blocked']['message']);
        self::assertSame('hello', $runs['exec']['output']);
        $runs = $this->hookRun('shell.exec');
        self::assertSame('RuntimeException', $runs['exec']['thrown']);
        self::assertSame('listener boom on shell.exec', $runs['exec']['message']);
        self::assertSame(ShellDeniedException::class, $runs['hard_blocked']['thrown']);
    }

    public function testWithoutHookRegistryEventsAreSkippedAfterAnAutoloadAttempt(): void
    {
        self::assertFalse(class_exists('PhpClaw\\Hooks\\HookRegistry', false));
        $asked = [];
        $loader = function (string $class) use (&$asked): void {
            $asked[] = $class;
        };
        spl_autoload_register($loader);
        try {
            $e = $this->thrown(new ShellTool(), 'rm -rf /');
            self::assertSame(ShellDeniedException::class, get_class($e));
            self::assertInstanceOf(ToolException::class, $e);
            self::assertSame(['PhpClaw\\Hooks\\HookRegistry'], $asked);
            $asked = [];
            chdir($this->dir);
            self::assertSame($this->dir, $this->commandOutput(new ShellTool(), 'pwd'));
            self::assertSame(['PhpClaw\\Hooks\\HookRegistry'], $asked);
        } finally {
            spl_autoload_unregister($loader);
        }
    }

    /**
     * Reference cases: what phpClaw's own tests refuse.
     *
     * @dataProvider referenceRefusals
     */
    #[DataProvider('referenceRefusals')]
    public function testReferenceRefusals(array $allowlist, string $command, string $message): void
    {
        $e = $this->thrown(new ShellTool($allowlist), $command);
        self::assertSame(ShellDeniedException::class, get_class($e));
        self::assertSame($message, $e->getMessage());
    }

    /** @return iterable<string, array{0: list<string>, 1: string, 2: string}> */
    public static function referenceRefusals(): iterable
    {
        $blocked = fn (string $p) => "Command '$p' is permanently blocked and cannot be executed.";
        $unlisted = fn (string $p) => "Command '$p' is not in the shell allowlist.";
        $meta = 'Command contains a disallowed shell metacharacter.';
        yield 'upper case hard-blocked' => [['RM'], 'RM x', $blocked('RM')];
        yield 'mixed case hard-blocked' => [['Rm'], 'Rm x', $blocked('Rm')];
        yield 'sudo allowlisted' => [['sudo'], 'sudo apt-get update', $blocked('sudo')];
        yield 'bash' => [['bash'], 'bash --version', $blocked('bash')];
        yield 'env is hard-blocked' => [['env'], 'env', $blocked('env')];
        yield 'uppercase not allowlisted' => [['ls'], 'LS', $unlisted('LS')];
        yield 'path is not the name' => [['ls'], '/bin/ls', $unlisted('/bin/ls')];
        yield 'php' => [[], 'php --version', $unlisted('php')];
        yield 'default refuses cat' => [['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami'], 'cat x', $unlisted('cat')];
        yield 'pipe' => [['pwd'], 'pwd | cat /etc/passwd', $meta];
        yield 'backtick' => [['pwd'], 'pwd`id`', $meta];
        yield 'dollar' => [['echo'], 'echo $HOME', $meta];
        yield 'newline' => [['echo'], "echo a\nrm b", $meta];
        yield 'wc reads /etc/passwd via a flag' => [['wc'], 'wc --files0-from=/etc/passwd', "Access to '/etc/passwd' is blocked: system file."];
        yield 'backup of a key' => [['cat'], 'cat id_rsa.bak', "Access to 'id_rsa.bak' is blocked: contains sensitive configuration."];
    }

    /** phpClaw's own sensitive-file cases: every one is refused with a path message. */
    public function testReferenceSensitiveCases(): void
    {
        $tool = new ShellTool(['cat', 'head', 'tail', 'grep']);
        $link = $this->dir . '/passwd-link';
        symlink('/etc/passwd', $link);
        $commands = [
            'cat wp-config.php', 'head -20 wp-config.php', 'tail wp-config.php', 'grep PASSWORD wp-config.php',
            'cat .env', 'cat .env.local', 'cat .env.production', 'grep API_KEY .env', 'head .env',
            'cat configuration.php', 'cat database.php', 'grep password database.php', 'cat settings.php',
            'cat server.key', 'cat certificate.pem', 'cat id_rsa', 'cat credentials.json',
            'cat wp-config.php.bak', 'cat wp-config.php~', 'cat id_rsa.bak', 'cat id_rsa~',
            'cat credentials.json.save', 'cat server.key.bak', 'cat configuration.php.orig',
            'cat /etc/passwd', 'cat /etc/shadow', 'grep root /etc/passwd', 'head /etc/sudoers',
            'cat .git/config', 'cat .ssh/id_rsa', 'grep key .aws/credentials', 'cat database.sqlite',
            'cat app.db', 'cat docker-compose.yml', 'cat settings.inc.php', 'cat .envrc',
            'cat /dev/mem', 'cat ../../proc/self/environ', 'grep --file=.env.local', 'cat ' . $link,
        ];
        foreach ($commands as $command) {
            $e = $this->thrown($tool, $command);
            self::assertSame(ShellDeniedException::class, get_class($e), $command);
            self::assertStringStartsWith('Access to ', $e->getMessage(), $command);
        }
        // a traversal that lands on an allowlisted program's binary is still not that token
        chdir($this->dir);
        mkdir($this->dir . '/ls');
        try {
            $e = $this->thrown(new ShellTool(), 'ls/../../../../../../../../bin/ls BYPASS');
            self::assertSame("Command 'ls/../../../../../../../../bin/ls' is not in the shell allowlist.", $e->getMessage());
        } finally {
            rmdir($this->dir . '/ls');
        }
    }

    public function testCommandIsCastLikePhp(): void
    {
        $tool = new ShellTool([]);
        self::assertSame("Command '123' is not in the shell allowlist.", $this->thrown($tool, 123)->getMessage());
        self::assertSame("Command '1.5' is not in the shell allowlist.", $this->thrown($tool, 1.5)->getMessage());
        self::assertSame("Command '1' is not in the shell allowlist.", $this->thrown($tool, true)->getMessage());
        self::assertSame('No command provided.', $this->thrown($tool, null)->getMessage());
        self::assertSame('No command provided.', $this->thrown($tool, false)->getMessage());
        $stringable = new class () {
            public function __toString(): string
            {
                return ' whoami ';
            }
        };
        self::assertSame("Command 'whoami' is not in the shell allowlist.", $this->thrown($tool, $stringable)->getMessage());
        self::assertSame("Command 'Array' is not in the shell allowlist.", @$this->thrown($tool, ['x'])->getMessage());
        $e = $this->thrown($tool, new \stdClass());
        self::assertSame(\Error::class, get_class($e));
        self::assertSame('Object of class stdClass could not be converted to string', $e->getMessage());
    }

    /** A command that is cast (here through __toString) is cast once, refused or run. */
    public function testAStringableCommandIsCastOnce(): void
    {
        $command = new class () {
            public int $casts = 0;
            public string $text = 'pwd';

            public function __toString(): string
            {
                $this->casts++;
                return $this->text;
            }
        };
        chdir($this->dir);
        self::assertSame($this->dir, self::decode((new ShellTool(['pwd']))->execute(['command' => $command]))['data']['output']);
        self::assertSame(1, $command->casts);
        self::assertSame("Command 'pwd' is not in the shell allowlist.", $this->thrown(new ShellTool(['ls']), $command)->getMessage());
        self::assertSame(2, $command->casts);
        self::assertFalse((new ShellTool(['ls']))->isMutating(['command' => $command]));
        self::assertSame(3, $command->casts);
    }

    /** Allowlist entries match as text: strings only, byte for byte, one that is not UTF-8 with its replacement characters (as the command is judged). */
    public function testAllowlistEntriesMatchAsText(): void
    {
        $tool = new ShellTool([123, 'pwd', ['ls'], null]);
        self::assertSame("Command '123' is not in the shell allowlist.", $this->thrown($tool, '123')->getMessage());
        self::assertSame("Command 'ls' is not in the shell allowlist.", $this->thrown($tool, 'ls')->getMessage());
        self::assertSame("Command 'PWD' is not in the shell allowlist.", $this->thrown($tool, 'PWD')->getMessage());
        self::assertFalse($tool->isMutating(['command' => '123']));
        // allowlisted, so judged on: a command that is not UTF-8 is then never run
        $e = $this->thrown(new ShellTool(["pwd\xff"]), "pwd\xff");
        self::assertSame([ToolException::class, 'Unable to encode tool response.'], [get_class($e), $e->getMessage()]);
        self::assertTrue((new ShellTool(["pwd\xff"]))->isMutating(['command' => "pwd\xff"]));
    }

    public function testExecuteArgumentType(): void
    {
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage('Argument #1 ($input) must be of type array, string given');
        (new ShellTool())->execute('ls');
    }

    // ---- authorization ----------------------------------------------------------------------

    private static function authorizer(bool $console, bool $allows): ToolAuthorizerInterface
    {
        return new class ($console, $allows) implements ToolAuthorizerInterface {
            public function __construct(private bool $console, private bool $allows)
            {
            }

            public function allows(): bool
            {
                return $this->allows;
            }

            public function runningInConsole(): bool
            {
                return $this->console;
            }
        };
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testForbiddenCallerGetsTheEnvelopeAndNothingRuns(): void
    {
        $marker = $this->dir . '/ran';
        $script = $this->script('touch.sh', "touch $marker");
        $tool = new ShellTool([$script]);
        $tool->withAuthorizer(self::authorizer(false, false));
        self::assertFalse($tool->isEligibleForRouting());
        self::assertSame(
            '{"success":false,"error":{"code":"FORBIDDEN","message":"No authenticated caller was identified, so this request may not run a shell command."},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            $tool->execute(['command' => $script]),
        );
        // refused callers are answered before the input is looked at
        self::assertStringContainsString('FORBIDDEN', $tool->execute(['command' => 'rm -rf /']));
        self::assertFileDoesNotExist($marker);
        $tool->withAuthorizer(self::authorizer(true, false));
        self::assertSame('', $this->commandOutput($tool, $script));
        self::assertFileExists($marker);
    }

    // ---- approval -----------------------------------------------------------------------------

    /**
     * @dataProvider mutatingTable
     */
    #[DataProvider('mutatingTable')]
    public function testIsMutating(?array $allowlist, array $input, bool $expected): void
    {
        $tool = $allowlist === null ? new ShellTool() : new ShellTool($allowlist);
        self::assertSame($expected, $tool->isMutating($input));
        self::assertSame($expected, ToolMutability::isApprovalRequired($tool, $input));
    }

    /** @return iterable<string, array{0: ?list<string>, 1: array<string, mixed>, 2: bool}> */
    public static function mutatingTable(): iterable
    {
        yield 'read-only default' => [null, ['command' => 'ls -la'], false];
        yield 'every default is read-only' => [null, ['command' => 'whoami'], false];
        yield 'read-only reader allowlisted' => [['grep'], ['command' => 'grep x f'], false];
        yield 'read-only name but not allowlisted' => [null, ['command' => 'cat x'], false];
        yield 'metacharacter' => [null, ['command' => 'find app -type f | wc -l'], false];
        yield 'hard-blocked' => [['rm'], ['command' => 'rm notes.txt'], false];
        yield 'not allowlisted' => [null, ['command' => 'php artisan migrate'], false];
        yield 'allowed and changing' => [['touch'], ['command' => 'touch notes.txt'], true];
        yield 'allowed, not in the read-only list' => [['echo'], ['command' => 'echo hi'], true];
        yield 'blank' => [null, ['command' => '  '], true];
        yield 'missing' => [null, [], true];
        yield 'null' => [null, ['command' => null], true];
        yield 'trimmed' => [['touch'], ['command' => "\n touch x \t"], true];
        yield 'path form of a read-only name' => [['/bin/ls'], ['command' => '/bin/ls'], true];
    }
}
