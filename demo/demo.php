<?php
// phpclaw demo: a tool written in PHP, run by the native lifecycle.
// Run with the module loaded: php -d extension=phpclaw demo/demo.php

declare(strict_types=1);

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\Concerns\HasCoreToolBinding;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\ToolRoutingMetadata;

/** Counts words in a text: a small tool in the shape of phpClaw's core tools. */
final class WordCountTool implements ToolInterface, AuthorizableToolInterface, ToolRoutingInterface
{
    use HasCoreToolBinding;

    private const ALLOWED_KEYS = ['text', 'limit'];

    public function name(): string { return 'word_count'; }

    public function description(): string { return 'Count the words in a text.'; }

    public function inputSchema(): array
    {
        return [
            'type' => 'object',
            'properties' => [
                'text' => ['type' => 'string'],
                'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => 50],
            ],
            'required' => ['text'],
            'additionalProperties' => false,
        ];
    }

    public function routingMetadata(): ToolRoutingMetadata
    {
        return new ToolRoutingMetadata(domains: ['text'], tags: ['words'], intents: ['count words']);
    }

    protected function plan(array $input): array
    {
        $forbidden = $this->guardCapability('count words');
        if ($forbidden !== null) {
            return ['input' => $input, 'result' => $forbidden];
        }
        $refusal = $this->rejectUnknownArguments($input, self::ALLOWED_KEYS)
            ?? $this->validatePaging($input, 50, 0);

        return ['input' => $input, 'result' => $refusal];
    }

    protected function perform(array $input): array
    {
        if (!is_string($input['text'] ?? null)) {
            throw new ToolException('No text provided.');
        }
        $counts = array_count_values(str_word_count(strtolower($input['text']), 1));
        arsort($counts);

        return ['total' => array_sum($counts), 'top' => array_slice($counts, 0, $input['limit'] ?? 3, true)];
    }

    protected function verify(array $execution, array $input): array
    {
        return ['result' => null];
    }

    protected function complete(array $execution, array $input): string
    {
        return $this->success($execution, ['mode' => 'count']);
    }
}

$tool = new WordCountTool();
$method = new ReflectionMethod(WordCountTool::class, 'execute');
printf("WordCountTool::execute() is %s\n\n", $method->isInternal() ? 'native (internal)' : 'PHP');

$calls = [
    'a normal call' => ['text' => 'the cat and the hat and the bat', 'limit' => 2],
    'an unknown argument' => ['text' => 'x', 'colour' => 'red'],
    'a limit out of range' => ['text' => 'x', 'limit' => 99],
];
foreach ($calls as $label => $input) {
    printf("%s:\n  %s\n", $label, $tool->execute($input));
}

try {
    $tool->execute([]);
} catch (ToolException $e) {
    printf("a failing perform():\n  %s: %s\n", $e::class, $e->getMessage());
}
