<?php
// A PHP adapter tool on the native lifecycle (HasToolExecutionContract): a run whose perform()
// fails once with a retryable ToolException and is retried, a caller without the capability
// (FORBIDDEN envelope), and a non-retryable failure; then load_skill from a small registry.

declare(strict_types=1);

namespace PhpClaw\Skills {
    // phpClaw's skill registry, reduced to what load_skill reads.
    final class SoakSkill
    {
        public function __construct(private string $name, private string $description, private string $content)
        {
        }

        public function name(): string { return $this->name; }

        public function description(): string { return $this->description; }

        public function content(): string { return $this->content; }
    }

    final class SkillRegistry
    {
        /** @return list<SoakSkill> */
        public static function all(): array
        {
            return [new SoakSkill('refunds', 'How the shop refunds an order.', "1. Find the order.\n2. Refund it.")];
        }

        public static function count(): int { return 1; }

        /** @return list<string> */
        public static function names(): array { return ['refunds']; }
    }
}

namespace PhpClawSoak {
    require __DIR__ . '/_soak.php';

    use PhpClaw\Exceptions\ToolException;
    use PhpClaw\Tools\Concerns\HasToolExecutionContract;
    use PhpClaw\Tools\Contracts\ToolInterface;
    use PhpClaw\Tools\LoadSkillTool;

    final class OrderLookupTool implements ToolInterface
    {
        use HasToolExecutionContract;

        public bool $allowed = true;
        public int $failures = 0;
        public int $performed = 0;

        public function name(): string { return 'order_lookup'; }

        public function description(): string { return 'Look an order up by id.'; }

        public function inputSchema(): array
        {
            return ['type' => 'object', 'properties' => ['id' => ['type' => 'integer']], 'required' => ['id']];
        }

        public function requiredCapability(): string { return 'view_orders'; }

        protected function runningInConsole(): bool { return false; }

        protected function callerHasCapability(string $capability): bool { return $this->allowed; }

        protected function plan(array $input): array
        {
            $refusal = $this->guardCapability('look up orders');
            if ($refusal !== null) {
                return ['input' => $input, 'result' => $refusal];
            }
            return ['input' => $input, 'result' => $this->rejectUnknownArguments($input, ['id'])];
        }

        protected function perform(array $input): array
        {
            $this->performed++;
            if ($this->failures > 0) {
                $this->failures--;
                throw new ToolException('order service busy', 0, new \RuntimeException('timeout'));
            }
            if ($input['id'] < 0) {
                throw new ToolException('order ids are positive');
            }
            return ['id' => $input['id'], 'status' => 'paid', 'lines' => array_fill(0, 20, ['sku' => 'x &amp; y', 'qty' => 1])];
        }

        protected function verify(array $execution, array $input): array { return ['result' => null]; }

        protected function complete(array $execution, array $input): string
        {
            return $this->success($execution, ['mode' => 'lookup']);
        }
    }

    serve(static function (): array {
        $id = request_id();
        $tool = new OrderLookupTool();
        $tool->failures = 1;
        $e = success($tool->execute(['id' => $id]));
        expect($e['data']['id'] === $id && $e['data']['lines'][0]['sku'] === 'x & y' && $tool->performed === 2, 'retried run: ' . json_encode($e));

        $tool->allowed = false;
        $e = json_decode($tool->execute(['id' => $id]), true);
        expect(($e['error']['code'] ?? '') === 'FORBIDDEN', 'forbidden: ' . json_encode($e));

        $tool->allowed = true;
        refused(fn () => $tool->execute(['id' => -1]), 'order ids are positive');

        $skill = success((new LoadSkillTool())->execute(['name' => 'refunds']))['data'];
        expect($skill['instructions'] === "1. Find the order.\n2. Refund it.", 'load_skill: ' . json_encode($skill));

        return ['refusals' => 2];
    });
}
