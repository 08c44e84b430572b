<?php

declare(strict_types=1);

namespace PhpClawTests\Support;

/** Temporary files and folders of the tests. */
final class Files
{
    /** Remove a file, link or whole folder (links are removed, never followed). */
    public static function remove(string $path): void
    {
        if (is_link($path) || is_file($path)) {
            @unlink($path);
            return;
        }
        if (!is_dir($path)) {
            return;
        }
        // A test may have made something immutable to force a failed write.
        @exec('chattr -R -i ' . escapeshellarg($path) . ' 2>/dev/null');
        self::removeTree($path);
    }

    private static function removeTree(string $path): void
    {
        if (is_link($path) || !is_dir($path)) {
            @unlink($path);
            return;
        }
        foreach (scandir($path) ?: [] as $entry) {
            if ($entry !== '.' && $entry !== '..') {
                self::removeTree($path . '/' . $entry);
            }
        }
        @rmdir($path);
    }
}
