<?php

declare(strict_types=1);

namespace PhpClawTests\Remote;

use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\RemoteToolActivator;
use PhpClawTests\Support\Subprocess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/** A named tool, nothing more. */
final class NamedTool implements ToolInterface
{
    public function __construct(private string $n)
    {
    }

    public function name(): string
    {
        return $this->n;
    }

    public function description(): string
    {
        return $this->n;
    }

    public function inputSchema(): array
    {
        return ['type' => 'object', 'properties' => []];
    }

    public function execute(array $input): string
    {
        return '';
    }
}

/**
 * RemoteToolActivator against a real HTTPS server on loopback with a certificate made for the
 * test. Loopback and the test CA are php.ini-only settings, so the tests of group
 * `loopback-https` run in a child PHP process started with
 * `-d phpclaw.test_allow_loopback=1 -d phpclaw.test_ca_file=<ca>`; the rest run here, without
 * those settings.
 */
final class RemoteToolActivatorTest extends TestCase
{
    private const GOOD = '{"profile":"support","tools":["file_read","code_search"],"max_tools_per_turn":6}';

    private const SERVER = <<<'PY'
import http.server, ssl, sys, time
cert, key, hits = sys.argv[1], sys.argv[2], sys.argv[3]
GOOD = b'{"profile":"support","tools":["file_read","code_search"],"max_tools_per_turn":6}'
def padded(n):
    body = b'{"profile":"padded","tools":["file_read"]}'
    return body + b' ' * (n - len(body))
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        with open(hits, 'a') as f:
            f.write(self.path + ' ' + self.headers.get('User-Agent', '') + ' ' + self.headers.get('Accept', '') + '\n')
        p = self.path
        if p == '/good.json': self.send(200, GOOD)
        elif p == '/second.json': self.send(200, b'{"profile":"narrow","tools":["code_search","ghost"],"max_tools_per_turn":3}')
        elif p == '/exact.json': self.send(200, padded(65536))
        elif p == '/big.json': self.send(200, padded(65537))
        elif p == '/redirect.json': self.send(302, b'', [('Location', '/good.json')])
        elif p == '/redirect-with-profile.json': self.send(302, GOOD, [('Location', '/good.json')])
        elif p == '/missing.json': self.send(404, b'Not Found')
        elif p == '/error.json': self.send(500, b'Server Error')
        elif p == '/invalid.json': self.send(200, b'not json')
        elif p == '/slow.json':
            time.sleep(8)
            self.send(200, GOOD)
        else: self.send(404, b'')
srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
srv.daemon_threads = True
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY;

    /** @var array{proc: resource, port: int, hits: string, script: string}|null this test's own server */
    private ?array $server = null;

    private int $port = 0;

    private string $hits = '';

    private string $cacheBase = '';

    private string $log = '';

    private string|false $previousLog = false;

    private string $previousEnvCache = '';

    protected function setUp(): void
    {
        $this->cacheBase = sys_get_temp_dir() . '/phpclaw-rta-' . bin2hex(random_bytes(6));
        mkdir($this->cacheBase, 0700, true);
        $this->previousEnvCache = $_ENV['PHPCLAW_CACHE_DIR'] ?? '';
        $_ENV['PHPCLAW_CACHE_DIR'] = $this->cacheBase;
        $this->log = (string) tempnam(sys_get_temp_dir(), 'phpclaw-rta-log-');
        $this->previousLog = ini_get('error_log');
        ini_set('error_log', $this->log);
    }

    protected function tearDown(): void
    {
        $this->stopServer();
        ini_set('error_log', $this->previousLog === false ? '' : $this->previousLog);
        @unlink($this->log);
        if ($this->previousEnvCache === '') {
            unset($_ENV['PHPCLAW_CACHE_DIR']);
        } else {
            $_ENV['PHPCLAW_CACHE_DIR'] = $this->previousEnvCache;
        }
        self::removeTree($this->cacheBase);
    }

    // ---- fixtures -------------------------------------------------------------------------

    private static function removeTree(string $path): void
    {
        if (is_link($path) || is_file($path)) {
            @unlink($path);

            return;
        }
        if (!is_dir($path)) {
            return;
        }
        foreach ((array) scandir($path) as $item) {
            if ($item !== '.' && $item !== '..') {
                self::removeTree($path . '/' . $item);
            }
        }
        @rmdir($path);
    }

    /** The module file of this process, for the child. */
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

    /** @return array{ca: string, cert: string, key: string} made once per directory */
    private static function certificates(string $dir): array
    {
        $files = ['ca' => "$dir/ca.pem", 'cert' => "$dir/server.pem", 'key' => "$dir/server.key"];
        if (is_file($files['ca']) && is_file($files['cert']) && is_file($files['key'])) {
            return $files;
        }
        if (!is_dir($dir)) {
            mkdir($dir, 0700, true);
        }
        $ext = "$dir/server.ext";
        file_put_contents($ext, "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n");
        $run = static function (array $cmd): void {
            $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            if (proc_close($p) !== 0) {
                self::fail('openssl failed: ' . implode(' ', $cmd) . "\n" . $out);
            }
        };
        $run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
            '-subj', '/CN=phpclaw test CA', '-keyout', "$dir/ca.key", '-out', $files['ca'],
            '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
        $run(['openssl', 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
            '-subj', '/CN=127.0.0.1', '-keyout', $files['key'], '-out', "$dir/server.csr"]);
        $run(['openssl', 'x509', '-req', '-in', "$dir/server.csr", '-CA', $files['ca'], '-CAkey', "$dir/ca.key",
            '-CAcreateserial', '-days', '2', '-extfile', $ext, '-out', $files['cert']]);

        return $files;
    }

    /** @var array{proc: resource, port: int, hits: string, script: string}|null shared by the child's tests */
    private static ?array $shared = null;

    /** @return array{proc: resource, port: int, hits: string, script: string} */
    private static function spawnServer(string $certDir): array
    {
        $certs = self::certificates($certDir);
        $hits = (string) tempnam(sys_get_temp_dir(), 'phpclaw-rta-hits-');
        $script = (string) tempnam(sys_get_temp_dir(), 'phpclaw-rta-server-');
        file_put_contents($script, self::SERVER);
        $proc = proc_open(
            ['python3', $script, $certs['cert'], $certs['key'], $hits],
            [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($proc);
        fclose($pipes[0]);
        $read = [$pipes[1]];
        $w = $e = null;
        self::assertSame(1, stream_select($read, $w, $e, 20), 'the test server did not start');
        $port = (int) trim((string) fgets($pipes[1]));
        self::assertGreaterThan(0, $port);

        return ['proc' => $proc, 'port' => $port, 'hits' => $hits, 'script' => $script];
    }

    /** @param array{proc: resource, port: int, hits: string, script: string} $server */
    private static function killServer(array $server): void
    {
        proc_terminate($server['proc'], SIGKILL);
        proc_close($server['proc']);
        @unlink($server['hits']);
        @unlink($server['script']);
    }

    public static function tearDownAfterClass(): void
    {
        if (self::$shared !== null) {
            self::killServer(self::$shared);
            self::$shared = null;
        }
    }

    /** Use the shared server (its request log emptied), or a server of this test's own. */
    private function startServer(string $certDir, bool $own = false): void
    {
        if ($own) {
            $this->server = self::spawnServer($certDir);
            $server = $this->server;
        } else {
            self::$shared ??= self::spawnServer($certDir);
            $server = self::$shared;
        }
        $this->port = $server['port'];
        $this->hits = $server['hits'];
        file_put_contents($this->hits, '');
    }

    private function stopServer(): void
    {
        if ($this->server !== null) {
            self::killServer($this->server);
            $this->server = null;
        }
    }

    private function url(string $path): string
    {
        return "https://127.0.0.1:{$this->port}{$path}";
    }

    /** @return list<string> request paths the server saw */
    private function hits(): array
    {
        $lines = array_filter(explode("\n", (string) @file_get_contents($this->hits)), 'strlen');

        return array_values(array_map(static fn (string $l): string => explode(' ', $l, 2)[0], $lines));
    }

    /** @return list<string> lines written to the error log, timestamps removed */
    private function logged(): array
    {
        $lines = array_filter(explode("\n", (string) file_get_contents($this->log)), 'strlen');

        return array_values(array_map(static fn (string $l): string => (string) preg_replace('/^\[[^\]]*\] /', '', $l), $lines));
    }

    private function cacheFile(string $url): string
    {
        return $this->cacheBase . '/phpclaw-tool-profiles/' . md5($url) . '.json';
    }

    /** @return list<string> */
    private static function names(array $tools): array
    {
        return array_map(static fn (ToolInterface $t): string => $t->name(), $tools);
    }

    /** @return list<NamedTool> */
    private static function tools(string ...$names): array
    {
        return array_map(static fn (string $n): NamedTool => new NamedTool($n), $names);
    }

    private function requireLoopbackIni(): string
    {
        if (ini_get('phpclaw.test_allow_loopback') !== '1') {
            self::markTestSkipped('runs in the child started by testTheLoopbackSuiteUnderTheTestIni');
        }
        $ca = (string) ini_get('phpclaw.test_ca_file');
        self::assertFileExists($ca);

        return dirname($ca);
    }

    // ---- the child run ---------------------------------------------------------------------

    public function testTheLoopbackSuiteUnderTheTestIni(): void
    {
        if (ini_get('phpclaw.test_allow_loopback') === '1') {
            self::markTestSkipped('already the child');
        }
        $certDir = $this->cacheBase . '/certs';
        $certs = self::certificates($certDir);
        $cmd = [PHP_BINARY, '-d', 'extension=' . self::moduleFile(),
            '-d', 'phpclaw.test_allow_loopback=1', '-d', 'phpclaw.test_ca_file=' . $certs['ca'],
            Subprocess::phpunit(), '--no-configuration', '--group', 'loopback-https', __FILE__];
        $started = microtime(true);
        $p = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fclose($pipes[0]);
        $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        $code = proc_close($p);
        $elapsed = microtime(true) - $started;
        self::assertSame(0, $code, $out);
        self::assertMatchesRegularExpression('/OK \(\d+ tests?, \d+ assertions?\)/', $out, $out);
        self::assertStringNotContainsString('Skipped', $out, $out);
        self::assertLessThan(30.0, $elapsed, 'the child run must stay bounded');
    }

    // ---- without the test INI (this process) ----------------------------------------------

    public function testTheTestIniIsPhpIniOnly(): void
    {
        $before = ini_get('phpclaw.test_allow_loopback');
        self::assertFalse(ini_set('phpclaw.test_allow_loopback', $before === '1' ? '0' : '1'));
        self::assertSame($before, ini_get('phpclaw.test_allow_loopback'));
        $ca = ini_get('phpclaw.test_ca_file');
        self::assertFalse(ini_set('phpclaw.test_ca_file', '/tmp/other.pem'));
        self::assertSame($ca, ini_get('phpclaw.test_ca_file'));
        $entries = ini_get_all('phpclaw');
        self::assertSame(INI_SYSTEM, $entries['phpclaw.test_allow_loopback']['access']);
        self::assertSame(INI_SYSTEM, $entries['phpclaw.test_ca_file']['access']);
    }

    public function testTheDefaultsAreOffAndShownByPhpRi(): void
    {
        $p = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . self::moduleFile(), '--ri', 'phpclaw'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $out = stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        proc_close($p);
        self::assertStringContainsString('phpclaw.test_allow_loopback => 0 => 0', $out);
        self::assertStringContainsString('phpclaw.test_ca_file => no value => no value', $out);
    }

    public function testLoopbackIsRefusedWithoutTheIniSetting(): void
    {
        if (ini_get('phpclaw.test_allow_loopback') === '1') {
            self::markTestSkipped('needs the setting off');
        }
        $this->startServer($this->cacheBase . '/certs');
        self::assertNull(RemoteToolActivator::fetch($this->url('/good.json')));
        self::assertNull(RemoteToolActivator::fetch("https://[::1]:{$this->port}/good.json"));
        self::assertSame([
            "[phpClaw] RemoteToolActivator: Requests to '127.0.0.1' are blocked (private/internal address).",
            "[phpClaw] RemoteToolActivator: Requests to '::1' are blocked (private/internal address).",
        ], $this->logged());
        self::assertSame([], $this->hits(), 'no request was made');
    }

    /** @return iterable<string, array{string, string}> */
    public static function refusedUrls(): iterable
    {
        yield 'http' => ['http://example.com/profile.json', 'HTTPS required, skipped: http://example.com/profile.json'];
        yield 'no scheme' => ['example.com/profile.json', 'HTTPS required, skipped: example.com/profile.json'];
        yield 'upper-case scheme' => ['HTTPS://example.com/p.json', 'HTTPS required, skipped: HTTPS://example.com/p.json'];
        yield 'localhost' => ['https://localhost/profile.json', "Requests to 'localhost' are blocked (private/internal address)."];
        yield 'metadata address' => ['https://169.254.169.254/metadata', "Requests to '169.254.169.254' are blocked (private/internal address)."];
        yield 'private' => ['https://10.0.0.1/p.json', "Requests to '10.0.0.1' are blocked (private/internal address)."];
        yield 'decimal address' => ['https://2130706433/p.json', "Requests to '2130706433' are blocked (non-standard IP encoding)."];
    }

    /**
     * @dataProvider refusedUrls
     */
    #[DataProvider('refusedUrls')]
    public function testRefusedUrlsLogAWarningAndGiveNull(string $url, string $message): void
    {
        self::assertNull(RemoteToolActivator::fetch($url));
        self::assertSame(["[phpClaw] RemoteToolActivator: $message"], $this->logged());
    }

    public function testFilterKeepsOnlyProfileTools(): void
    {
        $all = self::tools('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j');
        $kept = RemoteToolActivator::filter($all, ['j', 'a', 'e', 'ghost', 7]);
        self::assertSame(['a', 'e', 'j'], self::names($kept));
        self::assertSame([0, 1, 2], array_keys($kept));
        self::assertSame($all[0], $kept[0]);
    }

    public function testAnEmptyAllowListReturnsTheToolsAsGiven(): void
    {
        $all = ['x' => new NamedTool('a'), 5 => new NamedTool('b')];
        self::assertSame($all, RemoteToolActivator::filter($all, []));
        // Not empty, nothing usable: nothing kept.
        self::assertSame([], RemoteToolActivator::filter(self::tools('a'), [1]));
    }

    public function testFilterRefusesNonTools(): void
    {
        $this->expectException(\TypeError::class);
        RemoteToolActivator::filter(['nope'], ['a']);
    }

    public function testBuildCurlOptionsMatchesTheReference(): void
    {
        $opts = RemoteToolActivator::buildCurlOptions(
            'https://example.com/profile.json',
            ['host' => 'example.com', 'port' => 443, 'ips' => ['93.184.216.34', '2606:2800:220:1::1']],
        );
        // CURLOPT_* numbers: URL, RETURNTRANSFER, TIMEOUT, CONNECTTIMEOUT, FOLLOWLOCATION,
        // MAXREDIRS, FAILONERROR, SSL_VERIFYPEER, SSL_VERIFYHOST, USERAGENT, HTTPHEADER, RESOLVE.
        self::assertSame([
            10002 => 'https://example.com/profile.json',
            19913 => true,
            13 => 5,
            78 => 5,
            52 => false,
            68 => 0,
            45 => true,
            64 => true,
            81 => 2,
            10018 => 'phpClaw-RemoteToolActivator/1.0',
            10023 => ['Accept: application/json'],
            10203 => ['example.com:443:93.184.216.34,2606:2800:220:1::1'],
        ], $opts);
        if (defined('CURLOPT_RESOLVE')) {
            self::assertSame(10203, CURLOPT_RESOLVE);
            self::assertSame(10002, CURLOPT_URL);
        }
    }

    public function testBuildCurlOptionsOmitsThePinForIpHosts(): void
    {
        foreach (['8.8.8.8', '2001:4860:4860::8888'] as $host) {
            $opts = RemoteToolActivator::buildCurlOptions("https://$host/p.json", ['host' => $host, 'port' => 443, 'ips' => [$host]]);
            self::assertArrayNotHasKey(10203, $opts);
            self::assertSame("https://$host/p.json", $opts[10002]);
        }
        $opts = RemoteToolActivator::buildCurlOptions('https://h/p', ['host' => 'h', 'ips' => []]);
        self::assertArrayNotHasKey(10203, $opts);
        $opts = RemoteToolActivator::buildCurlOptions('https://h/p', ['host' => 'h', 'ips' => ['1.2.3.4']]);
        self::assertSame(['h:443:1.2.3.4'], $opts[10203], 'port defaults to 443');
    }

    public function testTheClassIsNativeAndFinal(): void
    {
        $c = new \ReflectionClass(RemoteToolActivator::class);
        self::assertTrue($c->isInternal());
        self::assertTrue($c->isFinal());
        foreach (['fetch', 'filter', 'buildCurlOptions'] as $m) {
            self::assertTrue($c->getMethod($m)->isStatic());
            self::assertTrue($c->getMethod($m)->isPublic());
        }
        self::assertSame('?array', (string) $c->getMethod('fetch')->getReturnType());
    }

    // ---- with the test INI (the child) ----------------------------------------------------

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testAGoodProfileIsFetchedAndCachedPrivately(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $url = $this->url('/good.json');
        self::assertSame(
            ['profile' => 'support', 'tools' => ['file_read', 'code_search'], 'max_tools_per_turn' => 6],
            RemoteToolActivator::fetch($url),
        );
        self::assertSame([], $this->logged());
        $lines = array_filter(explode("\n", (string) file_get_contents($this->hits)), 'strlen');
        self::assertSame(['/good.json phpClaw-RemoteToolActivator/1.0 application/json'], array_values($lines));
        $file = $this->cacheFile($url);
        self::assertSame(self::GOOD, file_get_contents($file));
        self::assertSame(0600, fileperms($file) & 0777);
        self::assertSame(0, fileperms(dirname($file)) & 0077, 'cache folder is private');

        $kept = RemoteToolActivator::filter(self::tools('shell_exec', 'code_search', 'file_read'), RemoteToolActivator::fetch($url)['tools']);
        self::assertSame(['code_search', 'file_read'], self::names($kept));
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testACacheHitDoesNotContactTheServer(): void
    {
        $this->startServer($this->requireLoopbackIni(), own: true);
        $url = $this->url('/good.json');
        $first = RemoteToolActivator::fetch($url);
        self::assertNotNull($first);
        self::assertSame(['/good.json'], $this->hits());
        // The server is gone: only the cache can answer.
        $this->stopServer();
        self::assertSame($first, RemoteToolActivator::fetch($url));
        self::assertSame([], $this->logged());

        // Just inside the hour: still served. Past it: the dead server is asked, and fails.
        touch($this->cacheFile($url), time() - 3590);
        clearstatcache();
        self::assertSame($first, RemoteToolActivator::fetch($url));
        touch($this->cacheFile($url), time() - 3601);
        clearstatcache();
        self::assertNull(RemoteToolActivator::fetch($url));
        self::assertSame(["[phpClaw] RemoteToolActivator: fetch failed or >64KB: $url"], $this->logged());
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testTheCacheFollowsPhpclawCacheDir(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $url = $this->url('/good.json');
        $_ENV['PHPCLAW_CACHE_DIR'] = $this->cacheBase . '/elsewhere/';
        self::assertNotNull(RemoteToolActivator::fetch($url));
        self::assertFileExists($this->cacheBase . '/elsewhere/phpclaw-tool-profiles/' . md5($url) . '.json');
    }

    /** @return iterable<string, array{string, string}> */
    public static function failingPaths(): iterable
    {
        yield 'redirect' => ['/redirect.json', 'fetch failed or >64KB: %s'];
        yield 'redirect carrying a profile' => ['/redirect-with-profile.json', 'fetch failed or >64KB: %s'];
        yield '65,537 bytes' => ['/big.json', 'fetch failed or >64KB: %s'];
        yield '404' => ['/missing.json', 'fetch failed or >64KB: %s'];
        yield '500' => ['/error.json', 'fetch failed or >64KB: %s'];
        yield 'not JSON' => ['/invalid.json', 'invalid profile at %s'];
    }

    /**
     * @group loopback-https
     * @dataProvider failingPaths
     */
    #[Group('loopback-https')]
    #[DataProvider('failingPaths')]
    public function testAFailureLeavesTheToolListUntouched(string $path, string $message): void
    {
        $this->startServer($this->requireLoopbackIni());
        $url = $this->url($path);
        $tools = self::tools('a', 'b', 'c');
        [$kept, $budget] = self::applyProfiles($tools, [$url], 0);
        self::assertSame($tools, $kept);
        self::assertSame(0, $budget);
        self::assertSame(['[phpClaw] RemoteToolActivator: ' . sprintf($message, $url)], $this->logged());
        self::assertSame([$path], $this->hits(), 'one request, no redirect followed');
        self::assertSame($path === '/invalid.json', is_file($this->cacheFile($url)), 'only a 2xx body within the cap is cached');
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testExactly64KbIsAccepted(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $p = RemoteToolActivator::fetch($this->url('/exact.json'));
        self::assertSame(['profile' => 'padded', 'tools' => ['file_read'], 'max_tools_per_turn' => 0], $p);
        self::assertSame(65536, filesize($this->cacheFile($this->url('/exact.json'))));
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testASlowServerTimesOutAfterFiveSeconds(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $url = $this->url('/slow.json');
        $tools = self::tools('a', 'b');
        $started = microtime(true);
        [$kept] = self::applyProfiles($tools, [$url], 0);
        $elapsed = microtime(true) - $started;
        self::assertSame($tools, $kept);
        self::assertGreaterThanOrEqual(4.9, $elapsed);
        self::assertLessThan(7.0, $elapsed);
        self::assertSame(["[phpClaw] RemoteToolActivator: fetch failed or >64KB: $url"], $this->logged());
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testSeveralProfilesApplyInOrderAndTheBudgetRule(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $tools = self::tools('shell_exec', 'file_read', 'code_search');
        $urls = [$this->url('/good.json'), $this->url('/missing.json'), $this->url('/second.json')];
        [$kept, $budget] = self::applyProfiles($tools, $urls, 0);
        self::assertSame(['code_search'], self::names($kept));
        self::assertSame(3, $budget, 'the last positive profile budget, when none was set in code');
        [, $budget] = self::applyProfiles($tools, $urls, 10);
        self::assertSame(10, $budget, 'an explicit budget wins');
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testHttpIsRefusedEvenOnLoopback(): void
    {
        $this->startServer($this->requireLoopbackIni());
        $url = "http://127.0.0.1:{$this->port}/good.json";
        self::assertNull(RemoteToolActivator::fetch($url));
        self::assertSame(["[phpClaw] RemoteToolActivator: HTTPS required, skipped: $url"], $this->logged());
        self::assertSame([], $this->hits());
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testTheSettingFreesLoopbackOnly(): void
    {
        $this->startServer($this->requireLoopbackIni());
        self::assertNull(RemoteToolActivator::fetch("https://localhost:{$this->port}/good.json"));
        self::assertNull(RemoteToolActivator::fetch('https://10.0.0.1/good.json'));
        self::assertNull(RemoteToolActivator::fetch('https://169.254.169.254/latest/meta-data'));
        self::assertCount(3, $this->logged());
        self::assertSame([], $this->hits());
    }

    /**
     * @group loopback-https
     */
    #[Group('loopback-https')]
    public function testTheCertificateIsVerified(): void
    {
        $certDir = $this->requireLoopbackIni();
        $this->startServer($certDir);
        // Loopback allowed but the test CA not trusted: the TLS handshake must fail.
        $code = 'var_dump(PhpClaw\Tools\RemoteToolActivator::fetch($argv[1]));';
        $p = proc_open(
            [PHP_BINARY, '-n', '-d', 'extension=' . self::moduleFile(), '-d', 'phpclaw.test_allow_loopback=1',
                '-d', 'error_log=' . $this->log, '-d', 'log_errors=1', '-r', $code, $this->url('/good.json')],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
            null,
            ['PHPCLAW_CACHE_DIR' => $this->cacheBase . '/untrusted'],
        );
        $out = stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        proc_close($p);
        self::assertSame("NULL\n", $out);
        self::assertSame(['[phpClaw] RemoteToolActivator: fetch failed or >64KB: ' . $this->url('/good.json')], $this->logged());
    }

    /**
     * What phpClaw's builder does with its remote profile URLs: fetch each in order, narrow
     * the tools by every profile that came back, and take a profile's per-turn cap only when
     * none was set in code.
     *
     * @param list<ToolInterface> $tools
     * @param list<string> $urls
     * @return array{0: list<ToolInterface>, 1: int}
     */
    private static function applyProfiles(array $tools, array $urls, int $explicit): array
    {
        $budget = $explicit;
        foreach ($urls as $url) {
            $profile = RemoteToolActivator::fetch($url);
            if ($profile === null) {
                continue;
            }
            $tools = RemoteToolActivator::filter($tools, $profile['tools']);
            if ($profile['max_tools_per_turn'] > 0 && $explicit === 0) {
                $budget = $profile['max_tools_per_turn'];
            }
        }

        return [$tools, $budget];
    }
}
