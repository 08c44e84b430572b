<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClaw\Tools\ProjectTool;
use PhpClaw\Tools\ShellTool;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * What a thread-safe PHP changes under the tools, checked the same way on NTS and ZTS builds:
 * PHP's working directory is per thread there (`chdir()` moves a virtual one and leaves the
 * process's alone), so every tool must take the directory PHP reports, not the process's; a
 * value set with `putenv()` must reach a child's environment; `php --ri phpclaw` says which
 * build it is. On NTS the two directories coincide, so these tests pass there too.
 */
final class ThreadSafetyTest extends TestCase
{
    private string $cwd;

    private string $dir;

    /** @var list<string> */
    private array $envSet = [];

    protected function setUp(): void
    {
        $this->cwd = (string) getcwd();
        $this->dir = sys_get_temp_dir() . '/phpclaw-zts-' . bin2hex(random_bytes(6));
        mkdir($this->dir . '/storage/phpclaw', 0755, true);
        $this->dir = (string) realpath($this->dir);
    }

    protected function tearDown(): void
    {
        chdir($this->cwd);
        foreach ($this->envSet as $name) {
            putenv($name);
        }
        Files::remove($this->dir);
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        return json_decode($json, true, 512, JSON_THROW_ON_ERROR);
    }

    private function shell(string $command, array $allow): string
    {
        return self::decode((new ShellTool($allow))->execute(['command' => $command]))['data']['output'];
    }

    public function testShellRunsInPhpsWorkingDirectory(): void
    {
        chdir($this->dir);
        file_put_contents($this->dir . '/only-here.txt', "here\n");
        self::assertSame($this->dir, $this->shell('pwd', ['pwd']));
        // a relative operand is judged and opened in the same folder
        self::assertSame('here', $this->shell('cat only-here.txt', ['cat']));
        self::assertSame('only-here.txt' . "\n" . 'storage', $this->shell('ls', ['ls']));
    }

    public function testShellFollowsEachChdir(): void
    {
        $tool = new ShellTool(['pwd']);
        foreach ([$this->dir, $this->dir . '/storage', $this->dir . '/storage/phpclaw'] as $where) {
            chdir($where);
            self::assertSame($where, self::decode($tool->execute(['command' => 'pwd']))['data']['output']);
        }
    }

    public function testDefaultWorkspaceRootsFollowPhpsWorkingDirectory(): void
    {
        chdir($this->dir);
        $root = $this->dir . '/storage/phpclaw';
        self::assertSame($root, (new FileReadTool())->workspaceRoot());
        file_put_contents($root . '/note.txt', 'seen');
        $read = self::decode((new FileReadTool())->execute(['path' => 'note.txt']));
        self::assertTrue($read['success'], json_encode($read));
        self::assertStringContainsString('seen', json_encode($read['data']));
        $written = self::decode((new FileWriteTool())->execute(['path' => 'made.txt', 'content' => 'made']));
        self::assertTrue($written['success'], json_encode($written));
        self::assertSame('made', file_get_contents($root . '/made.txt'));
        $project = new \ReflectionProperty(ProjectTool::class, 'projectRoot');
        self::assertSame($this->dir, $project->getValue(new ProjectTool()));
    }

    public function testRelativeRootsResolveInPhpsWorkingDirectory(): void
    {
        $root = $this->dir . '/storage/phpclaw';
        file_put_contents($root . '/needle.txt', "a needle here\n");
        chdir($this->dir . '/storage');
        foreach ([new FileReadTool('phpclaw'), new FileWriteTool('phpclaw')] as $tool) {
            self::assertSame($root, $tool->workspaceRoot(), get_class($tool));
        }
        $read = self::decode((new FileReadTool('phpclaw'))->execute(['path' => 'needle.txt']));
        self::assertTrue($read['success'], json_encode($read));
        $found = self::decode((new CodeSearchTool('phpclaw'))->execute(['pattern' => 'needle']));
        self::assertTrue($found['success'], json_encode($found));
        self::assertStringContainsString('needle.txt', json_encode($found['data']));
        // the same relative name from another folder is another root
        mkdir($this->dir . '/other/phpclaw', 0755, true);
        chdir($this->dir . '/other');
        self::assertSame($this->dir . '/other/phpclaw', (new FileReadTool('phpclaw'))->workspaceRoot());
        $this->expectExceptionMessage('File not found: needle.txt');
        (new FileReadTool('phpclaw'))->execute(['path' => 'needle.txt']);
    }

    /**
     * Allow-listed names only reach children (the rest are withheld on purpose), each read
     * back by a program that shows it: `date` names the zone TZ sets, `locale` echoes LANG
     * and an explicitly set LC_* variable.
     *
     * @return array<string, array{0: string, 1: string, 2: string, 3: string}>
     */
    public static function allowListedNames(): array
    {
        $zone = 'Q' . strtoupper(substr(str_shuffle('abcdefghijklmnopqrstuvwxyz'), 0, 4));
        $locale = 'xx_' . bin2hex(random_bytes(4));
        return [
            'TZ' => ['TZ', $zone . '-3', 'date +%Z', $zone],
            'LANG' => ['LANG', $locale, 'locale', 'LANG=' . $locale],
            'LC_MESSAGES' => ['LC_MESSAGES', $locale, 'locale', 'LC_MESSAGES=' . $locale],
        ];
    }

    /** @dataProvider allowListedNames */
    #[DataProvider('allowListedNames')]
    public function testPutenvReachesTheChild(string $name, string $value, string $command, string $shown): void
    {
        $program = explode(' ', $command)[0];
        chdir($this->dir);
        self::assertStringNotContainsString($shown, $this->shell($command, [$program]));
        putenv("$name=$value");
        $this->envSet[] = $name;
        self::assertSame($value, getenv($name));
        self::assertStringContainsString($shown, $this->shell($command, [$program]));
        // and an unset one is gone again
        putenv($name);
        self::assertStringNotContainsString($shown, $this->shell($command, [$program]));
    }

    public function testInfoSaysWhichBuild(): void
    {
        $run = Subprocess::php(['-n', '-d', 'extension=' . PHPCLAW_MODULE, '--ri', 'phpclaw']);
        self::assertSame(0, $run['code'], $run['stderr']);
        $want = PHP_ZTS ? 'enabled' : 'disabled';
        self::assertMatchesRegularExpression('/^Thread safety => ' . $want . '$/m', $run['stdout']);
    }
}
