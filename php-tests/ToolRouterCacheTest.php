<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\ToolRouter;
use PhpClaw\Tools\ToolRoutingMetadata;
use PHPUnit\Framework\TestCase;
use ReflectionClass;

/**
 * PhpClaw\Tools\ToolRouter's memory of the last arrays it prepared: a router called again
 * with the same arrays skips reading the tool text, so every way PHP can change what those
 * arrays hold between two calls must still be seen. Each call is checked against a router
 * that has never seen the arrays.
 */
final class ToolRouterCacheTest extends TestCase
{
    /** Eight tools; none mentions invoices until a test says so. */
    private static function tools(): array
    {
        $out = [];
        foreach (['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'] as $n) {
            $out[] = ['name' => "{$n}_tool", 'description' => "handles {$n} things", 'input_schema' => ['type' => 'object']];
        }

        return $out;
    }

    private static function names(array $schemas): array
    {
        return array_map(static fn (array $s): string => (string) ($s['name'] ?? $s['function']['name']), $schemas);
    }

    /** filter() on $r, asserted equal to a fresh router's answer; returns the chosen names. */
    private static function pick(ToolRouter $r, array $schemas, string $message, array $metadata = []): array
    {
        $got = $r->filter($schemas, $message, '', $metadata);
        $fresh = (new ToolRouter(2))->filter($schemas, $message, '', $metadata);
        self::assertSame(self::names($fresh), self::names($got));
        self::assertSame($fresh, $got);
        self::assertSame($r->confidence($schemas, $message, $metadata), (new ToolRouter(2))->confidence($schemas, $message, $metadata));

        return self::names($got);
    }

    public function testSameArraysGiveTheSameAnswer(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $first = self::pick($r, $s, 'invoice please');
        for ($i = 0; $i < 5; $i++) {
            self::assertSame($first, self::pick($r, $s, 'invoice please'));
        }
        self::assertContains('echo_tool', self::pick($r, $s, 'use EchoTool'));
    }

    public function testADescriptionChangedInPlaceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        self::assertNotContains('golf_tool', self::pick($r, $s, 'find the invoice'));
        $s[6]['description'] = 'finds an invoice';
        self::assertContains('golf_tool', self::pick($r, $s, 'find the invoice'));
        $s[6]['description'] = 'handles golf things';
        self::assertNotContains('golf_tool', self::pick($r, $s, 'find the invoice'));
    }

    public function testRepeatedSameSizeEditsAreAllSeen(): void
    {
        // Each edit copies the array the router holds; old copies are freed and their memory
        // reused, so addresses repeat: the answer must follow the content every time.
        $r = new ToolRouter(2);
        $s = self::tools();
        $words = ['invoice', 'ledger', 'parcel', 'voucher'];
        for ($i = 0; $i < 40; $i++) {
            $at = $i % 8;
            $word = $words[$i % 4];
            $s[$at]['description'] = "handles {$word} things";
            self::assertContains($s[$at]['name'], self::pick($r, $s, $word), "round {$i}");
        }
    }

    public function testAddedRemovedAndRenamedToolsAreSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        self::pick($r, $s, 'invoice');
        $s[] = ['name' => 'invoice_tool', 'description' => 'invoice lookups'];
        self::assertContains('invoice_tool', self::pick($r, $s, 'invoice'));
        array_pop($s);
        self::assertNotContains('invoice_tool', self::pick($r, $s, 'invoice'));
        $s[2]['name'] = 'invoice_reader';
        self::assertContains('invoice_reader', self::pick($r, $s, 'invoice'));
        unset($s[2]);
        self::assertNotContains('invoice_reader', self::pick($r, $s, 'invoice'));
        $s[2] = ['function' => ['name' => 'invoice_fn', 'description' => 'invoice']];
        self::assertContains('invoice_fn', self::pick($r, $s, 'invoice'));
        $s[2]['function']['description'] = 'nothing';
        $s[2]['function']['name'] = 'zulu';
        self::assertNotContains('invoice_fn', self::pick($r, $s, 'invoice'));
    }

    public function testAFieldHeldByReferenceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $desc = 'handles nothing';
        $s[4]['description'] = &$desc;
        self::assertNotContains('echo_tool', self::pick($r, $s, 'invoice'));
        $desc = 'invoice desk';
        self::assertContains('echo_tool', self::pick($r, $s, 'invoice'));
        $name = 'plain';
        $s[5]['name'] = &$name;
        self::pick($r, $s, 'invoice_reader');
        $name = 'invoice_reader';
        self::assertContains('invoice_reader', self::pick($r, $s, 'invoice_reader'));
        unset($desc, $name);
    }

    public function testASchemaHeldByReferenceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $one = ['name' => 'kilo_tool', 'description' => 'nothing'];
        $s[] = &$one;
        self::assertNotContains('kilo_tool', self::pick($r, $s, 'invoice'));
        $one['description'] = 'invoice';
        self::assertContains('kilo_tool', self::pick($r, $s, 'invoice'));
        $fn = ['name' => 'lima_tool', 'description' => 'nothing'];
        $s[] = ['function' => &$fn];
        self::assertNotContains('lima_tool', self::pick($r, $s, 'parcel'));
        $fn['description'] = 'parcel';
        self::assertContains('lima_tool', self::pick($r, $s, 'parcel'));
        unset($one, $fn);
    }

    public function testTheWholeListHeldByReferenceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $ref = &$s;
        self::pick($r, $s, 'invoice');
        $ref[1]['description'] = 'invoice';
        self::assertContains('bravo_tool', self::pick($r, $s, 'invoice'));
    }

    public function testMetadataChangesAreSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $m = ['delta_tool' => new ToolRoutingMetadata(tags: ['ledger'])];
        self::assertContains('delta_tool', self::pick($r, $s, 'ledger', $m));
        $m['delta_tool'] = new ToolRoutingMetadata(tags: ['other']);
        self::assertNotContains('delta_tool', self::pick($r, $s, 'ledger', $m));
        $m['hotel_tool'] = new ToolRoutingMetadata(intents: ['balance the ledger']);
        self::assertContains('hotel_tool', self::pick($r, $s, 'ledger', $m));
        unset($m['hotel_tool']);
        self::assertNotContains('hotel_tool', self::pick($r, $s, 'ledger', $m));
        // The same metadata with other schemas, and other metadata with the same schemas.
        self::pick($r, $s, 'ledger', []);
        self::pick($r, $s, 'ledger');
        self::assertContains('delta_tool', self::pick($r, $s, 'ledger', ['delta_tool' => new ToolRoutingMetadata(domains: ['ledger'])]));
    }

    public function testAMetadataListItemHeldByReferenceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $tag = 'other';
        $tags = [&$tag];
        $m = ['charlie_tool' => new ToolRoutingMetadata(tags: $tags)];
        self::assertNotContains('charlie_tool', self::pick($r, $s, 'voucher', $m));
        $tag = 'voucher';
        self::assertContains('charlie_tool', self::pick($r, $s, 'voucher', $m));
        unset($tag, $tags);
    }

    public function testAMetadataObjectHeldByReferenceIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $meta = new ToolRoutingMetadata(tags: ['other']);
        $m = ['charlie_tool' => &$meta];
        self::assertNotContains('charlie_tool', self::pick($r, $s, 'voucher', $m));
        $meta = new ToolRoutingMetadata(tags: ['voucher']);
        self::assertContains('charlie_tool', self::pick($r, $s, 'voucher', $m));
        unset($meta);
    }

    public function testOtherObjectsAsMetadataAreReadAfresh(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $o = new \stdClass();
        $o->domains = [];
        $o->tags = ['other'];
        $o->intents = [];
        $o->examples = [];
        $m = ['foxtrot_tool' => $o];
        self::assertNotContains('foxtrot_tool', self::pick($r, $s, 'voucher', $m));
        $o->tags = ['voucher'];
        self::assertContains('foxtrot_tool', self::pick($r, $s, 'voucher', $m));
    }

    public function testMetadataConstructedBetweenCallsIsSeen(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        $meta = (new ReflectionClass(ToolRoutingMetadata::class))->newInstanceWithoutConstructor();
        $m = ['hotel_tool' => $meta];
        self::assertNotContains('hotel_tool', self::pick($r, $s, 'voucher', $m));
        $meta->__construct(tags: ['voucher']);
        self::assertContains('hotel_tool', self::pick($r, $s, 'voucher', $m));
    }

    public function testClonesAndSeveralRoutersKeepTheirOwnMemory(): void
    {
        $a = new ToolRouter(2);
        $s = self::tools();
        $t = self::tools();
        $t[7]['description'] = 'invoice';
        self::assertNotContains('hotel_tool', self::pick($a, $s, 'invoice'));
        $b = clone $a;
        $c = new ToolRouter(2);
        self::assertContains('hotel_tool', self::pick($b, $t, 'invoice'));
        self::assertContains('hotel_tool', self::pick($c, $t, 'invoice'));
        self::assertNotContains('hotel_tool', self::pick($a, $s, 'invoice'));
        self::assertNotContains('hotel_tool', self::pick($b, $s, 'invoice'));
        unset($a);
        self::assertContains('hotel_tool', self::pick($b, $t, 'invoice'));
        self::assertContains('hotel_tool', self::pick($c, $t, 'invoice'));
    }

    public function testRouteSeesChangesToo(): void
    {
        $r = new ToolRouter(2);
        $s = self::tools();
        self::assertNotContains('hotel_tool', $r->route($s, 'invoice')['ranked']);
        $s[7]['description'] = 'invoice';
        self::assertContains('hotel_tool', $r->route($s, 'invoice')['ranked']);
        self::assertSame((new ToolRouter(2))->route($s, 'invoice'), $r->route($s, 'invoice'));
    }

    public function testARouterReleasesTheArraysItHeld(): void
    {
        // The router's hold is dropped with the router (and replaced by the next arrays), so
        // an array's destructors run when the router goes.
        $s = self::tools();
        $probe = new class () {
            public static int $gone = 0;

            public function __destruct()
            {
                self::$gone++;
            }
        };
        $s[0]['extra'] = $probe;
        unset($probe);
        $r = new ToolRouter(2);
        $r->filter($s, 'invoice');
        $cls = get_class($s[0]['extra']);
        unset($s);
        self::assertSame(0, $cls::$gone);
        unset($r);
        self::assertSame(1, $cls::$gone);
        $s = self::tools();
        $s[0]['extra'] = new $cls();
        $r = new ToolRouter(2);
        $r->filter($s, 'invoice');
        $keep = self::tools();
        $s = $keep;
        $r->filter($s, 'invoice');
        self::assertSame(2, $cls::$gone);
    }
}
