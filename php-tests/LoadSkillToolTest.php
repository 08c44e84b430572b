<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
use PhpClaw\Tools\Contracts\ToolInterface;
use PhpClaw\Tools\LoadSkillTool;
use PHPUnit\Framework\TestCase;

/**
 * The native LoadSkillTool against a stand-in phpClaw SkillRegistry (declared here when the
 * real one is absent): lookup by exact name, UNKNOWN_SKILL with the registered names,
 * UNKNOWN_ARGUMENT, FORBIDDEN, and systemPromptSection().
 */
final class LoadSkillToolTest extends TestCase
{
    private static function registry(): void
    {
        if (class_exists('PhpClaw\\Skills\\SkillRegistry', false)) {
            return;
        }
        eval(<<<'PHP'
            namespace PhpClaw\Skills;
            final class TestSkill {
                public function __construct(private string $n, private string $d, private string $c) {}
                public function name(): string { return $this->n; }
                public function description(): string { return $this->d; }
                public function content(): string { return $this->c; }
            }
            final class SkillRegistry {
                public static array $skills = [];
                public static function all(): array { return self::$skills; }
                public static function count(): int { return count(self::$skills); }
                public static function names(): array { return array_map(static fn ($s) => $s->name(), self::$skills); }
            }
            PHP);
    }

    /** @param list<array{string,string,string}> $skills */
    private static function set(array $skills): void
    {
        self::registry();
        \PhpClaw\Skills\SkillRegistry::$skills = array_map(
            static fn (array $s) => new \PhpClaw\Skills\TestSkill(...$s),
            $skills
        );
    }

    public function testAWithoutRegistryIsEmpty(): void
    {
        if (class_exists('PhpClaw\\Skills\\SkillRegistry', false)) {
            self::markTestSkipped('a registry is already declared');
        }
        self::assertSame('', LoadSkillTool::systemPromptSection());
        self::assertSame(
            '{"success":false,"error":{"code":"UNKNOWN_SKILL","message":"No skill is named \"x\". Call load_skill with one of the available names.","available":[]},"data":null,"meta":{"mode":"error"},"warnings":[]}',
            (new LoadSkillTool())->execute(['name' => 'x'])
        );
    }

    public function testShape(): void
    {
        $t = new LoadSkillTool();
        self::assertInstanceOf(ToolInterface::class, $t);
        self::assertSame('load_skill', LoadSkillTool::NAME);
        self::assertSame('load_skill', $t->name());
        self::assertSame(['name'], $t->inputSchema()['required']);
        self::assertSame(['skills'], $t->routingMetadata()->domains);
    }

    public function testFoundByExactName(): void
    {
        self::set([['alpha', 'A things', "Step 1\nStep 2 é/"], ['beta', 'B', 'b']]);
        self::assertSame(
            '{"success":true,"data":{"name":"alpha","instructions":"Step 1\nStep 2 é/"},"meta":{"mode":"load_skill"},"warnings":[]}',
            (new LoadSkillTool())->execute(['name' => 'alpha'])
        );
        $r = json_decode((new LoadSkillTool())->execute(['name' => 'Alpha']), true);
        self::assertSame('UNKNOWN_SKILL', $r['error']['code']);
        self::assertSame(['alpha', 'beta'], $r['error']['available']);
    }

    public function testUnknownArgument(): void
    {
        self::set([]);
        $r = json_decode((new LoadSkillTool())->execute(['name' => 'a', 'extra' => 1]), true);
        self::assertSame('UNKNOWN_ARGUMENT', $r['error']['code']);
        self::assertSame('Unknown argument "extra".', $r['error']['message']);
        self::assertSame(['name'], $r['error']['accepted_arguments']);
    }

    public function testForbidden(): void
    {
        $t = new LoadSkillTool();
        $t->withAuthorizer(new class () implements ToolAuthorizerInterface {
            public function allows(): bool
            {
                return false;
            }

            public function runningInConsole(): bool
            {
                return false;
            }
        });
        $r = json_decode($t->execute(['name' => 'a']), true);
        self::assertSame('FORBIDDEN', $r['error']['code']);
        self::assertSame('No authenticated caller was identified, so this request may not read a skill.', $r['error']['message']);
    }

    public function testSystemPromptSection(): void
    {
        self::set([]);
        self::assertSame('', LoadSkillTool::systemPromptSection());
        self::set([['alpha', 'A things', 'x'], ['beta', 'B', 'y']]);
        $s = LoadSkillTool::systemPromptSection();
        self::assertStringStartsWith("\n\n## Skills System\n\nYou have access to a skills library", $s);
        self::assertStringContainsString("**Available Skills:**\n\n- **alpha**: A things\n  -> Call `load_skill` with name `alpha` for full instructions\n- **beta**: B\n  -> Call `load_skill` with name `beta` for full instructions\n\n**How to Use Skills (Progressive Disclosure):**", $s);
        self::assertStringEndsWith('When in doubt, check if a skill exists for the task!', $s);
    }
}
