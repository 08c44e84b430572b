<?php
// The baseline: the tool lifecycle written in plain PHP, the way a PHP framework would, so the
// native traits can be measured against it in the same process.

declare(strict_types=1);

namespace PhpClawBench;

use PhpClaw\Exceptions\ToolException;

trait PlainLifecycle
{
    public function execute(array $input): string
    {
        $planned = $this->plan($input);
        if ($planned['result'] !== null) {
            return $planned['result'];
        }
        for ($attempt = 0; ; ) {
            try {
                $raw = $this->perform($planned['input']);
                $checked = $this->verify($raw, $planned['input']);
                return $checked['result'] ?? $this->complete($raw, $planned['input']);
            } catch (ToolException $failure) {
                if ($attempt >= $this->maxRecoveryAttempts()) {
                    throw $failure;
                }
                $attempt++;
                $recovered = $this->recover($failure, $attempt);
                if ($recovered['result'] !== null) {
                    return $recovered['result'];
                }
            }
        }
    }

    protected function maxRecoveryAttempts(): int { return 1; }

    protected function recover(ToolException $failure, int $attempt): array
    {
        if ($failure->getPrevious() === null) {
            throw $failure;
        }
        return ['result' => null];
    }

    protected function guardCapability(string $subject): ?string
    {
        if ($this->runningInConsole() || $this->callerHasCapability($this->requiredCapability())) {
            return null;
        }
        return $this->error('FORBIDDEN', 'The current user lacks the "' . $this->requiredCapability()
            . '" capability required to ' . $subject . '.');
    }

    protected function rejectUnknownArguments(array $input, array $allowed): ?string
    {
        foreach ($input as $key => $_) {
            if (!in_array($key, $allowed, true)) {
                return $this->error('UNKNOWN_ARGUMENT', 'Unknown argument "' . $key . '".',
                    ['accepted_arguments' => $allowed]);
            }
        }
        return null;
    }

    protected function success(array $data, array $meta, array $warnings = []): string
    {
        return $this->encodeResult(['success' => true, 'data' => $data, 'meta' => $meta, 'warnings' => $warnings]);
    }

    protected function error(string $code, string $message, array $context = []): string
    {
        return $this->encodeResult([
            'success' => false,
            'error' => array_merge(['code' => $code, 'message' => $message], $context),
            'data' => null,
            'meta' => ['mode' => 'error'],
            'warnings' => [],
        ]);
    }

    protected function encodeResult(array $result): string
    {
        $decode = static function ($v) use (&$decode) {
            if (is_string($v)) {
                return html_entity_decode($v, ENT_QUOTES | ENT_HTML5, 'UTF-8');
            }
            return is_array($v) ? array_map($decode, $v) : $v;
        };
        try {
            return json_encode($decode($result), JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
        } catch (\JsonException $e) {
            throw new ToolException('Unable to encode tool response.', 0, $e);
        }
    }
}
