<?php

declare(strict_types=1);

namespace PhpClawTests\Support;

/**
 * PHP's own wording of the errors a readonly property raises. The wording changes across PHP
 * versions (8.4 says "Cannot indirectly modify" where 8.2 says "Cannot modify" for an append or
 * a reference), so a test that checks a native class's readonly property asks PHP what it says
 * for a userland one, from the same scope, instead of hard-coding one version's text.
 */
final class ReadonlyProbe
{
    /** @param array<mixed> $value */
    public function __construct(public readonly array $value)
    {
    }

    /**
     * The message of the Error that $operation raises on an initialised probe's readonly
     * `value`, naming $class::$property instead. Define $operation in the test, so that it runs
     * in the test's scope like the operation it stands for.
     *
     * @param \Closure(self): void $operation
     */
    public static function message(\Closure $operation, string $class, string $property): string
    {
        try {
            $operation(new self(['a']));
        } catch (\Error $e) {
            $probe = self::class . '::$value';
            if (!str_contains($e->getMessage(), $probe)) {
                throw new \LogicException("PHP's message does not name the probe: " . $e->getMessage(), 0, $e);
            }

            return str_replace($probe, $class . '::$' . $property, $e->getMessage());
        }
        throw new \LogicException('the operation did not touch the readonly property');
    }
}
