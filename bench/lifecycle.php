<?php
// Benchmarks of the foundation, each against a plain-PHP baseline in the same process:
//   1. execute() of a PHP userland tool through the native trait vs bench/PlainLifecycle.php;
//   2. encoding a ~1 MB envelope: native encodeResult (core binding, verbatim) vs json_encode;
//      and the contract binding (entities decoded) vs recursive html_entity_decode + json_encode.
// Run: php -d extension=phpclaw bench/lifecycle.php   (or bench/run.sh)

declare(strict_types=1);

require __DIR__ . '/PlainLifecycle.php';

use PhpClaw\Tools\Concerns\HasCoreToolBinding;
use PhpClaw\Tools\Concerns\HasToolExecutionContract;

trait BenchSteps
{
    public function requiredCapability(): string { return 'bench'; }
    protected function runningInConsole(): bool { return false; }
    protected function callerHasCapability(string $capability): bool { return true; }
    protected function plan(array $input): array
    {
        $forbidden = $this->guardCapability('run the bench');
        if ($forbidden !== null) {
            return ['input' => $input, 'result' => $forbidden];
        }
        return ['input' => $input, 'result' => $this->rejectUnknownArguments($input, ['q', 'limit'])];
    }
    protected function perform(array $input): array { return ['rows' => [['id' => 1, 'name' => 'a &amp; b'], ['id' => 2, 'name' => 'c']], 'q' => $input['q']]; }
    protected function verify(array $execution, array $input): array { return ['result' => null]; }
    protected function complete(array $execution, array $input): string { return $this->success($execution, ['mode' => 'bench']); }
    public function encode(array $a): string { return $this->encodeResult($a); }
}

final class NativeContractTool { use HasToolExecutionContract; use BenchSteps; }
final class NativeCoreTool { use HasCoreToolBinding; use BenchSteps { BenchSteps::requiredCapability insteadof HasCoreToolBinding; BenchSteps::runningInConsole insteadof HasCoreToolBinding; BenchSteps::callerHasCapability insteadof HasCoreToolBinding; } }
final class PlainTool { use PhpClawBench\PlainLifecycle; use BenchSteps; }

/** Median of $rounds timings of $n calls of $fn, in nanoseconds per call. */
function per_call(callable $fn, int $n, int $rounds = 7): float
{
    $t = [];
    for ($r = 0; $r < $rounds; $r++) {
        $s = hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $fn();
        }
        $t[] = (hrtime(true) - $s) / $n;
    }
    sort($t);
    return $t[intdiv($rounds, 2)];
}

$input = ['q' => 'hello', 'limit' => 5];
$native = new NativeContractTool();
$plain = new PlainTool();
if ($native->execute($input) !== $plain->execute($input)) {
    fwrite(STDERR, "mismatch between native and plain envelopes\n");
    exit(1);
}
$n = 200000;
$tn = per_call(fn () => $native->execute($input), $n);
$tp = per_call(fn () => $plain->execute($input), $n);
printf("execute() userland tool   native %7.0f ns  plain PHP %7.0f ns  ratio plain/native %.2fx\n", $tn, $tp, $tp / $tn);

// ~1 MB payload: 5000 rows of mixed strings, ints, floats and nested arrays.
$rows = [];
for ($i = 0; $i < 5000; $i++) {
    $rows[] = ['id' => $i, 'path' => "src/app/Module$i/Controller.php", 'score' => $i / 7,
        'text' => "Line $i: caf\u{e9} &amp; cr\u{e8}me \"quoted\" /slash/ " . str_repeat('x', 120),
        'tags' => ['a', 'b', $i % 2 === 0], 'meta' => ['k' => null, 'n' => []]];
}
$payload = ['success' => true, 'data' => ['rows' => $rows], 'meta' => ['mode' => 'bench'], 'warnings' => []];
$flags = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES;
$size = strlen(json_encode($payload, $flags));
$core = new NativeCoreTool();
if ($core->encode($payload) !== json_encode($payload, $flags)) {
    fwrite(STDERR, "core encoding differs from json_encode\n");
    exit(1);
}
$decode = static function ($v) use (&$decode) {
    if (is_string($v)) {
        return html_entity_decode($v, ENT_QUOTES | ENT_HTML5, 'UTF-8');
    }
    return is_array($v) ? array_map($decode, $v) : $v;
};
if ($native->encode($payload) !== json_encode($decode($payload), $flags)) {
    fwrite(STDERR, "contract encoding differs from html_entity_decode + json_encode\n");
    exit(1);
}
$m = 40;
$te = per_call(fn () => $core->encode($payload), $m);
$tj = per_call(fn () => json_encode($payload, $flags), $m);
printf("encode %.1f MB verbatim    native %7.2f ms  json_encode %7.2f ms  ratio %.2fx\n", $size / 1e6, $te / 1e6, $tj / 1e6, $tj / $te);
$tc = per_call(fn () => $native->encode($payload), $m);
$tpd = per_call(fn () => json_encode($decode($payload), $flags), $m);
printf("encode %.1f MB + entities  native %7.2f ms  PHP decode+encode %7.2f ms  ratio %.2fx\n", $size / 1e6, $tc / 1e6, $tpd / 1e6, $tpd / $tc);
