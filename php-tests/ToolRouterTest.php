<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\ToolRouter;
use PhpClaw\Tools\ToolRoutingMetadata;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use ReflectionClass;
use TypeError;
use ValueError;

/**
 * PhpClaw\Tools\ToolRouter, native: the spec's "Which tools a turn sees" (stages 2 and 3, the
 * per-turn budget, always-included tools), with phpClaw's router tests restated.
 */
final class ToolRouterTest extends TestCase
{
    /** Fifteen tools like a store site's registry; three carry descriptive text. */
    private static function store(): array
    {
        $described = [
            'product_tool' => 'list and search products in the store catalog',
            'order_tool' => 'create and update customer orders',
            'coupon_tool' => 'manage discount coupons',
        ];
        $out = [];
        foreach ([
            'file_read', 'file_write', 'shell_exec', 'http_request', 'code_search', 'project_info',
            'zip_package', 'product_tool', 'order_tool', 'coupon_tool', 'fixture_tool_1',
            'fixture_tool_2', 'fixture_tool_3', 'fixture_tool_4', 'fixture_tool_5',
        ] as $n) {
            $out[] = ['name' => $n, 'description' => $described[$n] ?? "handles {$n} operations", 'input_schema' => ['type' => 'object']];
        }

        return $out;
    }

    /** @param list<array<string, mixed>> $schemas */
    private static function names(array $schemas): array
    {
        return array_map(static fn (array $s): string => (string) ($s['name'] ?? $s['function']['name']), $schemas);
    }

    private static function schema(string $name, string $description = 'generic helper'): array
    {
        return ['name' => $name, 'description' => $description];
    }

    /** @return list<array<string, mixed>> */
    private static function probes(int $n): array
    {
        $out = [];
        for ($i = 0; $i < $n; $i++) {
            $out[] = ['name' => "probe_tool_{$i}", 'description' => 'probe', 'input_schema' => ['type' => 'object']];
        }

        return $out;
    }

    // ---- the class itself ----------------------------------------------------------------

    public function testClassShape(): void
    {
        $c = new ReflectionClass(ToolRouter::class);
        self::assertTrue($c->isFinal());
        self::assertTrue($c->isInternal());
        self::assertSame(-1, ToolRouter::UNLIMITED);
        $p = $c->getConstructor()->getParameters();
        self::assertSame(['maxToolsPerTurn', 'minScoreShare'], array_map(static fn ($x) => $x->getName(), $p));
        self::assertSame(0, $p[0]->getDefaultValue());
        self::assertSame(0.0, $p[1]->getDefaultValue());
    }

    public function testWrongArgumentTypesRaiseTypeError(): void
    {
        $r = new ToolRouter(1);
        foreach ([
            static fn () => $r->filter('x', 'm'),
            static fn () => $r->filter([], []),
            static fn () => $r->filter([], 'm', 'model', 'meta'),
            static fn () => $r->confidence([], []),
            static fn () => new ToolRouter('many'),
            static fn () => new ToolRouter(1, 'x'),
            static fn () => $r->route([], 'm', '', [], null, 'always'),
        ] as $i => $call) {
            try {
                $call();
                self::fail("call {$i} did not throw");
            } catch (TypeError $e) {
                self::assertStringContainsString('must be of type', $e->getMessage(), "call {$i}");
            }
        }
    }

    public function testANonArraySchemaIsATypeErrorOnceTheRouterEngages(): void
    {
        $r = new ToolRouter(1);
        // Within budget the list is handed back without being read, as the reference does.
        self::assertSame(['oops'], $r->filter(['oops'], 'm'));
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage('ToolRouter::filter(): Argument #1 ($allSchemas) must contain only schema arrays, string given');
        $r->filter([self::schema('a'), 'oops'], 'm');
    }

    public function testMetadataThatIsNotAnObjectIsATypeError(): void
    {
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage("must hold PhpClaw\\Tools\\ToolRoutingMetadata objects, string given for 'beta'");
        (new ToolRouter(1))->filter([self::schema('alpha'), self::schema('Beta')], 'm', '', ['beta' => 'tags']);
    }

    // ---- the per-turn budget ---------------------------------------------------------------

    /** @return array<string, array{string, int}> */
    public static function budgetTable(): array
    {
        return [
            'haiku' => ['haiku', 6], 'flash' => ['flash', 6], 'gpt-3.5' => ['gpt-3.5', 5],
            'mini' => ['mini', 8], 'gemini' => ['gemini', 15], 'sonnet' => ['sonnet', 12],
            'gpt-4o' => ['gpt-4o', 15], 'opus' => ['opus', 20],
            'claude-opus-5' => ['claude-opus-5', 20], 'claude-sonnet-5' => ['claude-sonnet-5', 12],
            'claude-haiku-4-5-20251001' => ['claude-haiku-4-5-20251001', 6],
            'gpt-4o-mini is a mini' => ['gpt-4o-mini', 8],
            'gemini-3.5-flash-lite is a flash' => ['gemini-3.5-flash-lite', 6],
            'gemini-2.5-pro is not a mini' => ['gemini-2.5-pro', 15],
            'gemini-1.5-pro' => ['gemini-1.5-pro', 15], 'gemini-pro' => ['gemini-pro', 15],
            'path-prefixed gemini' => ['models/gemini-1.5-pro-latest', 15],
            'gemini-2.0-flash' => ['gemini-2.0-flash', 6], 'gemini-2.0-flash-lite' => ['gemini-2.0-flash-lite', 6],
            'gpt-4 default' => ['gpt-4', 10], 'gpt-4-turbo default' => ['gpt-4-turbo', 10],
            'gpt-3.5-turbo' => ['gpt-3.5-turbo', 5], 'o1-mini' => ['o1-mini', 8], 'o4-mini' => ['o4-mini', 8],
            'minimax is no mini' => ['MiniMax-Text-01', 10], 'upper case' => ['GPT-4O-MINI', 8],
            'qwen default' => ['qwen2.5:7b', 10], 'llama default' => ['llama3', 10],
            'mistral default' => ['mistral-large', 10], 'deepseek default' => ['deepseek-chat', 10],
            'empty model' => ['', 10],
        ];
    }

    /**
     * @dataProvider budgetTable
     */
    #[DataProvider('budgetTable')]
    public function testEveryModelIdGetsItsBudget(string $model, int $expected): void
    {
        self::assertCount($expected, (new ToolRouter())->filter(self::probes(40), 'unrelated question about nothing', $model));
    }

    public function testExplicitBudgetWinsOverTheModel(): void
    {
        self::assertCount(3, (new ToolRouter(3))->filter(self::store(), 'generic', 'claude-opus-4'));
        self::assertCount(1, (new ToolRouter(1))->filter(self::store(), 'generic', 'claude-opus-4'));
        self::assertCount(15, (new ToolRouter(0))->filter(self::store(), 'generic', 'claude-opus-4'));
    }

    public function testUnlimitedTurnsTheCapOff(): void
    {
        $all = self::probes(40);
        self::assertSame($all, (new ToolRouter(ToolRouter::UNLIMITED))->filter($all, 'probe', 'claude-haiku'));
    }

    public function testOtherNegativeBudgetsDeriveFromTheModel(): void
    {
        foreach ([-2, -7, PHP_INT_MIN] as $budget) {
            self::assertCount(6, (new ToolRouter($budget))->filter(self::store(), 'x', 'claude-haiku-4-5'), (string) $budget);
            self::assertCount(10, (new ToolRouter($budget))->filter(self::store(), 'x', ''), (string) $budget);
        }
        self::assertCount(15, (new ToolRouter(PHP_INT_MAX))->filter(self::store(), 'x', 'claude-haiku'));
    }

    // ---- early return ---------------------------------------------------------------------

    public function testWithinBudgetTheListComesBackUntouched(): void
    {
        // Keys and order preserved: the router did not engage.
        $few = [7 => self::schema('zeta'), 3 => self::schema('alpha'), 'x' => self::schema('mid')];
        $r = new ToolRouter(3);
        self::assertSame($few, $r->filter($few, 'anything'));
        self::assertSame([], $r->lastRankedNames());
        // One past the budget: engaged, a list sorted by name.
        $out = (new ToolRouter(2))->filter($few, 'anything');
        self::assertSame([0, 1], array_keys($out));
        self::assertSame(['alpha', 'mid'], self::names($out));
        self::assertSame([], (new ToolRouter(2))->filter([], 'x'));
        self::assertCount(4, (new ToolRouter(0))->filter(array_slice(self::store(), 0, 4), 'anything', 'claude-haiku-4-5'));
    }

    public function testTheReturnedSchemasAreTheGivenArrays(): void
    {
        $schemas = self::store();
        $schemas[0]['input_schema']['properties'] = ['path' => ['type' => 'string']];
        $schemas[0]['extra'] = new \stdClass();
        $out = (new ToolRouter(2))->filter($schemas, 'read a file with file_read');
        $byName = array_combine(self::names($out), $out);
        self::assertSame($schemas[0], $byName['file_read']);
        self::assertSame($schemas[0]['extra'], $byName['file_read']['extra']);
    }

    // ---- pinning --------------------------------------------------------------------------

    public function testClassNameMentionPins(): void
    {
        self::assertContains('shell_exec', self::names((new ToolRouter(0))->filter(self::store(), 'please use ShellTool to list processes', 'claude-haiku-4-5')));
        self::assertContains('file_read', self::names((new ToolRouter(1))->filter(self::store(), 'Using FileReadTool', '')));
    }

    public function testSnakeCaseMentionPinsOnlyTheNamedTool(): void
    {
        $names = self::names((new ToolRouter(0))->filter(self::store(), 'run product_tool for the store', 'claude-haiku-4-5'));
        self::assertContains('product_tool', $names);
        self::assertNotContains('order_tool', $names);
    }

    public function testPartialMentionsPinInBothDirections(): void
    {
        $s = [self::schema('wc_get_customer'), self::schema('b_tool'), self::schema('c_tool')];
        self::assertSame(['wc_get_customer'], self::names((new ToolRouter(1))->filter($s, 'call wc_get')));
        self::assertSame(['wc_get_customer'], self::names((new ToolRouter(1))->filter($s, 'call wc_get_customer_v2')));
    }

    public function testAMentionBeatsEverySignalAndPinnedToolsMayExceedTheBudget(): void
    {
        $s = [self::schema('winner_tool', 'nothing relevant'), self::schema('loser_tool', 'publish an article to the site')];
        $meta = ['loser_tool' => new ToolRoutingMetadata(['content'], [], ['publish article'])];
        self::assertSame(['winner_tool'], self::names((new ToolRouter(1))->filter($s, 'publish article using winner_tool', '', $meta)));
        $r = new ToolRouter(1);
        self::assertSame(['loser_tool', 'winner_tool'], self::names($r->filter($s, 'winner_tool and loser_tool')));
        self::assertSame(['winner_tool', 'loser_tool'], $r->lastRankedNames());
    }

    public function testLoadSkillIsAlwaysPinned(): void
    {
        $s = [self::schema('zeta_tool'), self::schema('load_skill'), self::schema('alpha_tool')];
        self::assertSame(['load_skill'], self::names((new ToolRouter(1))->filter($s, 'nothing at all')));
    }

    public function testOpenAiFunctionShape(): void
    {
        $oai = array_map(static fn (array $s): array => ['type' => 'function', 'function' => [
            'name' => $s['name'], 'description' => $s['description'], 'parameters' => [],
        ]], self::store());
        $names = self::names((new ToolRouter(0))->filter($oai, 'use ShellTool now', 'gpt-4o-mini'));
        self::assertCount(8, $names);
        self::assertContains('shell_exec', $names);
        // The description is read from the function too.
        $names = self::names((new ToolRouter(1))->filter($oai, 'discount coupons'));
        self::assertSame(['coupon_tool'], $names);
    }

    // ---- ranking --------------------------------------------------------------------------

    public function testKeywordOverlapSurfacesTheRelevantTool(): void
    {
        self::assertContains('product_tool', self::names((new ToolRouter(0))->filter(self::store(), 'give me the list of products in the store', 'claude-haiku-4-5')));
    }

    public function testAnUnrelatedOrEmptyMessageStillFillsTheBudget(): void
    {
        self::assertCount(6, (new ToolRouter(0))->filter(self::store(), 'unrelated request', 'claude-haiku-4-5'));
        self::assertCount(6, (new ToolRouter(0))->filter(self::store(), '', 'claude-haiku-4-5'));
    }

    /** @return array<string, array{string, list<string>, string}> */
    public static function plurals(): array
    {
        return [
            'editors meets editor' => ['user_tool', ['editor', 'login'], 'List the editors with their logins.'],
            'categories meets category' => ['category_tool', ['category'], 'List the categories.'],
            'gas stays gas' => ['gas_tool', ['gas'], 'List the gas readings.'],
            'status is statu on both sides' => ['status_tool', ['statuses'], 'status please'],
        ];
    }

    /**
     * @dataProvider plurals
     * @param list<string> $tags
     */
    #[DataProvider('plurals')]
    public function testPluralsMatchTheirSingulars(string $target, array $tags, string $message): void
    {
        $s = array_map(static fn (string $n): array => self::schema($n, 'list records'), ['alpha_tool', 'beta_tool', 'delta_tool', $target]);
        $out = (new ToolRouter(1))->filter($s, $message, 'qwen2.5:7b', [$target => new ToolRoutingMetadata(tags: $tags)]);
        self::assertSame([$target], self::names($out));
    }

    public function testSignalsRankInWeightOrder(): void
    {
        $pairs = [
            // [weaker signal, stronger signal]
            ['description', 'intents'], ['tags', 'domains'], ['examples', 'tags'], ['description', 'examples'],
        ];
        foreach ($pairs as [$weak, $strong]) {
            $meta = [];
            $schemas = [self::schema('aaa_tool', ''), self::schema('bbb_tool', '')];
            foreach (['aaa_tool' => $weak, 'bbb_tool' => $strong] as $tool => $signal) {
                if ($signal === 'description') {
                    $schemas[$tool === 'aaa_tool' ? 0 : 1]['description'] = 'catalog';
                } else {
                    $meta[$tool] = new ToolRoutingMetadata(...[$signal => ['catalog']]);
                }
            }
            self::assertSame(['bbb_tool'], self::names((new ToolRouter(1))->filter($schemas, 'catalog', '', $meta)), "{$strong} over {$weak}");
        }
    }

    public function testSnakeCaseNamePartsMatchMessageWords(): void
    {
        $s = [self::schema('code_search', 'Locate occurrences in the tree.'), self::schema('file_read', 'Return the file contents.')];
        foreach (['one', 'two', 'three', 'four', 'five'] as $n) {
            $s[] = self::schema("filler_{$n}", 'x');
        }
        self::assertSame(['code_search'], self::names((new ToolRouter(maxToolsPerTurn: 1))->filter($s, 'search for JPATH_ROOT')));
    }

    public function testTiesBreakOnNameNeverOnDeclarationOrder(): void
    {
        $s = [self::schema('zzz_tool', 'same words'), self::schema('aaa_tool', 'same words'), self::schema('mmm_tool', 'same words')];
        self::assertSame(['aaa_tool', 'mmm_tool'], self::names((new ToolRouter(2))->filter($s, 'completely unrelated')));
        self::assertSame(['alpha', 'Beta'], self::names((new ToolRouter(2))->filter([self::schema('Zed'), self::schema('alpha'), self::schema('Beta')], '')));
    }

    public function testTheSameSelectionIsByteIdenticalAcrossMessages(): void
    {
        $s = [];
        foreach (['shell_exec', 'file_read', 'http_request', 'code_search', 'db_query', 'zip_package', 'project_info'] as $n) {
            $s[] = self::schema($n, "The {$n} tool.");
        }
        $r = new ToolRouter(maxToolsPerTurn: 5);
        $a = $r->filter($s, 'shell file http code db');
        $b = $r->filter($s, 'db code http file shell');
        self::assertSame(json_encode($a), json_encode($b));
        $sorted = self::names($a);
        sort($sorted);
        self::assertSame($sorted, self::names($a));
        self::assertNotSame($r->filter($s, 'shell file http code db'), $r->filter($s, 'zip project db code http'));
    }

    /**
     * Four tools, so word weights apply (N = 4):
     *   wp_query: intent "list posts"; wc_get_customer: intent "customer statistics";
     *   wc_reviews: intent "customer feedback"; wp_menus: intent "navigation notes".
     * Message "list customer customer customer customer":
     *   list     carried by 1 tool:  ln(4/1) = 1.386294, said once               -> 1.386294
     *   customer carried by 2 tools: ln(4/2) = 0.693147, said 4 times: / (1 + ln 4 = 2.386294) -> 0.290469
     *   wp_query        = 16 * 1.386294                       = 22.1807
     *   wc_get_customer = 16 * 0.290469 + name 1 * 0.290469   =  4.9380 (name part "customer")
     *   wc_reviews      = 16 * 0.290469                       =  4.6475
     *   wp_menus        = 0
     * So the order is wp_query, wc_get_customer, wc_reviews, wp_menus, and the confidence is
     * 22.1807 / 32 = 0.69315 -> 0.6931.
     */
    public function testHandComputedRanking(): void
    {
        $s = [self::schema('wp_menus', ''), self::schema('wc_reviews', ''), self::schema('wc_get_customer', ''), self::schema('wp_query', '')];
        $meta = [
            'wp_query' => new ToolRoutingMetadata(intents: ['list posts']),
            'wc_get_customer' => new ToolRoutingMetadata(intents: ['customer statistics']),
            'wc_reviews' => new ToolRoutingMetadata(intents: ['customer feedback']),
            'wp_menus' => new ToolRoutingMetadata(intents: ['navigation notes']),
        ];
        $msg = 'list customer customer customer customer';
        $r = new ToolRouter(3);
        self::assertSame(['wc_get_customer', 'wc_reviews', 'wp_query'], self::names($r->filter($s, $msg, '', $meta)));
        self::assertSame(['wp_query', 'wc_get_customer', 'wc_reviews'], $r->lastRankedNames());
        $r = new ToolRouter(2);
        self::assertSame(['wc_get_customer', 'wp_query'], self::names($r->filter($s, $msg, '', $meta)));
        self::assertSame(0.6931, $r->confidence($s, $msg, $meta));
        // Without the damping "customer" would weigh 0.693147 and wc_get_customer score 11.78;
        // with the damping it stays below wp_query by a wide margin.
        $route = (new ToolRouter(3))->route($s, $msg, '', $meta);
        self::assertSame(['wp_query', 'wc_get_customer', 'wc_reviews'], $route['ranked']);
    }

    private static function listHeavy(): array
    {
        $s = [];
        $meta = [];
        foreach (['a_list', 'b_list', 'c_list', 'd_list', 'e_list', 'f_list', 'g_list', 'h_list'] as $n) {
            $s[] = self::schema($n);
            $meta[$n] = new ToolRoutingMetadata(intents: ['list items']);
        }
        foreach (['x_posts', 'y_posts'] as $n) {
            $s[] = self::schema($n);
            $meta[$n] = new ToolRoutingMetadata(intents: ['show posts']);
        }

        return [$s, $meta];
    }

    public function testAWordMostToolsCarryWeighsLessThanARareOne(): void
    {
        [$s, $meta] = self::listHeavy();
        $r = new ToolRouter(2);
        self::assertSame(['x_posts', 'y_posts'], self::names($r->filter($s, 'list posts', 'qwen2.5:7b', $meta)));
        $common = $r->confidence($s, 'list', $meta);
        $rare = $r->confidence($s, 'posts', $meta);
        self::assertGreaterThan(0.0, $common);
        self::assertLessThan($rare, $common);
        // 17 * ln(10/8) / 32 = 0.118546
        self::assertSame(0.1185, $common);
    }

    /**
     * The whole-turn benchmark's "shell" turn in small: adapter tools whose descriptions all say
     * "search", five list tools and two order tools, load_skill, and a message asking to list
     * orders and search them. load_skill is pinned and takes a slot; N = 7 ranked tools:
     *   list   carried by 5 (the *_list tools):    ln(7/5) = 0.336472
     *   order  carried by 2 (order_list, order_search): ln(7/2) = 1.252763
     *   search carried by all 7 (descriptions):     ln(7/7) = 0
     *   order_list   = (16 intent + 1 name) * (0.336472 + 1.252763) = 27.0170
     *   order_search = (16 + 1) * 1.252763                          = 21.2970 (search adds 0)
     *   coupon_list, media_list, page_list, post_list = 17 * 0.336472 = 5.7200 each
     *   code_search  = 0 (its only word is the one every tool carries)
     * phpClaw's PHP router (word counts, no load_skill pin) offers code_search, order_list and
     * order_search with a budget of 3 (35, 35, then five tools at 18, code_search first by name),
     * and with 6 code_search, coupon_list, media_list, order_list, order_search, page_list.
     * Confidence counts load_skill too (N = 8): (16 + 1) * (ln(8/5) + ln(8/2)) + ln(8/7) for
     * order_list = 31.6906, / 32 = 0.9903.
     */
    public function testTheBenchmarkShellTurnInSmall(): void
    {
        $s = [];
        $meta = [];
        foreach (['order_list' => 'list orders', 'order_search' => 'search orders', 'coupon_list' => 'list coupons', 'page_list' => 'list pages',
            'post_list' => 'list posts', 'media_list' => 'list media', 'code_search' => 'search code'] as $name => $intent) {
            $s[] = self::schema($name, 'Accepts a search term.');
            $meta[$name] = new ToolRoutingMetadata(intents: [$intent]);
        }
        $s[] = self::schema('load_skill', 'Load a skill.');
        $msg = 'List the orders, then search them.';

        $r = new ToolRouter(3);
        self::assertSame(['load_skill', 'order_list', 'order_search'], self::names($r->filter($s, $msg, '', $meta)));
        self::assertSame(['load_skill', 'order_list', 'order_search'], $r->lastRankedNames());
        $r = new ToolRouter(6);
        self::assertSame(['coupon_list', 'load_skill', 'media_list', 'order_list', 'order_search', 'page_list'], self::names($r->filter($s, $msg, '', $meta)));
        self::assertSame(['load_skill', 'order_list', 'order_search', 'coupon_list', 'media_list', 'page_list'], $r->lastRankedNames());
        self::assertSame(0.9903, $r->confidence($s, $msg, $meta));
    }

    /**
     * 20 tools; apple, berry and delta are carried by 3 (p = ln(20/3)), cedar by 9 (q = ln(20/9)).
     * alpha_tool (apple berry cedar) and beta_tool (apple cedar delta) both score 16 * (2p + q):
     * a tie, broken on the name, even though the sums (p + p) + q and (p + q) + p differ in
     * their last bit.
     */
    public function testEqualScoresSummedInAnotherOrderTieOnTheName(): void
    {
        $intents = ['alpha_tool' => 'apple berry cedar', 'beta_tool' => 'apple cedar delta', 'f01_tool' => 'apple', 'f02_tool' => 'berry',
            'f03_tool' => 'berry', 'f04_tool' => 'delta', 'f05_tool' => 'delta'];
        for ($i = 6; $i <= 18; $i++) {
            $intents[sprintf('f%02d_tool', $i)] = $i <= 12 ? 'cedar' : 'nothing';
        }
        $s = [];
        $meta = [];
        foreach (array_reverse($intents, true) as $name => $intent) {
            $s[] = self::schema($name, '');
            $meta[$name] = new ToolRoutingMetadata(intents: [$intent]);
        }
        $r = new ToolRouter(2);
        self::assertSame(['alpha_tool', 'beta_tool'], self::names($r->filter($s, 'apple berry cedar delta', '', $meta)));
        self::assertSame(['alpha_tool', 'beta_tool'], $r->lastRankedNames());
        self::assertSame(['alpha_tool'], self::names((new ToolRouter(1))->filter($s, 'apple berry cedar delta', '', $meta)));
    }

    /**
     * A word counts as carried by every tool a signal of which scores it: alpha_tool's description
     * starts with an apostrophe and still scores on "invoice", so invoice is carried by 2 of 3
     * tools (ln(3/2) = 0.4055) and report by 1 (ln 3 = 1.0986): gamma_tool comes first.
     */
    public function testAWordAtTheStartOfADescriptionCountsAsCarried(): void
    {
        $s = [self::schema('alpha_tool', "'Invoice lookup"), self::schema('beta_tool', 'invoice export'), self::schema('gamma_tool', 'report builder')];
        $r = new ToolRouter(2);
        $r->filter($s, 'invoice report');
        self::assertSame(['gamma_tool', 'alpha_tool'], $r->lastRankedNames());
    }

    public function testUnderThreeToolsEveryWordWeighsOne(): void
    {
        $s = [self::schema('alpha'), self::schema('beta')];
        $meta = ['alpha' => new ToolRoutingMetadata(intents: ['list items']), 'beta' => new ToolRoutingMetadata(intents: ['list items'])];
        self::assertSame(0.5, (new ToolRouter(5))->confidence($s, 'list', $meta));
        self::assertSame(0.5, (new ToolRouter(5))->confidence($s, 'list list list', $meta));
    }

    public function testConfidenceBounds(): void
    {
        $r = new ToolRouter();
        self::assertSame(0.0, $r->confidence([], 'anything'));
        self::assertSame(0.0, $r->confidence([self::schema('alpha_tool', 'unrelated helper')], 'something entirely different'));
        $meta = ['invoice_lookup' => new ToolRoutingMetadata(['invoice'], [], ['invoice lookup'])];
        self::assertSame(1.0, $r->confidence([self::schema('invoice_lookup', 'look up an invoice')], 'invoice lookup please', $meta));
    }

    public function testLastRankedNamesKeepRankOrderWhileTheResultIsAlphabetical(): void
    {
        [$s, $meta] = self::listHeavy();
        $r = new ToolRouter(2);
        self::assertSame([], $r->lastRankedNames());
        self::assertSame(['x_posts', 'y_posts'], self::names($r->filter($s, 'show posts please', 'qwen2.5:7b', $meta)));
        self::assertSame('x_posts', $r->lastRankedNames()[0]);
        self::assertCount(2, $r->lastRankedNames());
        // A call that does not engage leaves no stale ranking behind.
        $r->filter(array_slice($s, 0, 2), 'x');
        self::assertSame([], $r->lastRankedNames());
    }

    public function testALongPasteDoesNotOutrankTheRequest(): void
    {
        $s = [self::schema('wp_query'), self::schema('wc_get_customer'), self::schema('wc_reviews'), self::schema('wp_menus')];
        $meta = [
            'wp_query' => new ToolRoutingMetadata(intents: ['list posts']),
            'wc_get_customer' => new ToolRoutingMetadata(intents: ['customer statistics']),
            'wc_reviews' => new ToolRoutingMetadata(intents: ['customer feedback']),
            'wp_menus' => new ToolRoutingMetadata(intents: ['navigation notes']),
        ];
        $paste = substr(str_repeat('Meeting notes: customer feedback and navigation plans for the quarter. ', 400), 0, 6000);
        $r = new ToolRouter(1);
        self::assertSame(['wp_query'], self::names($r->filter($s, 'List the latest posts. My notes: ' . $paste, 'qwen2.5:7b', $meta)));
        self::assertSame(['wp_query'], self::names($r->filter($s, $paste . ' Ignore the notes above. List the latest posts.', 'qwen2.5:7b', $meta)));
        $neutral = str_repeat('lorem ipsum dolor sit amet. ', 30);
        self::assertSame(['wp_query'], self::names($r->filter($s, $neutral . 'List the latest posts. ' . $neutral, 'qwen2.5:7b', $meta)));
    }

    public function testARelevantToolDeclaredLastIsFound(): void
    {
        $s = [];
        for ($i = 0; $i < 29; $i++) {
            $s[] = self::schema(sprintf('filler_%02d', $i), 'unrelated filler tool');
        }
        $s[] = self::schema('invoice_lookup', 'Look up a customer invoice by number.');
        self::assertContains('invoice_lookup', self::names((new ToolRouter(5))->filter($s, 'look up an invoice for a customer', 'gpt-3.5-turbo')));
    }

    // ---- the score floor (minimal profile) --------------------------------------------------

    private static function floorSet(): array
    {
        $s = [self::schema('invoice_lookup')];
        foreach (['beta_tool', 'gamma_tool', 'delta_tool', 'epsilon_tool', 'zeta_tool'] as $n) {
            $s[] = self::schema($n);
        }

        return [$s, ['invoice_lookup' => new ToolRoutingMetadata(intents: ['look up an invoice'])]];
    }

    public function testScoreFloorDropsToolsFarBelowTheBest(): void
    {
        [$s, $meta] = self::floorSet();
        self::assertSame(['invoice_lookup'], self::names((new ToolRouter(5, minScoreShare: 0.2))->filter($s, 'look up an invoice', 'qwen2.5:7b', $meta)));
        self::assertCount(5, (new ToolRouter(5))->filter($s, 'look up an invoice', 'qwen2.5:7b', $meta));
        // The minimal profile implies the 20% floor in route().
        self::assertSame(['invoice_lookup'], self::names((new ToolRouter(5))->route($s, 'look up an invoice', '', $meta, 'minimal', requestBudget: 0)['schemas']));
        self::assertCount(5, (new ToolRouter(5))->route($s, 'look up an invoice', '', $meta, 'standard')['schemas']);
    }

    public function testScoreFloorStillFillsTheCapWhenNothingMatches(): void
    {
        $s = [self::schema('alpha_tool'), self::schema('beta_tool'), self::schema('gamma_tool')];
        self::assertCount(2, (new ToolRouter(2, minScoreShare: 0.2))->filter($s, 'completely unrelated words', 'qwen2.5:7b'));
    }

    public function testScoreFloorKeepsAnExplicitlyNamedTool(): void
    {
        $s = [self::schema('invoice_lookup'), self::schema('order_export'), self::schema('gamma_tool')];
        $meta = ['invoice_lookup' => new ToolRoutingMetadata(intents: ['look up an invoice'])];
        $out = self::names((new ToolRouter(2, minScoreShare: 0.2))->filter($s, 'look up an invoice with order_export', 'qwen2.5:7b', $meta));
        self::assertSame(['invoice_lookup', 'order_export'], $out);
    }

    /**
     * Exactly 20% of the best stays, anything below goes. Four ranked tools, so weights apply:
     * "alpha" is carried by 3 of 4 (ln(4/3) = 0.287682), beta..epsilon by one (ln 4 = 1.386294).
     *   best = 16 * (0.287682 + 4 * 1.386294) = 93.3236, floor 18.6647
     *   edge = 16 * 0.287682 = 4.6029 (below), below = 1 * 0.287682 (below), other = 0 (below).
     */
    public function testScoreFloorAtItsLimit(): void
    {
        $s = [self::schema('best', ''), self::schema('edge', ''), self::schema('below', 'alpha'), self::schema('load_skill', ''), self::schema('other_skill', '')];
        $meta = [
            'best' => new ToolRoutingMetadata(intents: ['alpha beta gamma delta epsilon']),
            'edge' => new ToolRoutingMetadata(intents: ['alpha']),
        ];
        $msg = 'alpha beta gamma delta epsilon';
        self::assertSame(['best', 'load_skill'], self::names((new ToolRouter(4, 0.2))->filter($s, $msg, '', $meta)));
        self::assertCount(4, (new ToolRouter(4))->filter($s, $msg, '', $meta));
        // A share of exactly edge / best keeps edge; a hair more drops it.
        $share = (16 * log(4 / 3)) / (16 * (log(4 / 3) + 4 * log(4)));
        self::assertSame(['best', 'edge', 'load_skill'], self::names((new ToolRouter(4, $share))->filter($s, $msg, '', $meta)));
        self::assertSame(['best', 'load_skill'], self::names((new ToolRouter(4, $share * 1.0001))->filter($s, $msg, '', $meta)));
    }

    // ---- always-included tools and route() ------------------------------------------------

    public function testAlwaysIncludedToolsSitOutsideTheBudget(): void
    {
        $s = [];
        for ($i = 0; $i < 20; $i++) {
            $s[] = self::schema(sprintf('tool_%02d', $i), 'x');
        }
        $r = (new ToolRouter(6))->route($s, '', '', [], null, ['TOOL_03', 'tool_07', 'missing_tool']);
        self::assertTrue($r['routed']);
        self::assertCount(8, $r['schemas']);
        self::assertSame(['tool_03', 'tool_07'], $r['always']);
        self::assertContains('tool_03', self::names($r['schemas']));
        self::assertNotContains('tool_03', $r['ranked']);
        self::assertSame(6, $r['budget']);
        // Not counted for the early return: 8 tools, 2 always-included, budget 6.
        $r = (new ToolRouter(6))->route(array_slice($s, 0, 8), '', '', [], null, ['tool_03', 'tool_07']);
        self::assertFalse($r['routed']);
        self::assertCount(8, $r['schemas']);
        self::assertSame([], $r['ranked']);
        // A name the deny list removed stays removed.
        $r = (new ToolRouter(6))->route(array_slice($s, 0, 8), '', '', [], null, ['tool_99']);
        self::assertTrue($r['routed']);
        self::assertCount(6, $r['schemas']);
    }

    public function testRouteResultShape(): void
    {
        $r = (new ToolRouter(2))->route(self::store(), 'use ShellTool to list products', 'x');
        self::assertSame(['schemas', 'ranked', 'pinned', 'always', 'dropped', 'routed', 'budget', 'estimate'], array_keys($r));
        self::assertSame(['shell_exec'], $r['pinned']);
        self::assertSame('shell_exec', $r['ranked'][0]);
        self::assertSame(['product_tool', 'shell_exec'], self::names($r['schemas']));
        self::assertSame([], $r['dropped']);
        self::assertSame(0, $r['estimate']);
        $unlimited = (new ToolRouter(ToolRouter::UNLIMITED))->route(self::store(), 'x');
        self::assertNull($unlimited['budget']);
        self::assertFalse($unlimited['routed']);
        self::assertSame(self::store(), $unlimited['schemas']);
    }

    public function testRouteRejectsAnUnknownProfileAndBadHistory(): void
    {
        try {
            (new ToolRouter())->route([], 'm', '', [], 'tiny');
            self::fail('no ValueError');
        } catch (ValueError $e) {
            self::assertSame('PhpClaw\\Tools\\ToolRouter::route(): Argument #5 ($profile) must be "minimal", "standard", "full" or null', $e->getMessage());
        }
        $this->expectException(TypeError::class);
        $this->expectExceptionMessage('Argument #8 ($history) must contain only strings or non-negative int lengths, array given');
        (new ToolRouter())->route([], 'm', '', [], null, [], '', ['ok', 12, []]);
    }

    /** Schemas whose JSON (PHP's default json_encode) is exactly 398 bytes: 100 tokens each with the comma. */
    private static function sized(string $name): array
    {
        $s = ['name' => $name, 'description' => ''];
        $s['description'] = str_repeat('d', 398 - strlen(json_encode($s)));
        self::assertSame(398, strlen(json_encode($s)));

        return $s;
    }

    public function testStageThreeDropsTheLowestRankedFirst(): void
    {
        // Four tools, budget 2: the router engages. "invoice" ranks invoice_lookup first.
        $s = [self::sized('zeta_tool'), self::sized('invoice_lookup'), self::sized('alpha_tool'), self::sized('mid_tool')];
        $meta = ['invoice_lookup' => new ToolRoutingMetadata(intents: ['invoice'])];
        $r = (new ToolRouter(2))->route($s, 'invoice', '', $meta, null, [], '', [], 1);
        self::assertTrue($r['routed']);
        self::assertSame(['invoice_lookup', 'alpha_tool'], $r['ranked']);
        self::assertSame(['alpha_tool'], $r['dropped']);
        self::assertSame(['invoice_lookup'], self::names($r['schemas']));
    }

    public function testStageThreeBudgetAtTheLimitAndOnePast(): void
    {
        // Two 398-byte schemas: JSON list = 2 + 398 * 2 + 1 = 799 bytes -> 200 tokens.
        // System prompt 40 bytes -> 10 tokens; history "abcd" + 4 -> 8 bytes -> 2 tokens.
        $s = [self::sized('alpha_tool'), self::sized('beta_tool')];
        $r = (new ToolRouter(5))->route($s, 'x', '', [], null, [], str_repeat('s', 40), ['abcd', 4], 212);
        self::assertSame([], $r['dropped']);
        self::assertSame(212, $r['estimate']);
        $r = (new ToolRouter(5))->route($s, 'x', '', [], null, [], str_repeat('s', 40), ['abcd', 4], 211);
        self::assertSame(['beta_tool'], $r['dropped']);
        // One schema left: 2 + 398 = 400 bytes -> 100 tokens, + 12 = 112: fits.
        self::assertSame(112, $r['estimate']);
        self::assertSame(['alpha_tool'], self::names($r['schemas']));
    }

    public function testStageThreeWithoutRankingDropsFromTheEndEvenANamedTool(): void
    {
        // Within the per-turn budget: the router does not rank, so the fit drops the last
        // registered tools first, the named one included, then sorts what is left by name.
        $s = [self::sized('zulu_tool'), self::sized('alpha_tool'), self::sized('named_tool')];
        $r = (new ToolRouter(5))->route($s, 'please run named_tool', '', [], null, [], '', [], 150);
        self::assertFalse($r['routed']);
        self::assertSame(['named_tool', 'alpha_tool'], $r['dropped']);
        self::assertSame(['zulu_tool'], self::names($r['schemas']));
        // When the router ranks, the named tool is pinned first and survives.
        $r = (new ToolRouter(2))->route($s, 'please run named_tool', '', [], null, [], '', [], 101);
        self::assertTrue($r['routed']);
        self::assertSame(['named_tool'], self::names($r['schemas']));
    }

    public function testStageThreeNeverDropsAlwaysIncludedToolsAndKeepsOneRouted(): void
    {
        $s = [self::sized('alpha_tool'), self::sized('beta_tool'), self::sized('gamma_tool'), self::sized('file_read')];
        $r = (new ToolRouter(2))->route($s, 'x', '', [], null, ['file_read'], '', [], 1);
        self::assertSame(['file_read'], $r['always']);
        self::assertSame(['alpha_tool', 'file_read'], self::names($r['schemas']));
        self::assertCount(1, $r['dropped']);
        self::assertGreaterThan(1, $r['estimate']);
    }

    public function testTheProfileSetsTheRequestBudget(): void
    {
        // n schemas of 398 bytes: 2 + 398n + (n - 1) bytes. 30 -> 11971 bytes -> 2993 tokens (fits
        // minimal's 3000); 31 -> 12370 bytes -> 3093 tokens (does not). 40 -> 3990 (fits 6000).
        $s = [];
        for ($i = 0; $i < 40; $i++) {
            $s[] = self::sized(sprintf('tool_%02d', $i));
        }
        $full = (new ToolRouter(ToolRouter::UNLIMITED))->route($s, 'x', '', [], 'full');
        self::assertCount(40, $full['schemas']);
        $minimal = (new ToolRouter(ToolRouter::UNLIMITED))->route($s, 'x', '', [], 'minimal');
        self::assertLessThanOrEqual(3000, $minimal['estimate']);
        self::assertCount(30, $minimal['schemas']);
        self::assertSame(2993, $minimal['estimate']);
        self::assertCount(10, $minimal['dropped']);
        $standard = (new ToolRouter(ToolRouter::UNLIMITED))->route($s, 'x', '', [], 'standard');
        self::assertCount(40, $standard['schemas']);
        // An explicit budget wins over the profile's.
        self::assertCount(40, (new ToolRouter(ToolRouter::UNLIMITED))->route($s, 'x', '', [], 'minimal', requestBudget: 0)['schemas']);
    }

    public function testSchemaSizeCountsObjectsAndEscapesLikeJsonEncode(): void
    {
        // "{}" for empty properties (an object) and "\/" for slashes, as json_encode writes them.
        $a = ['name' => 'alpha_tool', 'description' => 'a/b é', 'input_schema' => ['type' => 'object', 'properties' => new \stdClass()]];
        $b = self::sized('beta_tool');
        $len = strlen(json_encode([$a, $b]));
        $tokens = intdiv($len + 3, 4);
        $r = (new ToolRouter(5))->route([$a, $b], 'x', '', [], null, [], '', [], $tokens);
        self::assertSame([], $r['dropped']);
        self::assertSame($tokens, $r['estimate']);
        $r = (new ToolRouter(5))->route([$a, $b], 'x', '', [], null, [], '', [], $tokens - 1);
        self::assertSame(['beta_tool'], $r['dropped']);
    }

    public function testAnExceptionWhileMeasuringASchemaReachesTheCaller(): void
    {
        $bad = new class () implements \JsonSerializable {
            public function jsonSerialize(): mixed
            {
                throw new \RuntimeException('not serialisable');
            }
        };
        $s = [self::schema('alpha_tool') + ['input_schema' => $bad], self::schema('beta_tool')];
        // Without a request budget nothing is measured.
        self::assertCount(2, (new ToolRouter(5))->route($s, 'x')['schemas']);
        $this->expectException(\RuntimeException::class);
        $this->expectExceptionMessage('not serialisable');
        (new ToolRouter(5))->route($s, 'x', '', [], null, [], '', [], 10);
    }

    public function testChangedMetadataIsNeverServedFromTheCache(): void
    {
        $s = [self::schema('alpha_tool'), self::schema('beta_tool'), self::schema('gamma_tool')];
        $r = new ToolRouter(1);
        self::assertSame(['alpha_tool'], self::names($r->filter($s, 'invoice', '', ['alpha_tool' => new ToolRoutingMetadata(intents: ['invoice'])])));
        self::assertSame(['beta_tool'], self::names($r->filter($s, 'invoice', '', ['beta_tool' => new ToolRoutingMetadata(intents: ['invoice'])])));
        // One item moved between lists, one description changed by a letter.
        self::assertSame(['gamma_tool'], self::names($r->filter($s, 'invoice', '', [
            'alpha_tool' => new ToolRoutingMetadata(examples: ['invoice']),
            'gamma_tool' => new ToolRoutingMetadata(tags: ['invoice']),
        ])));
        $s[2]['description'] = 'invoices';
        self::assertSame(['gamma_tool'], self::names($r->filter($s, 'invoice')));
        $s[2]['description'] = 'invoicez';
        self::assertSame(['alpha_tool'], self::names($r->filter($s, 'invoice')));
    }

    public function testOddNamesAndMetadataValues(): void
    {
        // Integer names, bytes that are not UTF-8, scalar list items: read as PHP casts them.
        $s = [['name' => 5, 'description' => 'numbers'], self::schema("\xff_tool", 'bytes'), self::schema('Mixed_Case', 'case')];
        $meta = ['5' => new ToolRoutingMetadata(tags: [42, 'invoice', true]), 'mixed_case' => new ToolRoutingMetadata(intents: ['ledger'])];
        $r = new ToolRouter(1);
        self::assertSame([5], array_column($r->filter($s, 'invoice', '', $meta), 'name'));
        self::assertSame(['5'], $r->lastRankedNames());
        self::assertSame(['Mixed_Case'], self::names($r->filter($s, 'ledger', '', $meta)));
        self::assertSame(["\xff_tool"], self::names($r->filter($s, 'bytes', '', $meta)));
        self::assertSame(["\xff_tool"], self::names($r->filter($s, 'bytes', '', $meta)));
        self::assertSame(['Mixed_Case'], self::names($r->filter($s, 'use mixed_case', '', $meta)));
    }

    public function testRepeatedCallsAreStable(): void
    {
        [$s, $meta] = self::listHeavy();
        $r = new ToolRouter(2);
        $first = $r->filter($s, 'list posts', '', $meta);
        for ($i = 0; $i < 50; $i++) {
            self::assertSame($first, $r->filter($s, 'list posts', '', $meta));
        }
    }
}
