<?php

declare(strict_types=1);

namespace PhpClawTests\Support;

/** How much a call leaves behind on the Zend heap, for leak tests. */
final class Heap
{
    /** Bytes the heap grew by over `$times` calls of `$run`, after `$warm` calls to fill caches. */
    public static function growth(callable $run, int $times, int $warm = 20): int
    {
        for ($i = 0; $i < $warm; $i++) {
            $run();
        }
        gc_collect_cycles();
        $before = memory_get_usage();
        for ($i = 0; $i < $times; $i++) {
            $run();
        }
        gc_collect_cycles();
        return memory_get_usage() - $before;
    }
}
