<?php
// A generator of realistic composer.lock files for the benchmarks: $count packages, each with
// the metadata Composer itself writes (source, dist, require, require-dev, suggest, type,
// autoload with psr-4 and files, notification-url, license, authors, description, homepage,
// keywords, support, funding, time), pretty-printed the way Composer writes it (four-space
// indent, slashes and Unicode unescaped). Deterministic for a given count: 150 packages come
// to about 500 KB. Use: require it, then write_composer_lock($path, 150).

declare(strict_types=1);

/** The lock's text for $count packages. */
function composer_lock_text(int $count): string
{
    mt_srand(150 + $count);
    $words = ['http', 'client', 'cache', 'queue', 'console', 'event', 'dispatcher', 'routing', 'validation', 'translation',
        'filesystem', 'mail', 'log', 'auth', 'session', 'database', 'schema', 'collection', 'support', 'view', 'string',
        'uuid', 'carbon', 'promise', 'stream', 'message', 'factory', 'container', 'config', 'process', 'finder', 'yaml'];
    $vendors = ['symfony', 'laravel', 'guzzlehttp', 'league', 'monolog', 'nesbot', 'psr', 'ramsey', 'doctrine', 'nikic',
        'sebastian', 'phpunit', 'brick', 'dflydev', 'egulias', 'fruitcake', 'graham-campbell', 'nette', 'nunomaduro', 'vlucas'];
    $pick = static fn (array $from): string => $from[mt_rand(0, count($from) - 1)];
    $sentence = static function (int $n) use ($words, $pick): string {
        $out = [];
        for ($i = 0; $i < $n; $i++) {
            $out[] = $pick($words);
        }
        return ucfirst(implode(' ', $out)).'.';
    };
    $packages = [];
    for ($i = 0; $i < $count; $i++) {
        $vendor = $pick($vendors);
        $name = $vendor.'/'.$pick($words).'-'.$pick($words).$i;
        $version = sprintf('v%d.%d.%d', mt_rand(0, 11), mt_rand(0, 40), mt_rand(0, 30));
        $ref = substr(hash('sha1', $name), 0, 40);
        $ns = str_replace(['-', '/'], ['', '\\'], ucwords($name, '-/')).'\\';
        $require = ['php' => '>='.mt_rand(7, 8).'.'.mt_rand(0, 4)];
        for ($k = mt_rand(1, 5); $k > 0; $k--) {
            $require[$pick($vendors).'/'.$pick($words)] = '^'.mt_rand(1, 7).'.'.mt_rand(0, 9);
        }
        $requireDev = [];
        for ($k = mt_rand(0, 3); $k > 0; $k--) {
            $requireDev[$pick($vendors).'/'.$pick($words)] = '^'.mt_rand(1, 11).'.'.mt_rand(0, 9);
        }
        $authors = [];
        for ($k = mt_rand(1, 2); $k > 0; $k--) {
            $who = ucfirst($pick($words)).' '.ucfirst($pick($words)).'ová';
            $authors[] = ['name' => $who, 'email' => strtolower(str_replace(' ', '.', $who)).'@example.com',
                'homepage' => 'https://example.com/~'.$pick($words), 'role' => $pick(['Lead Developer', 'Developer', 'Maintainer'])];
        }
        $keywords = [];
        for ($k = mt_rand(2, 9); $k > 0; $k--) {
            $keywords[] = $pick($words);
        }
        $package = [
            'name' => $name,
            'version' => $version,
            'source' => ['type' => 'git', 'url' => "https://github.com/$name.git", 'reference' => $ref],
            'dist' => ['type' => 'zip', 'url' => "https://api.github.com/repos/$name/zipball/$ref", 'reference' => $ref, 'shasum' => ''],
            'require' => $require,
            'require-dev' => $requireDev ?: new stdClass(),
            'suggest' => [$pick($vendors).'/'.$pick($words) => $sentence(mt_rand(3, 8))],
            'type' => $pick(['library', 'library', 'metapackage', 'composer-plugin']),
            'extra' => ['branch-alias' => ['dev-main' => mt_rand(1, 9).'.x-dev']],
            'autoload' => ['psr-4' => [$ns => 'src/'], 'files' => ['src/helpers.php'], 'exclude-from-classmap' => ['/Tests/']],
            'notification-url' => 'https://packagist.org/downloads/',
            'license' => [$pick(['MIT', 'BSD-3-Clause', 'Apache-2.0'])],
            'authors' => $authors,
            'description' => $sentence(mt_rand(6, 16)),
            'homepage' => "https://github.com/$name",
            'keywords' => $keywords,
            'support' => ['issues' => "https://github.com/$name/issues", 'source' => "https://github.com/$name/tree/$version"],
            'funding' => [['url' => 'https://github.com/'.$vendor, 'type' => 'github'], ['url' => "https://tidelift.com/funding/github/packagist/$name", 'type' => 'tidelift']],
            'time' => sprintf('20%02d-%02d-%02dT%02d:%02d:%02d+00:00', mt_rand(18, 25), mt_rand(1, 12), mt_rand(1, 28), mt_rand(0, 23), mt_rand(0, 59), mt_rand(0, 59)),
        ];
        $packages[] = $package;
    }
    $lock = [
        '_readme' => ['This file locks the dependencies of your project to a known state', 'Read more about it at https://getcomposer.org/doc/01-basic-usage.md#installing-dependencies', 'This file is @generated automatically'],
        'content-hash' => md5((string) $count),
        'packages' => $packages,
        'packages-dev' => array_slice($packages, 0, intdiv($count, 10)),
        'aliases' => [],
        'minimum-stability' => 'stable',
        'stability-flags' => new stdClass(),
        'prefer-stable' => true,
        'prefer-lowest' => false,
        'platform' => ['php' => '^8.2'],
        'platform-dev' => new stdClass(),
        'plugin-api-version' => '2.6.0',
    ];
    return json_encode($lock, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE)."\n";
}

/** Write the lock for $count packages to $path; its size in bytes. */
function write_composer_lock(string $path, int $count): int
{
    $text = composer_lock_text($count);
    file_put_contents($path, $text);
    return strlen($text);
}
