<?php

declare(strict_types=1);

/*
 * The whole-turn benchmark's tools: phpClaw's ten built-in tools plus 90 adapter tools written in
 * PHP the way a platform adapter writes them (ten subject areas times nine actions over an
 * in-memory data set), half on HasToolExecutionContract and half on HasCoreToolBinding, so with
 * the extension they run through the native lifecycle and without it through phpClaw's traits.
 * Loaded after phpClaw's autoloader (or the module) provides the contracts and traits.
 */

namespace PhpClawBench\Turn;

use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\Concerns\HasCoreToolBinding;
use PhpClaw\Tools\Concerns\HasToolExecutionContract;
use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\Contracts\ToolRoutingInterface;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\FileWriteTool;
use PhpClaw\Tools\HttpTool;
use PhpClaw\Tools\LoadSkillTool;
use PhpClaw\Tools\ProjectTool;
use PhpClaw\Tools\ShellTool;
use PhpClaw\Tools\ToolRoutingMetadata;
use PhpClaw\Tools\ZipPackagerTool;

/** Subject areas: noun => [domain, tags, plural]. */
const AREAS = [
    'post' => ['content', ['article', 'draft', 'blog'], 'blog posts'],
    'order' => ['commerce', ['checkout', 'invoice', 'cart'], 'shop orders'],
    'customer' => ['commerce', ['buyer', 'account', 'loyalty'], 'store customers'],
    'media' => ['content', ['image', 'video', 'upload'], 'media library items'],
    'setting' => ['configuration', ['option', 'preference', 'toggle'], 'site settings'],
    'report' => ['analytics', ['traffic', 'revenue', 'chart'], 'analytics reports'],
    'coupon' => ['commerce', ['discount', 'promotion', 'voucher'], 'discount coupons'],
    'ticket' => ['support', ['helpdesk', 'complaint', 'request'], 'support tickets'],
    'email' => ['messaging', ['newsletter', 'inbox', 'template'], 'email messages'],
    'page' => ['seo', ['slug', 'meta', 'sitemap'], 'site pages'],
];

/** Actions: suffix => verb. */
const ACTIONS = [
    'list' => 'list', 'get' => 'show', 'create' => 'create', 'update' => 'update', 'delete' => 'delete',
    'search' => 'search', 'export' => 'export', 'count' => 'count', 'schedule' => 'schedule',
];

/** The plan/perform/verify/complete steps and the contract methods every adapter tool shares. */
trait AdapterSteps
{
    /** @param list<array<string, mixed>> $rows */
    public function __construct(
        private string $toolName,
        private string $verb,
        private string $plural,
        private array $rows,
        private ToolRoutingMetadata $metadata,
    ) {
    }

    public function name(): string
    {
        return $this->toolName;
    }

    public function description(): string
    {
        return ucfirst($this->verb) . " {$this->plural}. Accepts a search term, a status filter and paging with offset and limit; returns JSON rows.\nRows carry id, title, status, owner and the last change.";
    }

    public function inputSchema(): array
    {
        return ['type' => 'object', 'properties' => [
            'search' => ['type' => 'string', 'description' => 'Words the title must contain.'],
            'status' => ['type' => 'string', 'enum' => ['draft', 'active', 'archived']],
            'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => 100],
            'offset' => ['type' => 'integer', 'minimum' => 0],
        ], 'required' => []];
    }

    public function routingMetadata(): ToolRoutingMetadata
    {
        return $this->metadata;
    }

    protected function plan(array $input): array
    {
        $refused = $this->guardCapability("{$this->verb} {$this->plural}")
            ?? $this->rejectUnknownArguments($input, ['search', 'status', 'limit', 'offset'])
            ?? $this->validatePaging($input, 100, 10000);
        return ['input' => $input, 'result' => $refused];
    }

    protected function perform(array $input): array
    {
        $search = strtolower((string) ($input['search'] ?? ''));
        $status = $input['status'] ?? null;
        $hits = [];
        foreach ($this->rows as $row) {
            if (($status === null || $row['status'] === $status) && ($search === '' || str_contains(strtolower($row['title']), $search))) {
                $hits[] = $row;
            }
        }
        $offset = (int) ($input['offset'] ?? 0);
        $limit = (int) ($input['limit'] ?? 20);
        return ['rows' => array_slice($hits, $offset, $limit), 'total' => count($hits), 'offset' => $offset, 'limit' => $limit];
    }

    protected function verify(array $execution, array $input): array
    {
        return ['result' => null];
    }

    protected function complete(array $execution, array $input): string
    {
        return $this->success($execution, ['tool' => $this->toolName, 'action' => $this->verb], $execution['total'] > $execution['limit'] ? ['More rows match; page with offset.'] : []);
    }
}

/** An adapter tool on phpClaw's contract lifecycle (retries, entity decoding). */
final class ContractAdapterTool implements ToolInterface, ToolRoutingInterface
{
    use HasToolExecutionContract;
    use AdapterSteps;

    public function requiredCapability(): string
    {
        return 'manage_options';
    }

    public function isEligibleForRouting(): bool
    {
        return true;
    }

    protected function runningInConsole(): bool
    {
        return false;
    }

    protected function callerHasCapability(string $capability): bool
    {
        return true;
    }
}

/** An adapter tool on core's binding (authorizer, no retries, verbatim encoding). */
final class CoreAdapterTool implements ToolInterface, ToolRoutingInterface, AuthorizableToolInterface
{
    use HasCoreToolBinding;
    use AdapterSteps;
}

/** The 90 adapter tools (the same objects' data for every turn). @return list<ToolInterface> */
function adapter_tools(): array
{
    static $rows = null;
    if ($rows === null) {
        mt_srand(4242);
        $words = ['spring', 'sale', 'checkout', 'newsletter', 'refund', 'shipping', 'launch', 'winter', 'loyalty', 'invoice', 'draft', 'homepage'];
        $rows = [];
        foreach (array_keys(AREAS) as $noun) {
            for ($i = 1; $i <= 150; $i++) {
                $rows[$noun][] = [
                    'id' => $i,
                    'title' => ucfirst($words[mt_rand(0, 11)]) . ' ' . $words[mt_rand(0, 11)] . " $noun $i & co",
                    'status' => ['draft', 'active', 'archived'][mt_rand(0, 2)],
                    'owner' => 'user' . mt_rand(1, 40),
                    'changed_at' => sprintf('2026-%02d-%02d 12:%02d:00', mt_rand(1, 11), mt_rand(1, 28), mt_rand(0, 59)),
                ];
            }
        }
    }
    $tools = [];
    $k = 0;
    foreach (AREAS as $noun => [$domain, $tags, $plural]) {
        foreach (ACTIONS as $action => $verb) {
            $metadata = new ToolRoutingMetadata(
                domains: [$domain],
                tags: $tags,
                intents: ["{$verb} {$plural}", "{$verb} {$noun}"],
                examples: ["please {$verb} the {$plural} from last week", "can you {$verb} {$noun} 42"],
            );
            $class = $k++ % 2 === 0 ? ContractAdapterTool::class : CoreAdapterTool::class;
            $tools[] = new $class("{$noun}_{$action}", $verb, $plural, $rows[$noun], $metadata);
        }
    }
    return $tools;
}

/** phpClaw's built-in tools on the workspace (db_query left out: it needs a PDO). @return list<ToolInterface> */
function builtin_tools(string $root): array
{
    return [
        new CodeSearchTool($root),
        new ProjectTool($root),
        new FileReadTool($root),
        new FileWriteTool($root),
        new FileEditTool($root),
        new ShellTool(['ls', 'wc', 'cat', 'head', 'grep', 'pwd', 'date']),
        new HttpTool(),
        new ZipPackagerTool($root),
        new LoadSkillTool(),
    ];
}
