<?php

declare(strict_types=1);

/*
 * The router benchmarks' workload, shared by bench/router.php and bench/router_calls.php:
 * 100 tools (ten subject areas times ten actions) with routing metadata, and five messages.
 * Requires the module (ToolRoutingMetadata).
 */

use PhpClaw\Tools\ToolRoutingMetadata;

/** @return array{list<array<string, mixed>>, array<string, ToolRoutingMetadata>, array<string, string>} */
function router_bench_workload(): array
{
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

    return [$schemas, $metadata, $messages];
}
