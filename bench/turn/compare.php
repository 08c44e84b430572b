<?php

declare(strict_types=1);

/*
 * The whole-turn benchmark's check: the results given back to the model must be the same without
 * and with the extension. Before comparing, the lists the README documents as sorted by path on
 * the native side (code_search rows, project_info's file tree, zip entries) are sorted the same
 * way on both sides; nothing else is touched.
 */

require_once __DIR__ . '/../measure.php';

/** A tool result with the documented path ordering applied (results that are not JSON unchanged). */
function turn_bench_normalised(string $tool, string $result): string
{
    $doc = json_decode($result, true);
    if (!is_array($doc) || !is_array($doc['data'] ?? null)) {
        return $result;
    }
    if ($tool === 'code_search' && is_array($doc['data']['results'] ?? null)) {
        usort($doc['data']['results'], static fn ($a, $b): int => [(string) ($a['file'] ?? ''), (int) ($a['line'] ?? 0)] <=> [(string) ($b['file'] ?? ''), (int) ($b['line'] ?? 0)]);
    }
    if ($tool === 'project_info' && is_array($doc['data']['file_tree'] ?? null)) {
        $doc['data']['file_tree'] = sorted_tree($doc['data']['file_tree']);
    }
    if ($tool === 'zip_package' && is_array($doc['data']['entries'] ?? null)) {
        sort($doc['data']['entries'], SORT_STRING);
    }
    return (string) json_encode($doc, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
}

/** A digest of a run's results after the documented sorting, to compare every run cheaply. */
function turn_bench_results_md5(array $tools, array $results): string
{
    return md5((string) json_encode(array_map('turn_bench_normalised', $tools, $results)));
}

/** Both results around the first byte where they differ, for a difference report. */
function turn_bench_excerpts(string $a, string $b): array
{
    $at = 0;
    $n = min(strlen($a), strlen($b));
    while ($at < $n && $a[$at] === $b[$at]) {
        $at++;
    }
    $from = max(0, $at - 120);
    $cut = static fn (string $s): string => ($from > 0 ? '…' : '') . substr($s, $from, 360) . (strlen($s) > $from + 360 ? '…' : '') . ' (' . strlen($s) . ' bytes)';
    return [$at, $cut($a), $cut($b)];
}

/**
 * Compare every child's results, per turn and call: each side must agree with itself over its
 * children (the turns are deterministic) and the two sides with each other.
 *
 * @param array{php: list<array>, ext: list<array>} $reports
 * @return array{turns: list<string>, lines: list<string>, notes: list<string>}
 */
function turn_bench_differences(array $reports): array
{
    $out = ['turns' => [], 'lines' => [], 'notes' => []];
    foreach ($reports['php'][0]['turns'] as $turn => $t) {
        $base = $t['first'];
        $norm = static fn (array $first): array => array_map(
            static fn (string $tool, string $result): string => turn_bench_normalised($tool, $result),
            $first['tools'],
            $first['results'],
        );
        $expected = $norm($base);
        foreach (['php', 'ext'] as $mode) {
            foreach ($reports[$mode] as $k => $rep) {
                $first = $rep['turns'][$turn]['first'] ?? null;
                if ($first === null) {
                    $out['lines'][] = "turn $turn: the $mode child #$k did not run it";
                    $out['turns'][] = $turn;
                    continue;
                }
                $got = $norm($first);
                foreach ($base['labels'] as $i => $label) {
                    if (($got[$i] ?? null) !== ($expected[$i] ?? null)) {
                        $out['turns'][] = $turn;
                        [$at, $was, $is] = turn_bench_excerpts($expected[$i] ?? '(none)', $got[$i] ?? '(none)');
                        $out['lines'][] = "turn $turn, call $i ($label), $mode child #$k against PHP child #0, from byte $at:\n"
                            . "    PHP: $was\n    $mode: $is";
                    }
                }
                if (count($got) !== count($expected)) {
                    $out['turns'][] = $turn;
                    $out['lines'][] = "turn $turn: $mode child #$k gave " . count($got) . ' results, PHP child #0 ' . count($expected);
                }
                $digest = turn_bench_results_md5($base['tools'], $base['results']);
                foreach ($rep['turns'][$turn]['runs'] as $j => $run) {
                    if ($run['results_md5'] !== $digest) {
                        $out['turns'][] = $turn;
                        $out['lines'][] = "turn $turn: measured run $j of the $mode child #$k gave other results than PHP child #0's first run";
                    }
                }
                if ($first['text'] !== $base['text'] || $first['tools_called'] !== $base['tools_called']) {
                    $out['turns'][] = $turn;
                    $out['lines'][] = "turn $turn: $mode child #$k ended differently (final text or tools called)";
                }
                if ($first['offered'] !== $base['offered'] && $k === 0 && $mode === 'ext') {
                    $onlyPhp = array_unique(array_merge(...array_map(static fn (array $a, array $b): array => array_diff($a, $b), $base['offered'], $first['offered'])));
                    $onlyExt = array_unique(array_merge(...array_map(static fn (array $a, array $b): array => array_diff($b, $a), $base['offered'], $first['offered'])));
                    $out['notes'][] = "turn $turn: the router offered different tools: PHP only " . implode(',', $onlyPhp)
                        . '; native only ' . implode(',', $onlyExt);
                }
            }
        }
    }
    $out['turns'] = array_values(array_unique($out['turns']));
    return $out;
}
