<?php

declare(strict_types=1);

/*
 * The scripted turns: a user message, the model's batches of tool calls (label, tool, input) and
 * its final text. Labels name each call in the per-tool split. Files a turn edits are put back
 * (outside the timing) after it, so every run of a turn starts from the same workspace.
 */

namespace PhpClawBench\Turn;

/** @return array<string, array{message: string, steps: list<list<array{0: string, 1: string, 2: array<string, mixed>}>>, text: string, restore: list<string>}> */
function turns(): array
{
    return [
        'explore' => [
            'message' => 'Where does the OrderController handle the export? Search the code and show me the project layout and the controller.',
            'steps' => [
                [
                    ['code_search literal', 'code_search', ['pattern' => 'OrderController']],
                    ['project_info', 'project_info', []],
                ],
                [
                    ['file_read', 'file_read', ['path' => 'app/Http/Controllers/OrderController.php']],
                    ['file_read paged', 'file_read', ['path' => 'routes/web.php', 'offset' => 1, 'limit' => 20, 'line_numbers' => true]],
                ],
            ],
            'text' => 'The export is OrderController::export, routed as orders.export in routes/web.php.',
            'restore' => [],
        ],
        'shell' => [
            'message' => 'Run a shell command to list the models folder and count the lines of the route files, search the code for the order routes, then cat the .env so I can check the database password.',
            'steps' => [
                [
                    ['shell_exec allowed (ls)', 'shell_exec', ['command' => 'ls app/Models']],
                    ['shell_exec allowed (wc)', 'shell_exec', ['command' => 'wc -l routes/web.php routes/api.php']],
                ],
                [
                    ['shell_exec refused (cat .env)', 'shell_exec', ['command' => 'cat .env']],
                    ['code_search regex', 'code_search', ['pattern' => '/Route::(get|apiResource)\(.(orders|coupons)/', 'is_regex' => true, 'path' => 'routes']],
                ],
            ],
            'text' => 'There are 30 models; web.php and api.php hold the routes. I cannot show .env: it holds secrets.',
            'restore' => [],
        ],
        'edit' => [
            'message' => 'Read the app config file, change its timezone to Europe/Paris, and tell me which shop orders are still drafts.',
            'steps' => [
                [
                    ['file_read refused (config/app.php)', 'file_read', ['path' => 'config/app.php']],
                    ['order_list (adapter)', 'order_list', ['status' => 'draft', 'limit' => 20]],
                ],
                [
                    ['file_read', 'file_read', ['path' => 'config/view.php']],
                    ['order_count (adapter)', 'order_count', ['status' => 'draft']],
                ],
                [
                    ['file_edit', 'file_edit', ['path' => 'config/view.php', 'old_str' => "'timezone' => 'UTC'", 'new_str' => "'timezone' => 'Europe/Paris'"]],
                ],
            ],
            'text' => 'config/app.php is off limits; config/view.php now uses Europe/Paris, and the draft orders are listed above.',
            'restore' => ['config/view.php'],
        ],
        'adapters' => [
            'message' => 'Export the spring sale shop orders, search the orders with a sale coupon and the newsletter blog posts, check the composer packages of the project, and search the code for the coupon notification listener.',
            'steps' => [
                [
                    ['order_export (adapter)', 'order_export', ['search' => 'spring', 'limit' => 50]],
                    ['order_search (adapter)', 'order_search', ['search' => 'sale', 'status' => 'active']],
                    ['post_search (adapter)', 'post_search', ['search' => 'newsletter', 'limit' => 10]],
                ],
                [
                    ['project_info depth 3', 'project_info', ['depth' => 3]],
                    ['code_search literal', 'code_search', ['pattern' => 'SendCouponNotification', 'extension' => 'php']],
                ],
            ],
            'text' => 'Here are the spring orders, the sale coupons and the newsletter posts; the project runs Laravel 11.',
            'restore' => [],
        ],
    ];
}
