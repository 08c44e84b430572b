<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\ShellTool;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * shell_exec's children under the kernel sandbox (Landlock), on real processes and files: the
 * red team's classes (recursive reads that misjudge operands, programs started by options, a
 * flipping link, hard links, git's own configuration, the worker's environment), the proofs
 * of the sandbox itself with the policy told to let every argument through, and the three
 * settings of `phpclaw.shell_sandbox`. Skipped where the kernel has no Landlock.
 */
final class ShellSandboxTest extends TestCase
{
    private string $dir;
    private string $cwd;

    protected function setUp(): void
    {
        $this->cwd = (string) getcwd();
        $this->dir = sys_get_temp_dir() . '/phpclaw-box-' . bin2hex(random_bytes(6));
        mkdir($this->dir . '/app/sub', 0777, true);
        mkdir($this->dir . '/.ssh');
        file_put_contents($this->dir . '/notes.txt', "plain notes SECRET-free\n");
        file_put_contents($this->dir . '/app/readme.txt', "SECRET mentioned here\n");
        file_put_contents($this->dir . '/app/sub/deep.txt', "SECRET deep\n");
        file_put_contents($this->dir . '/.env', "APP_KEY=SECRET-VALUE-ENV\n");
        file_put_contents($this->dir . '/app/wp-config.php', "SECRET-VALUE-WP\n");
        file_put_contents($this->dir . '/.ssh/id_rsa', "SECRET-VALUE-KEY\n");
        file_put_contents($this->dir . '/credentials.json', "{\"k\":\"SECRET-VALUE-JSON\"}\n");
        chdir($this->dir);
    }

    protected function tearDown(): void
    {
        chdir($this->cwd);
        Files::remove($this->dir);
    }

    /** Whether this process confines (asked here: under valgrind the kernel calls are not). */
    private static function landlock(): bool
    {
        ob_start();
        (new \ReflectionExtension('phpclaw'))->info();
        return str_contains((string) ob_get_clean(), 'commands run confined');
    }

    /** The output, or "REFUSED: message". */
    private static function answer(ShellTool $tool, string $command): string
    {
        try {
            $json = json_decode($tool->execute(['command' => $command]), true, 512, JSON_THROW_ON_ERROR);
            return (string) $json['data']['output'];
        } catch (ShellDeniedException | ToolException $e) {
            return 'REFUSED: ' . $e->getMessage();
        }
    }

    private static function installed(string $program): bool
    {
        return is_executable('/usr/bin/' . $program) || is_executable('/bin/' . $program);
    }

    /** @return list<array{string}> */
    public static function recursiveReads(): array
    {
        return [
            ['grep -r SECRET'],
            ['grep -r SECRET .'],
            ['grep -r -e SECRET -e x'],
            ['grep -r -m 5 SECRET'],
            ['grep -rh -A 0 SECRET'],
            ['grep -R SECRET app'],
            ['grep -ri secret-value'],
            ['grep -r --include=*.php SECRET'],
            ['grep -rl SECRET .'],
            ['rg --hidden --no-ignore -e SECRET -e x'],
            ['rg --hidden --no-ignore SECRET'],
            ['rg -uuu SECRET'],
        ];
    }

    /** @dataProvider recursiveReads */
    #[DataProvider('recursiveReads')]
    public function testRecursiveReadsNeverShowABlockedFile(string $command): void
    {
        if (!self::landlock()) {
            self::markTestSkipped('no Landlock on this kernel');
        }
        if (!self::installed(strtok($command, ' '))) {
            self::markTestSkipped('not installed');
        }
        $out = self::answer(new ShellTool(['grep', 'rg']), $command);
        self::assertStringNotContainsString('SECRET-VALUE', $out);
        // a blocked file may be named (its name is no secret), only ever as unreadable
        foreach (explode("\n", $out) as $line) {
            if (preg_match('/credentials\.json|\.env|id_rsa|wp-config/', $line)) {
                self::assertStringContainsString('Permission denied', $line);
            }
        }
    }

    /** @return array<string, array{string}> */
    public static function otherReaders(): array
    {
        return [
            'git grep no-index' => ['git grep --no-index SECRET'],
            'git grep' => ['git grep SECRET'],
            'git log -p' => ['git log -p'],
            'git show HEAD' => ['git show HEAD'],
            'git show rev:path' => ['git show HEAD:app/wp-config.php'],
            'git show :path' => ['git show :.env'],
            'git cat-file' => ['git cat-file -p HEAD:.env'],
            'git diff no-index' => ['git diff --no-index /dev/null .env'],
            'git blame' => ['git blame .env'],
            'git archive' => ['git archive HEAD'],
            'git -C' => ['git -C app show HEAD:wp-config.php'],
            'tar file list' => ['tar -T list.txt -cf - '],
            'tar -C attached' => ['tar -C/etc -cf - passwd'],
            'tar --directory' => ['tar --directory=/etc -cf - passwd'],
            'tar old style' => ['tar cf - .'],
            'tar create' => ['tar -cf - app'],
            'sort files0-from' => ['sort --files0-from=list0.txt'],
            'sort' => ['sort .env'],
            'diff from-file' => ['diff -rN --from-file=. empty'],
            'diff recursive' => ['diff -r app empty'],
            'cat via dot-dot' => ['cat app/../.env'],
            'head' => ['head -n 5 credentials.json'],
            'wc files0-from' => ['wc --files0-from=list0.txt'],
            'sed' => ['sed -n p .env'],
            'awk' => ['awk 1 app/wp-config.php'],
        ];
    }

    /** @dataProvider otherReaders */
    #[DataProvider('otherReaders')]
    public function testOtherProgramsNeverShowASecret(string $command): void
    {
        $program = strtok($command, ' ');
        if (!self::installed($program)) {
            self::markTestSkipped("$program missing");
        }
        mkdir($this->dir . '/empty');
        file_put_contents($this->dir . '/list.txt', ".env\napp/wp-config.php\n/etc/passwd\n");
        file_put_contents($this->dir . '/list0.txt', ".env\0/etc/passwd\0");
        if ($program === 'git') {
            exec('cd ' . escapeshellarg($this->dir) . ' && git init -q && git add -A'
                . ' && git -c user.email=a@b -c user.name=a commit -qm secrets');
        }
        $out = self::answer(new ShellTool(['git', 'tar', 'sort', 'diff', 'cat', 'head', 'wc', 'sed', 'awk']), $command);
        self::assertStringNotContainsString('SECRET-VALUE', $out);
        self::assertStringNotContainsString('root:x:0', $out);
    }

    public function testACleanTreeIsReadWhole(): void
    {
        if (!self::landlock()) {
            self::markTestSkipped('no Landlock on this kernel');
        }
        $out = self::answer(new ShellTool(['grep']), 'grep -r SECRET app/sub');
        self::assertSame('app/sub/deep.txt:SECRET deep', $out);
    }

    public function testALinkOutOfTheWorkspaceOrToASecretLeadsNowhere(): void
    {
        if (!self::landlock()) {
            self::markTestSkipped('no Landlock on this kernel');
        }
        symlink('../.env', $this->dir . '/app/CHANGELOG.txt');
        symlink('/etc/passwd', $this->dir . '/app/LICENSE.txt');
        $out = self::answer(new ShellTool(['grep', 'cat']), 'grep -rR root app');
        self::assertStringNotContainsString('root:x:0', $out);
        $out = self::answer(new ShellTool(['grep']), 'grep -R SECRET app');
        self::assertStringNotContainsString('SECRET-VALUE', $out);
    }

    /** Confined or not: what is judged is the file opened. */
    public function testAHardLinkToASecretIsRefused(): void
    {
        link($this->dir . '/.env', $this->dir . '/harmless.txt');
        self::assertSame(
            "REFUSED: Access to 'harmless.txt' is blocked: it has more than one name (a hard link).",
            self::answer(new ShellTool(['cat']), 'cat harmless.txt'),
        );
    }

    public function testTheEnvironmentIsAnAllowList(): void
    {
        // `env` and `printenv` are hard-blocked, so an allowlisted script prints the environment
        // (scripts run only unconfined) in a child PHP whose own environment holds secrets.
        $script = $this->dir . '/show-env';
        file_put_contents($script, "#!/bin/sh\nexec /usr/bin/env\n");
        chmod($script, 0755);
        $code = "<?php putenv('MYSQL_PWD=leak1'); putenv('APP_PW=leak2'); putenv('LANG=C.UTF-8');"
            . ' $t = new PhpClaw\Tools\ShellTool([' . var_export($script, true) . ']);'
            . ' echo $t->execute(["command" => ' . var_export($script, true) . ']);';
        $r = Subprocess::withModule($code, ['phpclaw.shell_sandbox=off']);
        self::assertStringContainsString('LANG=C.UTF-8', $r['stdout'] . $r['stderr']);
        self::assertStringNotContainsString('leak1', $r['stdout']);
        self::assertStringNotContainsString('leak2', $r['stdout']);
        self::assertStringContainsString('HOME=', $r['stdout']);
    }

    /** @return list<array{string, string}> */
    public static function programStarters(): array
    {
        return [
            'tar old-style I key' => ['tar', 'tar cIf sh out.tar payload.txt'],
            'tar long option' => ['tar', 'tar --use-compress-program=sh -cf out.tar payload.txt'],
            'tar to-command' => ['tar', 'tar --to-command=sh -xf in.tar'],
            'sort compress program' => ['sort', 'sort --compress-program=sh -S 1 payload.txt'],
            'git fsmonitor hook' => ['git', 'git -c core.fsmonitor=./hook.sh status'],
            'git grep open in pager' => ['git', 'git grep -Osh touch'],
        ];
    }

    /** @dataProvider programStarters */
    #[DataProvider('programStarters')]
    public function testNoOptionCanStartAnotherProgramEvenWithTheArgumentChecksOff(string $program, string $command): void
    {
        if (!self::landlock()) {
            self::markTestSkipped('no Landlock on this kernel');
        }
        if (!self::installed($program)) {
            self::markTestSkipped("$program missing");
        }
        $marker = $this->dir . '/ran';
        // a line of its own for sh reading an archive; long enough for sort to use temp files
        file_put_contents($this->dir . '/payload.txt', "\ntouch $marker\n" . implode("\n", range(1, 200000)) . "\n");
        file_put_contents($this->dir . '/hook.sh', "#!/bin/sh\ntouch $marker\n");
        chmod($this->dir . '/hook.sh', 0755);
        if ($program === 'git') {
            exec('cd ' . escapeshellarg($this->dir) . ' && git init -q && git add payload.txt'
                . ' && git -c user.email=a@b -c user.name=a commit -qm x');
        }
        if ($program === 'tar') {
            exec('cd ' . escapeshellarg($this->dir) . ' && tar -cf in.tar payload.txt');
        }
        $code = '<?php chdir(' . var_export($this->dir, true) . ');'
            . ' $t = new PhpClaw\Tools\ShellTool([' . var_export($program, true) . ']);'
            . ' try { echo $t->execute(["command" => ' . var_export($command, true) . ']); }'
            . ' catch (Throwable $e) { echo get_class($e), ": ", $e->getMessage(); }';
        // the control: unconfined, the option does start the payload
        Subprocess::withModule($code, ['phpclaw.test_shell_trust_arguments=1', 'phpclaw.shell_sandbox=off']);
        self::assertFileExists($marker, 'the payload does not work: the test proves nothing');
        unlink($marker);
        $r = Subprocess::withModule($code, ['phpclaw.test_shell_trust_arguments=1']);
        self::assertFileDoesNotExist($marker, $r['stdout'] . $r['stderr']);
    }

    public function testUngrantedFilesAndTheNetworkAreOutOfReachWithTheArgumentChecksOff(): void
    {
        if (!self::landlock()) {
            self::markTestSkipped('no Landlock on this kernel');
        }
        $code = '<?php chdir(' . var_export($this->dir, true) . ');'
            . ' $t = new PhpClaw\Tools\ShellTool(["cat", "touch"]);'
            . ' foreach (["cat .env", "cat /etc/hostname", "touch /tmp/phpclaw-box-escape"] as $c) {'
            . '  echo json_decode($t->execute(["command" => $c]), true)["data"]["output"], "\n"; }';
        $r = Subprocess::withModule($code, ['phpclaw.test_shell_trust_arguments=1']);
        self::assertStringNotContainsString('SECRET-VALUE', $r['stdout']);
        self::assertSame(3, substr_count($r['stdout'], 'Permission denied'), $r['stdout'] . $r['stderr']);
        self::assertFileDoesNotExist('/tmp/phpclaw-box-escape');
    }

    public function testRequiredRefusesOnAKernelWithoutLandlock(): void
    {
        $code = '<?php $t = new PhpClaw\Tools\ShellTool(["ls"]);'
            . ' try { $t->execute(["command" => "ls"]); echo "RAN"; }'
            . ' catch (PhpClaw\Exceptions\ToolException $e) { echo $e->getMessage(); }';
        $r = Subprocess::withModule($code, ['phpclaw.shell_sandbox=required', 'phpclaw.test_sandbox_abi=0']);
        self::assertSame(
            "Command 'ls' was not run: phpclaw.shell_sandbox is 'required' and this kernel offers no Landlock sandbox.",
            $r['stdout'],
        );
    }

    public function testAutoRunsWithThePolicyAloneAndSaysSoOnce(): void
    {
        $log = $this->dir . '/php-error.log';
        $code = '<?php $t = new PhpClaw\Tools\ShellTool(["ls"]);'
            . ' for ($i = 0; $i < 3; $i++) { $t->execute(["command" => "ls"]); } echo "RAN";';
        $r = Subprocess::withModule($code, ['phpclaw.test_sandbox_abi=0', 'error_log=' . $log, 'log_errors=1']);
        self::assertSame('RAN', $r['stdout'], $r['stderr']);
        self::assertSame(1, substr_count((string) @file_get_contents($log), 'offers no Landlock sandbox'));
    }

    /** @return list<array{string, string}> */
    public static function settings(): array
    {
        return [
            ['auto', 'auto'],
            ['required', 'required'],
            ['off', 'off'],
            ['0', 'off'],
            ['bogus', 'required'],
        ];
    }

    /** @dataProvider settings */
    #[DataProvider('settings')]
    public function testTheSettingIsShownByPhpRi(string $value, string $shown): void
    {
        $r = Subprocess::withModule('<?php (new ReflectionExtension("phpclaw"))->info();', ["phpclaw.shell_sandbox=$value"]);
        self::assertMatchesRegularExpression('/Shell sandbox => ' . $shown . ' \(kernel Landlock ABI \d+: /', $r['stdout']);
    }

    public function testTheSettingCannotBeChangedAtRunTime(): void
    {
        self::assertFalse(@ini_set('phpclaw.shell_sandbox', 'off'));
    }
}
