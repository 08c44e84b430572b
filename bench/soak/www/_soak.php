<?php
// Shared by the soak endpoints (bench/soak/www/*.php). Each endpoint makes its tool calls,
// checks every answer against what it must be, and replies with one JSON line:
//   200 {"ok":true,"refusals":N,...}     every call answered as expected; N of them were the
//                                         intended refusals the endpoint provokes;
//   500 {"ok":false,"error":"..."}       anything else (a wrong answer, an unexpected exception).
// The pool sets SOAK_WS (the workspace), SOAK_HTTP (the loopback server),
// SOAK_MYSQL_* (MariaDB, when there is one) and SOAK_INJECT (the self-check's faults).

declare(strict_types=1);

namespace PhpClawSoak;

use PhpClaw\Exceptions\ToolException;
use RuntimeException;
use Throwable;

/** An answer that is not the one the endpoint must get. */
final class Unexpected extends RuntimeException
{
}

function env(string $name): string
{
    $v = getenv($name);
    return is_string($v) ? $v : '';
}

function ws(): string
{
    return env('SOAK_WS');
}

/** The request's id, given by the load generator (unique over the run). */
function request_id(): int
{
    return (int) ($_GET['id'] ?? 0);
}

/** The decoded success envelope of $json; anything else is Unexpected. */
function success(string $json): array
{
    $e = json_decode($json, true);
    if (!is_array($e) || ($e['success'] ?? null) !== true || !array_key_exists('data', $e)) {
        throw new Unexpected('not a success envelope: ' . substr($json, 0, 300));
    }
    return $e;
}

/** Expect $call to be refused with exactly $message as $class (a ToolException family). */
function refused(callable $call, string $message, string $class = ToolException::class): void
{
    try {
        $out = $call();
    } catch (ToolException $e) {
        if (!$e instanceof $class || $e->getMessage() !== $message) {
            throw new Unexpected(sprintf('refused with %s "%s", expected %s "%s"', $e::class, $e->getMessage(), $class, $message));
        }
        return;
    }
    throw new Unexpected('not refused: ' . substr((string) $out, 0, 300));
}

function expect(bool $condition, string $what): void
{
    if (!$condition) {
        throw new Unexpected($what);
    }
}

/**
 * The faults `run.sh --self-check` injects to prove the checks fail: each is what a broken
 * module could do to a long-lived worker.
 */
function inject(): void
{
    switch (env('SOAK_INJECT')) {
        case 'leak':
            // Memory that outlives the request: a persistent SQLite handle per request.
            $db = new \PDO('sqlite::memory:', 'leak' . request_id(), null, [\PDO::ATTR_PERSISTENT => true]);
            $db->exec('CREATE TABLE IF NOT EXISTS t (b BLOB)');
            $db->exec("INSERT INTO t VALUES (zeroblob(8192))");
            break;
        case 'fd':
            // A descriptor that outlives the request: a persistent handle on a file.
            new \PDO('sqlite:' . ws() . '/database/shop.sqlite', 'fd' . request_id(), null, [\PDO::ATTR_PERSISTENT => true]);
            break;
        case 'zombie':
            // A child nobody waits for: PHP reaps a proc_open child at request end only if it
            // has exited by then, so this one stays a zombie of the worker.
            if (request_id() % 50 === 0) {
                proc_open(['sleep', '0.2'], [], $pipes);
            }
            break;
        case 'tmp':
            if (request_id() % 50 === 0) {
                tempnam(sys_get_temp_dir(), 'phpclaw-stray-');
            }
            break;
        case 'error':
            if (request_id() % 500 === 0) {
                throw new Unexpected('injected error');
            }
            break;
    }
}

/** Run an endpoint body (returning extra reply fields, with `refusals`) and reply. */
function serve(callable $body): void
{
    header('Content-Type: application/json');
    try {
        inject();
        $reply = array_merge(['ok' => true, 'refusals' => 0], $body());
    } catch (Throwable $e) {
        http_response_code(500);
        $reply = ['ok' => false, 'error' => $e::class . ': ' . $e->getMessage()];
    }
    echo json_encode($reply, JSON_UNESCAPED_SLASHES), "\n";
}
