<?php

declare(strict_types=1);

/*
 * Fixed-count ToolRouter::filter calls on bench/router.php's 100 tools, for instruction counts:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     php -d extension=target/release/libphpclaw.so bench/router_calls.php <message> <calls>
 *
 * Run with 0 and N calls; (Ir(N) - Ir(0)) / N is the cost of one call. Messages: short, named,
 * snake, vague, paste. A third argument `fresh` passes a new (equal) schemas array on every
 * call, as a site that builds its tool list per request does: the content path.
 */

use PhpClaw\Tools\ToolRouter;
use PhpClaw\Tools\ToolRoutingMetadata;

$which = $argv[1] ?? 'short';
$calls = max(0, (int) ($argv[2] ?? 100));

$areas = [
    'post' => ['content', ['article', 'draft', 'blog'], 'blog posts'],
    'order' => ['commerce', ['checkout', 'invoice', 'cart'], 'shop orders'],
    'customer' => ['commerce', ['buyer', 'account', 'loyalty'], 'store customers'],
    'media' => ['content', ['image', 'video', 'upload'], 'media library items'],
    'setting' => ['configuration', ['option', 'preference', 'toggle'], 'site settings'],
    'report' => ['analytics', ['traffic', 'revenue', 'chart'], 'analytics reports'],
    'file' => ['filesystem', ['path', 'directory', 'disk'], 'workspace files'],
    'table' => ['database', ['row', 'column', 'query'], 'database tables'],
    'email' => ['messaging', ['newsletter', 'inbox', 'template'], 'email messages'],
    'page' => ['seo', ['slug', 'meta', 'sitemap'], 'site pages'],
];
$actions = [
    'list' => 'list', 'get' => 'show', 'create' => 'create', 'update' => 'update', 'delete' => 'delete',
    'search' => 'search', 'export' => 'export', 'import' => 'import', 'count' => 'count', 'schedule' => 'schedule',
];
$schemas = [];
$metadata = [];
foreach ($areas as $noun => [$domain, $tags, $plural]) {
    foreach ($actions as $action => $verb) {
        $name = "{$noun}_{$action}";
        $schemas[] = [
            'name' => $name,
            'description' => ucfirst($verb) . " {$plural}. Accepts filters, paging with offset and limit, and returns JSON.\nDetails follow on later lines.",
            'input_schema' => ['type' => 'object', 'properties' => [
                'id' => ['type' => 'integer', 'minimum' => 1],
                'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => 100],
                'search' => ['type' => 'string'],
            ]],
        ];
        $metadata[$name] = new ToolRoutingMetadata(
            domains: [$domain],
            tags: $tags,
            intents: ["{$verb} {$plural}", "{$verb} {$noun}"],
            examples: ["please {$verb} the {$plural} from last week", "can you {$verb} {$noun} 42"],
        );
    }
}
$messages = [
    'short' => 'list the latest blog posts',
    'named' => 'use OrderExportTool to export last month orders as csv',
    'snake' => 'run customer_search for buyers named Smith',
    'vague' => 'what happened on the site yesterday?',
    'paste' => 'Summarise these notes and update the draft article: '
        . substr(str_repeat('Meeting notes: customer feedback on checkout, newsletter template and sitemap slugs. ', 80), 0, 6000),
];
$message = $messages[$which] ?? $which;
$fresh = ($argv[3] ?? '') === 'fresh';
$router = new ToolRouter(0);
$router->filter($schemas, $message, 'claude-haiku-4-5', $metadata); // warm the caches
for ($i = 0; $i < $calls; $i++) {
    if ($fresh) {
        $copy = $schemas;
        $copy[0] = $schemas[0]; // a write: a new outer array with the same content
        $router->filter($copy, $message, 'claude-haiku-4-5', $metadata);
    } else {
        $router->filter($schemas, $message, 'claude-haiku-4-5', $metadata);
    }
}
