<?php

declare(strict_types=1);

/*
 * Describes classes through Reflection as plain arrays, so the extension's registrations and the
 * stub file (loaded in a separate process without the extension) can be compared.
 *
 * CLI: php -n describe.php <stub-file>   prints the JSON description of every symbol the file
 * declares, plus a "docless" list of symbols without a doc comment.
 */

function phpclaw_describe_type(?ReflectionType $type): ?string
{
    return $type === null ? null : (string) $type;
}

function phpclaw_describe_value(mixed $value): string
{
    return var_export($value, true);
}

/** @return list<array<string, mixed>> */
function phpclaw_describe_parameters(ReflectionFunctionAbstract $f): array
{
    $params = [];
    foreach ($f->getParameters() as $p) {
        $params[] = [
            'name' => $p->getName(),
            'position' => $p->getPosition(),
            'type' => phpclaw_describe_type($p->getType()),
            'optional' => $p->isOptional(),
            'hasDefault' => $p->isDefaultValueAvailable(),
            'default' => $p->isDefaultValueAvailable() ? phpclaw_describe_value($p->getDefaultValue()) : null,
            'variadic' => $p->isVariadic(),
            'byRef' => $p->isPassedByReference(),
            'promoted' => $p->isPromoted(),
        ];
    }

    return $params;
}

/** @return array<string, mixed> */
function phpclaw_describe_function(string $name, array &$docless): array
{
    $f = new ReflectionFunction($name);
    if ($f->getDocComment() === false) {
        $docless[] = $f->getName() . '()';
    }

    return [
        'returnsReference' => $f->returnsReference(),
        'returnType' => phpclaw_describe_type($f->getReturnType()),
        'tentativeReturnType' => phpclaw_describe_type($f->getTentativeReturnType()),
        'deprecated' => $f->isDeprecated(),
        'variadic' => $f->isVariadic(),
        'requiredParameters' => $f->getNumberOfRequiredParameters(),
        'parameters' => phpclaw_describe_parameters($f),
    ];
}

/** @return array<string, mixed> */
function phpclaw_describe_class(string $name, array &$docless): array
{
    $c = new ReflectionClass($name);
    $kind = $c->isInterface() ? 'interface' : ($c->isTrait() ? 'trait' : ($c->isEnum() ? 'enum' : 'class'));
    if ($c->getDocComment() === false) {
        $docless[] = $name;
    }

    $constants = [];
    foreach ($c->getReflectionConstants() as $k) {
        if ($k->getDeclaringClass()->getName() !== $name) {
            continue;
        }
        if ($k->getDocComment() === false) {
            $docless[] = $name . '::' . $k->getName();
        }
        $constants[$k->getName()] = [
            'value' => phpclaw_describe_value($k->getValue()),
            'public' => $k->isPublic(),
            'protected' => $k->isProtected(),
            'private' => $k->isPrivate(),
            'final' => $k->isFinal(),
        ];
    }
    ksort($constants);

    $properties = [];
    foreach ($c->getProperties() as $p) {
        if ($p->getDeclaringClass()->getName() !== $name) {
            continue;
        }
        if ($p->getDocComment() === false) {
            $docless[] = $name . '::$' . $p->getName();
        }
        $properties[$p->getName()] = [
            'type' => phpclaw_describe_type($p->getType()),
            'public' => $p->isPublic(),
            'protected' => $p->isProtected(),
            'private' => $p->isPrivate(),
            'static' => $p->isStatic(),
            'readonly' => $p->isReadOnly(),
            'hasDefault' => $p->hasDefaultValue(),
            'default' => $p->hasDefaultValue() ? phpclaw_describe_value($p->getDefaultValue()) : null,
            'promoted' => $p->isPromoted(),
        ];
    }
    ksort($properties);

    $methods = [];
    foreach ($c->getMethods() as $m) {
        if ($m->getDeclaringClass()->getName() !== $name) {
            continue;
        }
        if ($m->getDocComment() === false) {
            $docless[] = $name . '::' . $m->getName() . '()';
        }
        $methods[$m->getName()] = [
            'public' => $m->isPublic(),
            'protected' => $m->isProtected(),
            'private' => $m->isPrivate(),
            'static' => $m->isStatic(),
            'abstract' => $m->isAbstract(),
            'final' => $m->isFinal(),
            'returnsReference' => $m->returnsReference(),
            'returnType' => phpclaw_describe_type($m->getReturnType()),
            'tentativeReturnType' => phpclaw_describe_type($m->getTentativeReturnType()),
            'requiredParameters' => $m->getNumberOfRequiredParameters(),
            'parameters' => phpclaw_describe_parameters($m),
        ];
    }
    ksort($methods);

    $interfaces = $c->getInterfaceNames();
    sort($interfaces);
    $traits = $c->getTraitNames();
    sort($traits);

    return [
        'kind' => $kind,
        'final' => $c->isFinal(),
        'abstract' => $kind === 'class' && $c->isAbstract(),
        'readonly' => method_exists($c, 'isReadOnly') ? $c->isReadOnly() : false,
        'parent' => $c->getParentClass() === false ? null : $c->getParentClass()->getName(),
        'interfaces' => $interfaces,
        'traits' => $traits,
        'instantiable' => $c->isInstantiable(),
        'cloneable' => $c->isCloneable(),
        'constants' => $constants,
        'properties' => $properties,
        'methods' => $methods,
    ];
}

/**
 * @param list<string> $names classes, interfaces, traits and enums
 * @param list<string> $functions global or namespaced functions
 * @param array<string, mixed> $constants global or namespaced constants, name => value
 * @return array{classes: array<string, mixed>, functions: array<string, mixed>, constants: array<string, string>, docless: list<string>}
 */
function phpclaw_describe(array $names, array $functions = [], array $constants = []): array
{
    $classes = [];
    $docless = [];
    foreach ($names as $name) {
        $ref = new ReflectionClass($name);
        $classes[$ref->getName()] = phpclaw_describe_class($ref->getName(), $docless);
    }
    ksort($classes);
    $described = [];
    foreach ($functions as $name) {
        $described[(new ReflectionFunction($name))->getName()] = phpclaw_describe_function($name, $docless);
    }
    ksort($described);
    $values = [];
    foreach ($constants as $name => $value) {
        $values[$name] = phpclaw_describe_value($value);
    }
    ksort($values);

    return ['classes' => $classes, 'functions' => $described, 'constants' => $values, 'docless' => $docless];
}

/**
 * What the loaded phpclaw module registers, described like a stub file.
 *
 * @return array{classes: array<string, mixed>, functions: array<string, mixed>, constants: array<string, string>, docless: list<string>}
 */
function phpclaw_describe_module(): array
{
    $ext = new ReflectionExtension('phpclaw');

    return phpclaw_describe($ext->getClassNames(), array_keys($ext->getFunctions()), $ext->getConstants());
}

if (PHP_SAPI === 'cli' && isset($argv[0]) && realpath($argv[0]) === __FILE__) {
    if (extension_loaded('phpclaw')) {
        fwrite(STDERR, "describe.php must describe the stub without the extension loaded\n");
        exit(2);
    }
    $file = $argv[1] ?? '';
    $symbols = static fn (): array => [
        array_merge(get_declared_classes(), get_declared_interfaces(), get_declared_traits()),
        get_defined_functions()['user'],
        get_defined_constants(true)['user'] ?? [],
    ];
    [$classesBefore, $functionsBefore, $constantsBefore] = $symbols();
    require $file;
    [$classesAfter, $functionsAfter, $constantsAfter] = $symbols();
    $declared = array_values(array_diff($classesAfter, $classesBefore));
    $functions = array_values(array_diff($functionsAfter, $functionsBefore));
    $constants = array_diff_key($constantsAfter, $constantsBefore);
    echo json_encode(phpclaw_describe($declared, $functions, $constants), JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
}
