<?php
// shell_exec: a command that runs, one whose output spills to a file, and two refusals.

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Exceptions\ShellDeniedException;
use PhpClaw\Tools\ShellTool;

use function PhpClawSoak\{expect, refused, serve, success, ws};

serve(static function (): array {
    chdir(ws());
    $shell = new ShellTool(['ls', 'wc', 'cat', 'grep']);

    $out = success($shell->execute(['command' => 'wc -l app/Models/Order.php']))['data']['output'];
    expect($out === '13 app/Models/Order.php', "wc answered '$out'");

    $out = success($shell->execute(['command' => 'grep -c soak storage/logs/big.log']))['data']['output'];
    expect($out === '1000', "grep -c answered '$out'");

    // 27,000 bytes of output: a preview inline, the whole output in a spill file.
    $out = success($shell->execute(['command' => 'cat storage/logs/big.log']))['data']['output'];
    expect(preg_match('~(/\S+/phpclaw-\S+)~', $out, $m) === 1, 'no spill path in: ' . substr($out, -300));
    $spill = rtrim($m[1], '.,)]');
    $spilled = is_file($spill) ? file_get_contents($spill) : null;
    @unlink($spill);
    expect($spilled === rtrim((string) file_get_contents(ws() . '/storage/logs/big.log')), "spill file $spill missing or not the whole output");

    refused(fn () => $shell->execute(['command' => 'ls; cat .env']), 'Command contains a disallowed shell metacharacter.', ShellDeniedException::class);
    refused(fn () => $shell->execute(['command' => 'rm -rf /']), "Command 'rm' is permanently blocked and cannot be executed.", ShellDeniedException::class);

    return ['refusals' => 2];
});
