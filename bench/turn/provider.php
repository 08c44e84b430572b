<?php

declare(strict_types=1);

/*
 * The whole-turn benchmark's model: a provider that answers from a script instead of the network.
 * Each send() encodes the request body the way a real provider would (the messages and the
 * offered tool schemas as JSON), records the tools it was offered and the tool results the agent
 * gave back, and returns the script's next step: a batch of tool calls, or the final text.
 */

namespace PhpClawBench\Turn;

use PhpClaw\Agent\Message;
use PhpClaw\Providers\Contracts\ProviderInterface;

final class ScriptedProvider implements ProviderInterface
{
    /** @var list<list<array{0: string, 1: string, 2: array<string, mixed>}>> */
    private array $steps = [];

    private string $finalText = '';

    private int $step = 0;

    /** Tool names offered at each send(), in order. @var list<list<string>> */
    public array $offered = [];

    /** Results given back to the model: tool_use_id => result string, in call order. @var array<string, string> */
    public array $results = [];

    /** Scripted calls naming a tool the request did not offer (the router left it out). @var list<string> */
    public array $notOffered = [];

    /** Bytes of every request body encoded. */
    public int $requestBytes = 0;

    /** Start a turn: the batches of calls (label, tool name, input) and the final text. */
    public function script(array $steps, string $finalText): void
    {
        $this->steps = $steps;
        $this->finalText = $finalText;
        $this->step = 0;
        $this->offered = [];
        $this->results = [];
        $this->requestBytes = 0;
        $this->notOffered = [];
    }

    public function send(array $messages, array $tools = []): array
    {
        $wire = [];
        foreach ($messages as $m) {
            if ($m instanceof Message) {
                $wire[] = $m->toArray();
                if ($m->isBatchToolUse() && $m === end($messages)) {
                    foreach ($m->batchResults ?? [] as $id => $result) {
                        $this->results[(string) $id] = (string) $result;
                    }
                }
            }
        }
        $this->requestBytes += strlen((string) json_encode(['model' => $this->model(), 'max_tokens' => 4096, 'messages' => $wire, 'tools' => $tools]));
        $this->offered[] = array_map(static fn (array $s): string => (string) ($s['name'] ?? $s['function']['name'] ?? ''), $tools);

        if ($this->step >= count($this->steps)) {
            return ['type' => 'text', 'text' => $this->finalText, 'input_tokens' => 1200, 'output_tokens' => 80];
        }
        $calls = [];
        $offered = end($this->offered);
        foreach ($this->steps[$this->step] as $i => [$label, $name, $input]) {
            if (!in_array($name, $offered, true)) {
                $this->notOffered[] = $name;
            }
            $calls[] = ['tool_use_id' => sprintf('toolu_%02d_%02d', $this->step, $i), 'tool_name' => $name, 'tool_input' => $input];
        }
        $this->step++;
        return ['type' => 'tool_use_batch', 'calls' => $calls, 'input_tokens' => 1000, 'output_tokens' => 60];
    }

    public function stream(array $messages, callable $onToken): string
    {
        $onToken($this->finalText);
        return $this->finalText;
    }

    public function name(): string
    {
        return 'anthropic';
    }

    public function model(): string
    {
        return 'claude-sonnet-4-5';
    }
}
