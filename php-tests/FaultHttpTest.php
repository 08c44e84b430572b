<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\HttpTool;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\TestCase;

/**
 * Fault: loopback servers that misbehave (under `phpclaw.test_allow_loopback=1`, which the test
 * sets by running itself again in a child when it is off). http_request must return within its
 * total deadline whatever the server does: never answer, trickle a byte a second (in the
 * headers or in the body), or send a body without end (cut at the cap, with the note intact).
 */
final class FaultHttpTest extends TestCase
{
    private const SERVER = <<<'PHP'
<?php
// One mode per server: silent, trickle-head, trickle-body, endless. One connection at a time.
[$mode, $port] = [$argv[1], (int) $argv[2]];
$server = stream_socket_server("tcp://127.0.0.1:$port", $errno, $errstr);
echo "ready\n";
fflush(STDOUT);
while ($c = @stream_socket_accept($server, 3600)) {
    stream_set_blocking($c, true);
    $request = '';
    while (!str_contains($request, "\r\n\r\n") && ($chunk = fread($c, 8192)) !== false && $chunk !== '') {
        $request .= $chunk;
    }
    switch ($mode) {
        case 'silent':
            while (($chunk = fread($c, 8192)) !== false && $chunk !== '') {
            }
            break;
        case 'trickle-head':
            foreach (str_split("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello") as $byte) {
                if (@fwrite($c, $byte) !== 1) {
                    break;
                }
                sleep(1);
            }
            break;
        case 'trickle-body':
            @fwrite($c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
            // Eight bytes, then the server gives up: a client without a total deadline fails
            // the test by its time rather than hanging it.
            for ($i = 0; $i < 8 && @fwrite($c, 'x') === 1; $i++) {
                sleep(1);
            }
            break;
        case 'endless':
            @fwrite($c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n");
            $chunk = str_repeat('e', 65536);
            while (@fwrite($c, $chunk) > 0) {
            }
            break;
    }
    @fclose($c);
}
PHP;

    /** @var list<resource> */
    private array $servers = [];

    private string $script = '';

    protected function setUp(): void
    {
        $this->script = tempnam(sys_get_temp_dir(), 'phpclaw-fhttp-');
        file_put_contents($this->script, self::SERVER);
    }

    protected function tearDown(): void
    {
        foreach ($this->servers as $proc) {
            proc_terminate($proc, 9);
            proc_close($proc);
        }
        @unlink($this->script);
    }

    /** Run this test again in a child with the loopback setting on; true when that was done. */
    private function inChild(string $test): bool
    {
        if (ini_get('phpclaw.test_allow_loopback') === '1') {
            return false;
        }
        $cmd = [PHP_BINARY, '-d', 'extension=' . PHPCLAW_MODULE, '-d', 'phpclaw.test_allow_loopback=1',
            Subprocess::phpunit(), '-c', Subprocess::phpunitConfig(), '--filter', '/::' . $test . '$/', __FILE__];
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        $rc = proc_close($p);
        self::assertSame(0, $rc, $out);
        self::assertStringContainsString('OK (1 test', $out);
        return true;
    }

    /** Start a server in `$mode`; returns its base URL. */
    private function server(string $mode): string
    {
        $sock = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr((string) strrchr((string) stream_socket_get_name($sock, false), ':'), 1);
        fclose($sock);
        $proc = proc_open([PHP_BINARY, '-n', $this->script, $mode, (string) $port],
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        $this->servers[] = $proc;
        self::assertSame("ready\n", fgets($pipes[1]));
        return "http://127.0.0.1:$port";
    }

    /** The failure message of a request, and how long it took. @return array{0: string, 1: float} */
    private static function failure(HttpTool $tool, string $url): array
    {
        $started = microtime(true);
        try {
            $tool->execute(['url' => $url]);
        } catch (ToolException $e) {
            return [$e->getMessage(), microtime(true) - $started];
        }
        self::fail("expected a failure from $url");
    }

    public function testAServerThatNeverAnswers(): void
    {
        if ($this->inChild(__FUNCTION__)) {
            return;
        }
        [$message, $took] = self::failure(new HttpTool(8192, 2), $this->server('silent') . '/');
        self::assertStringStartsWith('HTTP request failed: ', $message);
        self::assertGreaterThanOrEqual(1.9, $took);
        self::assertLessThan(3.0, $took);
    }

    public function testAServerTricklingItsHeaders(): void
    {
        if ($this->inChild(__FUNCTION__)) {
            return;
        }
        [$message, $took] = self::failure(new HttpTool(8192, 2), $this->server('trickle-head') . '/');
        self::assertStringStartsWith('HTTP request failed: ', $message);
        self::assertLessThan(3.0, $took);
    }

    public function testAServerTricklingItsBody(): void
    {
        if ($this->inChild(__FUNCTION__)) {
            return;
        }
        // A byte a second never trips a per-read timeout: only a total deadline ends it.
        $started = microtime(true);
        try {
            $r = json_decode((new HttpTool(8192, 2))->execute(['url' => $this->server('trickle-body') . '/']), true);
            self::fail('a trickling body was answered: ' . json_encode($r));
        } catch (ToolException $e) {
            self::assertStringStartsWith('HTTP request failed: ', $e->getMessage());
        }
        self::assertLessThan(3.0, microtime(true) - $started);
    }

    public function testAnEndlessBodyIsCutAtTheCap(): void
    {
        if ($this->inChild(__FUNCTION__)) {
            return;
        }
        $base = $this->server('endless');
        foreach ([8192, 10, 1] as $cap) {
            $started = microtime(true);
            $r = json_decode((new HttpTool($cap, 2))->execute(['url' => "$base/"]), true);
            self::assertLessThan(1.0, microtime(true) - $started);
            self::assertTrue($r['success']);
            self::assertSame(200, $r['data']['status']);
            self::assertSame(str_repeat('e', $cap) . "\n[Response truncated at $cap bytes]", $r['data']['body']);
        }
    }
}
