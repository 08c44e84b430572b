<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Contracts\MutatingToolInterface;
use PhpClaw\Tools\HttpTool;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The native HttpTool. Refusals run here (loopback refused without the test setting); the
 * requests run against a `php -S` server on loopback in a child php started with
 * `-d phpclaw.test_allow_loopback=1` (php.ini-only).
 */
final class HttpToolTest extends TestCase
{
    private static function moduleFile(): string
    {
        $env = getenv('PHPCLAW_MODULE');
        if (is_string($env) && is_file($env)) {
            return $env;
        }
        foreach (file('/proc/self/maps') ?: [] as $line) {
            if (preg_match('#\s(/\S*phpclaw\S*\.so)$#', rtrim($line), $m)) {
                return $m[1];
            }
        }
        self::fail('cannot find the loaded phpclaw module');
    }

    private static function message(array $input, ?HttpTool $t = null): string
    {
        try {
            ($t ?? new HttpTool())->execute($input);
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail('no exception');
    }

    public function testShape(): void
    {
        $t = new HttpTool();
        self::assertNotInstanceOf(MutatingToolInterface::class, $t);
        self::assertSame('http_request', $t->name());
        self::assertSame(8192, $t->maxResponseBytes());
        self::assertSame(10, $t->timeoutSeconds());
        self::assertSame(8192, HttpTool::DEFAULT_MAX_RESPONSE_BYTES);
        self::assertSame(10, HttpTool::DEFAULT_TIMEOUT_SECONDS);
        self::assertSame(['GET', 'POST'], $t->inputSchema()['properties']['method']['enum']);
        self::assertSame(['url'], $t->inputSchema()['required']);
        self::assertSame(['network'], $t->routingMetadata()->domains);
        $t2 = new HttpTool(5, 2);
        self::assertSame(5, $t2->maxResponseBytes());
        self::assertSame(2, $t2->timeoutSeconds());
    }

    public function testRefusalsInOrder(): void
    {
        self::assertSame('No URL provided.', self::message([]));
        self::assertSame('No URL provided.', self::message(['url' => "  \n"]));
        self::assertSame(
            "URL scheme 'file' is not allowed. Only http:// and https:// are permitted.",
            self::message(['url' => 'file:///etc/passwd', 'method' => 'DELETE'])
        );
        self::assertSame(
            "HTTP method 'DELETE' is not allowed. Use GET or POST.",
            self::message(['url' => 'http://127.0.0.1/', 'method' => ' delete '])
        );
        self::assertSame(
            "Requests to '169.254.169.254' are blocked (private/internal address).",
            self::message(['url' => 'http://169.254.169.254/latest/meta-data/'])
        );
    }

    /** @return array<string, array{string, string}> SSRF bypasses, each refused before any connection. */
    public static function bypasses(): array
    {
        return [
            'decimal loopback' => ['http://2130706433/', 'Requests to \'2130706433\' are blocked (non-standard IP encoding).'],
            'octal' => ['http://0177.0.0.1/', 'Requests to \'0177.0.0.1\' are blocked (non-standard IP encoding).'],
            'hex' => ['http://0x7f.0.0.1/', 'Requests to \'0x7f.0.0.1\' are blocked (non-standard IP encoding).'],
            'short form' => ['http://127.1/', 'Requests to \'127.1\' are blocked (private/internal address).'],
            'any address' => ['http://0.0.0.0/', 'Requests to \'0.0.0.0\' are blocked (private/internal address).'],
            'localhost' => ['http://localhost/', 'Requests to \'localhost\' are blocked (private/internal address).'],
            'localhost upper case with root dot' => ['http://LOCALHOST./', 'Requests to \'localhost.\' are blocked (private/internal address).'],
            'IPv4-mapped IPv6' => ['http://[::ffff:127.0.0.1]/', 'Requests to \'::ffff:127.0.0.1\' are blocked (resolves to private IP 127.0.0.1).'],
            'IPv4-mapped IPv6 in hex' => ['http://[::ffff:7f00:1]/', 'Requests to \'::ffff:7f00:1\' are blocked (resolves to private IP 127.0.0.1).'],
            'userinfo in front' => ['http://example.com@127.0.0.1/', 'Requests to \'127.0.0.1\' are blocked (private/internal address).'],
            'fragment hiding the host' => ['http://127.0.0.1#@example.com/', 'Requests to \'127.0.0.1\' are blocked (private/internal address).'],
            'unique local IPv6' => ['http://[fd00::1]/', 'Requests to \'fd00::1\' are blocked (resolves to private IPv6 address fd00::1).'],
            'CGNAT' => ['http://100.64.0.1/', 'Requests to \'100.64.0.1\' are blocked (resolves to CGNAT address 100.64.0.1).'],
            'NAT64 of the metadata address' => ['http://[64:ff9b::a9fe:a9fe]/', 'Requests to \'64:ff9b::a9fe:a9fe\' are blocked (resolves to private IP 169.254.169.254).'],
            '6to4 of the metadata address' => ['http://[2002:a9fe:a9fe::]/', 'Requests to \'2002:a9fe:a9fe::\' are blocked (resolves to private IP 169.254.169.254).'],
            'cloud metadata name' => ['http://metadata.google.internal/', 'Requests to \'metadata.google.internal\' are blocked (private/internal address).'],
            'other scheme' => ['gopher://127.0.0.1/', 'URL scheme \'gopher\' is not allowed. Only http:// and https:// are permitted.'],
            'no host' => ['http:///etc/passwd', 'Could not extract host from URL.'],
            'whitespace inside' => ['http://a b/', 'URL contains characters that are not allowed (whitespace, control characters or backslashes).'],
        ];
    }

    /** @dataProvider bypasses */
    #[DataProvider('bypasses')]
    public function testBypassesAreRefused(string $url, string $message): void
    {
        self::assertSame($message, self::message(['url' => $url]));
    }

    public function testLoopbackRefusedWithoutTheSetting(): void
    {
        if (ini_get('phpclaw.test_allow_loopback') === '1') {
            self::markTestSkipped('runs without the setting');
        }
        self::assertSame(
            "Requests to '127.0.0.1' are blocked (private/internal address).",
            self::message(['url' => 'http://127.0.0.1:1/'])
        );
        self::assertSame(
            "Requests to '::1' are blocked (private/internal address).",
            self::message(['url' => 'http://[::1]:1/'])
        );
    }

    public function testAgainstLoopbackServer(): void
    {
        if (ini_get('phpclaw.test_allow_loopback') !== '1') {
            $cmd = [PHP_BINARY, '-d', 'extension=' . self::moduleFile(), '-d', 'phpclaw.test_allow_loopback=1',
                Subprocess::phpunit(), '--filter', 'testAgainstLoopbackServer', __FILE__];
            $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            $rc = proc_close($p);
            self::assertSame(0, $rc, $out);
            self::assertStringContainsString('OK (1 test', $out);
            return;
        }
        $dir = sys_get_temp_dir() . '/phpclaw-http-' . bin2hex(random_bytes(4));
        mkdir($dir);
        file_put_contents("$dir/router.php", <<<'PHP'
<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/redirect') { header('Location: /echo', true, 302); echo 'moved'; return; }
if ($path === '/missing') { http_response_code(404); header('X-Why: gone'); echo 'nope'; return; }
if (preg_match('#^/bytes/(\d+)$#', $path, $m)) { echo str_repeat('a', (int) $m[1]); return; }
if ($path === '/slow') { sleep(3); echo 'late'; return; }
header('X-Echo: yes');
header('X-Dup: one'); header('X-Dup: two', false);
echo $_SERVER['REQUEST_METHOD'], '|', file_get_contents('php://input'), '|',
    $_SERVER['HTTP_X_TEST'] ?? '-', '|', $_SERVER['HTTP_USER_AGENT'] ?? '-', '|', $_SERVER['HTTP_INJECTED'] ?? '-';
PHP);
        $sock = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($sock, false), ':'), 1);
        fclose($sock);
        $server = proc_open([PHP_BINARY, '-n', '-S', "127.0.0.1:$port", "$dir/router.php"],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        try {
            for ($i = 0; $i < 100; $i++) {
                $c = @fsockopen('127.0.0.1', $port, $en, $es, 0.1);
                if ($c) {
                    fclose($c);
                    break;
                }
                usleep(20000);
            }
            $base = "http://127.0.0.1:$port";
            $t = new HttpTool();

            $r = json_decode($t->execute(['url' => " $base/echo "]), true);
            self::assertTrue($r['success']);
            self::assertSame(200, $r['data']['status']);
            self::assertSame('GET||-|phpClaw/1.0|-', $r['data']['body']);
            self::assertSame(['mode' => 'http', 'method' => 'GET', 'url' => "$base/echo"], $r['meta']);
            $lower = array_change_key_case($r['data']['headers']);
            self::assertSame('yes', $lower['x-echo']);
            self::assertSame('two', $lower['x-dup']);

            $r = json_decode($t->execute(['url' => "$base/echo", 'method' => 'post', 'body' => 'hello',
                'headers' => ['X-Test' => "v1\r\nInjected: 1"]]), true);
            self::assertSame('POST|hello|v1Injected: 1|phpClaw/1.0|-', $r['data']['body']);
            self::assertSame('POST', $r['meta']['method']);

            // No redirect followed.
            $r = json_decode($t->execute(['url' => "$base/redirect"]), true);
            self::assertSame(302, $r['data']['status']);
            self::assertSame('moved', $r['data']['body']);

            // An HTTP error status is an answer.
            $r = json_decode($t->execute(['url' => "$base/missing"]), true);
            self::assertTrue($r['success']);
            self::assertSame(404, $r['data']['status']);
            self::assertSame('nope', $r['data']['body']);

            // Truncation at and past the cap.
            $r = json_decode($t->execute(['url' => "$base/bytes/8192"]), true);
            self::assertSame(str_repeat('a', 8192), $r['data']['body']);
            $r = json_decode($t->execute(['url' => "$base/bytes/8193"]), true);
            self::assertSame(str_repeat('a', 8192) . "\n[Response truncated at 8192 bytes]", $r['data']['body']);
            $r = json_decode((new HttpTool(10))->execute(['url' => "$base/bytes/11"]), true);
            self::assertSame("aaaaaaaaaa\n[Response truncated at 10 bytes]", $r['data']['body']);

            // Timeout.
            $start = microtime(true);
            $m = self::message(['url' => "$base/slow"], new HttpTool(8192, 1));
            self::assertStringStartsWith('HTTP request failed: ', $m);
            self::assertLessThan(2.5, microtime(true) - $start);

            // Still refused: other private ranges, and a closed port fails as a request.
            self::assertSame("Requests to '10.0.0.1' are blocked (private/internal address).",
                self::message(['url' => 'http://10.0.0.1/']));
        } finally {
            proc_terminate($server);
            proc_close($server);
            exec('rm -rf ' . escapeshellarg($dir));
        }
    }
}
