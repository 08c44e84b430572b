<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\ShellTool;
use PhpClawTests\Support\Files;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/**
 * Fault: shell_exec children that misbehave. Each call must return at the 5 s timeout (or the
 * read ceiling) with a ToolException, and leave no process of the child's group alive: the
 * group is found in /proc by its id (the child leads its own group). Scripts as programs, so
 * these run in run.sh's unconfined pass (group `unconfined`). ShellToolTest covers a sleeping
 * grandchild at the timeout and output past the 10 MB ceiling.
 */
final class FaultShellTest extends TestCase
{
    private string $dir;

    protected function setUp(): void
    {
        $this->dir = sys_get_temp_dir() . '/phpclaw-fsh-' . bin2hex(random_bytes(6));
        mkdir($this->dir, 0755, true);
        $this->dir = (string) realpath($this->dir);
    }

    protected function tearDown(): void
    {
        Files::remove($this->dir);
    }

    private function script(string $name, string $body): string
    {
        $path = $this->dir . '/' . $name;
        file_put_contents($path, "#!/bin/sh\necho \$\$ > {$this->dir}/group\n" . $body . "\n");
        chmod($path, 0755);
        return $path;
    }

    /** Run `$script`, expecting the timeout; returns the seconds it took. */
    private function timesOut(string $script): float
    {
        $started = microtime(true);
        try {
            (new ShellTool([$script]))->execute(['command' => $script]);
            self::fail('expected the timeout');
        } catch (ToolException $e) {
            self::assertSame("Command '$script' was terminated after 5 seconds.", $e->getMessage());
        }
        return microtime(true) - $started;
    }

    /** Processes of group `$pgid` that are not zombies, per /proc. @return list<int> */
    private static function alive(int $pgid): array
    {
        $out = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = @file_get_contents($file);
            if ($stat === false) {
                continue;
            }
            // pid (comm) state ppid pgrp …: comm may hold spaces, so split after the last ')'.
            $fields = explode(' ', substr($stat, strrpos($stat, ')') + 2));
            if ((int) ($fields[2] ?? 0) === $pgid && ($fields[0] ?? '') !== 'Z') {
                $out[] = (int) basename(dirname($file));
            }
        }
        return $out;
    }

    private function assertGroupGone(): void
    {
        $pgid = (int) trim((string) file_get_contents($this->dir . '/group'));
        self::assertGreaterThan(1, $pgid);
        $deadline = microtime(true) + 2;
        while (($alive = self::alive($pgid)) !== [] && microtime(true) < $deadline) {
            usleep(10000);
        }
        self::assertSame([], $alive, "processes of group $pgid survived");
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testAChildIgnoringSigtermIsKilledAtTheTimeout(): void
    {
        $script = $this->script('stubborn.sh', "trap '' TERM INT HUP\nwhile :; do sleep 1; done");
        $elapsed = $this->timesOut($script);
        self::assertGreaterThanOrEqual(5.0, $elapsed);
        self::assertLessThan(6.5, $elapsed);
        $this->assertGroupGone();
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testAGrandchildHoldingThePipeAfterTheChildExited(): void
    {
        // The child answers and exits at once; its background grandchild keeps stdout open.
        $script = $this->script('orphan.sh', "echo started\n(trap '' TERM; sleep 60) &\nexit 0");
        $elapsed = $this->timesOut($script);
        self::assertGreaterThanOrEqual(5.0, $elapsed);
        self::assertLessThan(6.5, $elapsed);
        $this->assertGroupGone();
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testASteadyFloodUnderTheCeilingEndsAtTheTimeout(): void
    {
        // About 1 MB/s on both streams: under the 10 MB ceiling in 5 s, so the clock ends it.
        $script = $this->script('flood.sh', "while :; do head -c 50000 /dev/zero | tr '\\000' o; head -c 50000 /dev/zero >&2; sleep 0.1; done");
        $elapsed = $this->timesOut($script);
        self::assertGreaterThanOrEqual(5.0, $elapsed);
        self::assertLessThan(6.5, $elapsed);
        $this->assertGroupGone();
    }

    /** @group unconfined */
    #[Group('unconfined')]
    public function testAFastFloodEndsAtTheCeilingAndTheGroupIsGone(): void
    {
        $script = $this->script('fast.sh', "(trap '' TERM; sleep 60) &\nwhile :; do head -c 1000000 /dev/zero; done");
        $started = microtime(true);
        try {
            (new ShellTool([$script]))->execute(['command' => $script]);
            self::fail('expected the ceiling');
        } catch (ToolException $e) {
            self::assertSame("Command '$script' exceeded the output size limit and was terminated.", $e->getMessage());
        }
        self::assertLessThan(5.0, microtime(true) - $started);
        $this->assertGroupGone();
    }
}
