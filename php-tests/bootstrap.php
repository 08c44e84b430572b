<?php

declare(strict_types=1);

// The suite tests the native module: refuse to run without it rather than test nothing.
if (!extension_loaded('phpclaw')) {
    fwrite(STDERR, "phpclaw is not loaded: run php-tests/run.sh [path-to-.so]\n");
    exit(1);
}

$module = getenv('PHPCLAW_MODULE');
if ($module === false || $module === '' || !is_file($module)) {
    fwrite(STDERR, "PHPCLAW_MODULE must name the module under test (run.sh sets it)\n");
    exit(1);
}
define('PHPCLAW_MODULE', $module);
define('PHPCLAW_STUB', dirname(__DIR__) . '/stubs/phpclaw.stub.php');

require __DIR__ . '/support/describe.php';
require __DIR__ . '/support/Subprocess.php';
require __DIR__ . '/support/Heap.php';
require __DIR__ . '/support/Files.php';
require __DIR__ . '/support/ReadonlyProbe.php';
require __DIR__ . '/fixtures/Tools.php';
require __DIR__ . '/fixtures/weak.php';
