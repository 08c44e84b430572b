<?php

declare(strict_types=1);

namespace PhpClawBench;

/**
 * A plain-PHP router with the behaviour the spec gives phpClaw's ToolRouter (pinning, six
 * weighted signals, rarity weights and repetition damping from three tools on, name ties,
 * score floor, per-model budget), written for the benchmark as the baseline the native
 * class is measured against. Everything is recomputed on every call, as a PHP router does.
 */
final class PlainRouter
{
    private const SIGNALS = ['intents' => 16, 'domains' => 8, 'tags' => 4, 'examples' => 2];

    private const BUDGETS = [
        ['haiku', 6], ['flash', 6], ['gpt-3.5', 5], ['mini', 8],
        ['gemini', 15], ['sonnet', 12], ['gpt-4o', 15], ['opus', 20],
    ];

    private const IGNORED = [
        'the', 'and', 'for', 'are', 'was', 'were', 'you', 'your', 'our', 'its', 'their', 'this',
        'that', 'these', 'those', 'from', 'with', 'into', 'about', 'than', 'then', 'there', 'here',
        'have', 'has', 'had', 'been', 'being', 'will', 'would', 'shall', 'should', 'can', 'could',
        'may', 'might', 'must', 'not', 'but', 'any', 'all', 'some', 'each', 'every', 'per', 'via',
        'too', 'very', 'just', 'also', 'only', 'more', 'most', 'less', 'least', 'such', 'same', 'own',
        'how', 'what', 'when', 'where', 'which', 'who', 'whom', 'why', 'does', 'did', 'done', 'let',
        'please', 'them', 'they', 'one', 'two', 'out', 'off', 'over', 'under', 'again',
    ];

    /** @var array<string, true> */
    private array $ignored;

    public function __construct(private readonly int $budget = 0, private readonly float $floorShare = 0.0)
    {
        $this->ignored = array_fill_keys(self::IGNORED, true);
    }

    /**
     * @param list<array<string, mixed>> $schemas
     * @param array<string, object> $metadata
     * @return list<array<string, mixed>>
     */
    public function filter(array $schemas, string $message, string $model = '', array $metadata = []): array
    {
        $limit = $this->limitFor($model);
        if ($limit < 0 || count($schemas) <= $limit) {
            return $schemas;
        }
        $mentions = $this->mentions($message);
        $pinned = [];
        $rest = [];
        foreach ($schemas as $schema) {
            $name = $this->nameOf($schema);
            if ($name === 'load_skill' || $this->mentioned($name, $mentions)) {
                $pinned[] = $schema;
            } else {
                $rest[] = $schema;
            }
        }
        $rows = $this->rank($rest, $message, $metadata);
        if ($this->floorShare > 0 && $rows !== [] && $rows[0][1] > 0) {
            $floor = $rows[0][1] * $this->floorShare;
            $rows = array_values(array_filter($rows, static fn (array $r): bool => $r[1] >= $floor));
        }
        $chosen = $pinned;
        foreach (array_slice($rows, 0, max(0, $limit - count($pinned))) as [$schema]) {
            $chosen[] = $schema;
        }
        usort($chosen, fn (array $a, array $b): int => strcmp($this->nameOf($a), $this->nameOf($b)));

        return $chosen;
    }

    private function limitFor(string $model): int
    {
        if ($this->budget === -1) {
            return -1;
        }
        if ($this->budget > 0) {
            return $this->budget;
        }
        $model = strtolower($model);
        foreach (self::BUDGETS as [$fragment, $n]) {
            $at = 0;
            while (($at = strpos($model, $fragment, $at)) !== false) {
                $before = $at === 0 ? '' : $model[$at - 1];
                $after = $model[$at + strlen($fragment)] ?? '';
                if (!ctype_alnum($before) && !ctype_alnum($after)) {
                    return $n;
                }
                $at++;
            }
        }

        return 10;
    }

    private function nameOf(array $schema): string
    {
        return strtolower((string) ($schema['name'] ?? $schema['function']['name'] ?? ''));
    }

    private function descriptionOf(array $schema): string
    {
        return (string) ($schema['description'] ?? $schema['function']['description'] ?? '');
    }

    /** @return list<string> */
    private function mentions(string $message): array
    {
        $found = [];
        if (preg_match_all('/\b(?:use|using|with|via)\s+([A-Za-z][A-Za-z0-9]*)Tool\b/i', $message, $m)) {
            foreach ($m[1] as $stem) {
                $found[] = strtolower(preg_replace('/(?<=.)([A-Z])/', '_$1', $stem));
            }
        }
        if (preg_match_all('/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/', strtolower($message), $m)) {
            array_push($found, ...$m[0]);
        }

        return array_values(array_unique($found));
    }

    /** @param list<string> $mentions */
    private function mentioned(string $name, array $mentions): bool
    {
        if ($name === '') {
            return false;
        }
        foreach ($mentions as $m) {
            if ($m === $name || (strlen($name) >= 3 && str_contains($m, $name)) || (strlen($m) >= 3 && str_contains($name, $m))) {
                return true;
            }
        }

        return false;
    }

    /** Every token of a text, repeats kept, in order. @return list<string> */
    private function tokens(string $text): array
    {
        $out = [];
        foreach (str_word_count(strtolower($text), 1, '_') as $word) {
            $parts = str_contains($word, '_') ? [$word, ...explode('_', $word)] : [$word];
            foreach ($parts as $p) {
                if (strlen($p) < 3 || isset($this->ignored[$p])) {
                    continue;
                }
                if (strlen($p) > 3 && str_ends_with($p, 's')) {
                    $p = str_ends_with($p, 'ies') ? substr($p, 0, -3) . 'y' : substr($p, 0, -1);
                }
                $out[] = $p;
            }
        }

        return $out;
    }

    /** @return array<string, true> */
    private function keySet(string $text): array
    {
        return array_fill_keys($this->tokens($text), true);
    }

    /**
     * @param list<array<string, mixed>> $schemas
     * @return list<array{array<string, mixed>, float, string}>
     */
    private function rank(array $schemas, string $message, array $metadata): array
    {
        $counts = array_count_values($this->tokens($message));
        $signalSets = [];
        $anywhere = [];
        foreach ($schemas as $i => $schema) {
            $name = $this->nameOf($schema);
            $meta = $metadata[$name] ?? null;
            $sets = ['name' => $this->keySet($name), 'description' => $this->keySet($this->descriptionOf($schema))];
            $all = [$name, $this->descriptionOf($schema)];
            foreach (self::SIGNALS as $field => $_) {
                $list = $meta === null ? [] : $meta->$field;
                $sets[$field] = $this->keySet(implode(' ', $list));
                array_push($all, ...$list);
            }
            $signalSets[$i] = $sets;
            $anywhere[$i] = $this->keySet(implode(' ', $all));
        }
        $n = count($schemas);
        $weights = [];
        foreach ($counts as $word => $repeats) {
            $word = (string) $word;
            if ($n < 3) {
                $weights[$word] = 1.0;
                continue;
            }
            $carriers = 0;
            foreach ($anywhere as $set) {
                $carriers += isset($set[$word]) ? 1 : 0;
            }
            $rarity = $carriers === 0 ? 1.0 : log($n / $carriers);
            $weights[$word] = $rarity / (1 + log($repeats));
        }
        $rows = [];
        foreach ($schemas as $i => $schema) {
            $score = 0.0;
            foreach (self::SIGNALS + ['name' => 1, 'description' => 1] as $field => $weight) {
                $sum = 0.0;
                foreach ($weights as $word => $w) {
                    if (isset($signalSets[$i][$field][$word])) {
                        $sum += $w;
                    }
                }
                $score += $weight * $sum;
            }
            $rows[] = [$schema, $score, $this->nameOf($schema)];
        }
        usort($rows, static fn (array $a, array $b): int => ($b[1] <=> $a[1]) ?: strcmp($a[2], $b[2]));

        return $rows;
    }
}
