<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClawTests\Support\Files;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;

/**
 * Fault: several PHP processes editing one file at once (as php-fpm workers would). Every edit
 * file_edit acknowledges must be in the file at the end: none may be silently overwritten by
 * another worker's rename of a copy it read before that edit landed.
 */
final class FaultConcurrentEditTest extends TestCase
{
    private const WORKERS = 4;

    private const EDITS = 40;

    private string $ws;

    protected function setUp(): void
    {
        $this->ws = sys_get_temp_dir() . '/phpclaw-fce-' . bin2hex(random_bytes(6));
        mkdir($this->ws, 0755, true);
        $this->ws = (string) realpath($this->ws);
    }

    protected function tearDown(): void
    {
        Files::remove($this->ws);
    }

    public function testNoAcknowledgedEditIsLost(): void
    {
        $lines = [];
        for ($w = 0; $w < self::WORKERS; $w++) {
            $lines[] = "worker $w: 0;";
        }
        // Padding makes each write take a moment, so the workers' read-modify-write cycles overlap.
        file_put_contents($this->ws . '/shared.txt', implode("\n", $lines) . "\n" . str_repeat("padding line\n", 20000));

        // Each worker counts its own line up, one edit at a time; an edit only succeeds on the
        // value it last wrote, so an edit of another worker that reverted it makes it fail.
        $code = <<<'PHP'
<?php
[$ws, $w, $edits] = [$argv[1] ?? getenv('WS'), (int) getenv('W'), (int) getenv('EDITS')];
$read = new PhpClaw\Tools\FileReadTool($ws);
$edit = new PhpClaw\Tools\FileEditTool($ws);
$read->execute(['path' => 'shared.txt', 'limit' => 1]);
$ok = 0;
$failed = [];
for ($i = 0; $i < $edits; $i++) {
    try {
        $r = json_decode($edit->execute(['path' => 'shared.txt', 'old_str' => "worker $w: $ok;", 'new_str' => 'worker ' . $w . ': ' . ($ok + 1) . ';']), true);
        if (($r['success'] ?? false) === true) {
            $ok++;
        } else {
            $failed[] = $r['error'] ?? 'no success';
        }
    } catch (Throwable $e) {
        $failed[] = $e->getMessage();
    }
}
echo json_encode(['ok' => $ok, 'failed' => $failed]);
PHP;
        $children = [];
        for ($w = 0; $w < self::WORKERS; $w++) {
            putenv('WS=' . $this->ws);
            putenv("W=$w");
            putenv('EDITS=' . self::EDITS);
            $children[$w] = Subprocess::start($code);
        }
        putenv('WS');
        putenv('W');
        putenv('EDITS');
        $report = [];
        foreach ($children as $w => $child) {
            $run = Subprocess::finish($child);
            self::assertSame(0, $run['code'], $run['stderr'] . $run['stdout']);
            $report[$w] = json_decode($run['stdout'], true, 512, JSON_THROW_ON_ERROR);
        }
        $final = (string) file_get_contents($this->ws . '/shared.txt');
        foreach ($report as $w => $r) {
            // What the worker was told succeeded is exactly what the file holds.
            $head = substr($final, 0, (int) strpos($final, 'padding'));
            self::assertTrue(str_contains($head, "worker $w: {$r['ok']};\n"), "acknowledged edits lost: file has\n$head; worker $w: " . json_encode($r));
            self::assertSame([], $r['failed'], "worker $w had edits refused: an edit of another worker was lost");
            self::assertSame(self::EDITS, $r['ok']);
        }
        self::assertSame([], glob($this->ws . '/.phpclaw-*') ?: [], 'temp files left behind');
    }
    public function testALockHeldElsewhereIsAwaitedFiveSecondsAtMost(): void
    {
        file_put_contents($this->ws . '/held.txt', 'ORIGINAL');
        (new FileReadTool($this->ws))->execute(['path' => 'held.txt']);
        // Another process (not a tool: a site's own) holds the file locked.
        $holder = fopen($this->ws . '/held.txt', 'r');
        self::assertTrue(flock($holder, LOCK_EX));
        try {
            $started = microtime(true);
            try {
                (new FileEditTool($this->ws))->execute(['path' => 'held.txt', 'old_str' => 'ORIGINAL', 'new_str' => 'CHANGED']);
                self::fail('edited a file another process holds locked');
            } catch (ToolException $e) {
                self::assertSame('file_edit: the file is locked by another process: held.txt', $e->getMessage());
            }
            $took = microtime(true) - $started;
            self::assertGreaterThanOrEqual(5.0, $took);
            self::assertLessThan(6.0, $took);
            self::assertSame('ORIGINAL', file_get_contents($this->ws . '/held.txt'));
        } finally {
            flock($holder, LOCK_UN);
            fclose($holder);
        }
        // Released: the edit goes through at once.
        $r = json_decode((new FileEditTool($this->ws))->execute(['path' => 'held.txt', 'old_str' => 'ORIGINAL', 'new_str' => 'CHANGED']), true);
        self::assertTrue($r['success']);
        self::assertSame('CHANGED', file_get_contents($this->ws . '/held.txt'));
        self::assertSame([], glob($this->ws . '/.phpclaw-*') ?: []);
    }
}
