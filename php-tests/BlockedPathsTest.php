<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Tools\Security\BlockedPaths;
use PHPUnit\Framework\TestCase;

/** The native BlockedPaths: a final holder of five public list constants, never instantiated. */
final class BlockedPathsTest extends TestCase
{
    public function testClassShape(): void
    {
        $class = new \ReflectionClass(BlockedPaths::class);
        self::assertTrue($class->isFinal());
        self::assertTrue($class->isInternal());
        self::assertFalse($class->isInstantiable());
        self::assertTrue($class->getConstructor()->isPrivate());
        self::assertSame(['EXTENSIONS', 'FILENAMES', 'EDIT_FILENAMES', 'SECURITY_DIRS', 'NOISE_DIRS'], array_keys($class->getConstants()));
        foreach ($class->getReflectionConstants() as $constant) {
            self::assertTrue($constant->isPublic(), $constant->getName());
        }
    }

    public function testConstructorIsPrivate(): void
    {
        $this->expectException(\Error::class);
        $this->expectExceptionMessage('Call to private PhpClaw\\Tools\\Security\\BlockedPaths::__construct()');
        new BlockedPaths();
    }

    public function testLists(): void
    {
        self::assertSame(['env', 'key', 'pem', 'crt', 'p12', 'pfx', 'cer', 'der', 'jks', 'keystore', 'truststore', 'sqlite', 'sqlite3', 'db', 'mdb', 'kdbx', 'kwallet'], BlockedPaths::EXTENSIONS);
        self::assertSame([
            'wp-config.php', 'wp-config-sample.php', 'config.php', 'configuration.php', 'database.php',
            'settings.php', 'local_settings.php', 'settings.local.php', 'local.php', 'app.php',
            'env.php', 'config.local.php', 'config.prod.php', 'settings.inc.php',
            'parameters.php', 'parameters.yml', 'parameters.yaml', '.htpasswd', '.htaccess', '.htdigest',
            'nginx.conf', 'httpd.conf', 'php.ini', '.npmrc', '.pypirc', '.netrc', '.envrc', '.my.cnf', '.pgpass',
            'credentials.json', 'service-account.json', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa',
            'known_hosts', 'authorized_keys', 'docker-compose.yml', 'docker-compose.yaml', '.dockerenv',
        ], BlockedPaths::FILENAMES);
        self::assertSame(['composer.json', 'composer.lock', 'package.json', 'package-lock.json', '.gitignore', 'phpunit.xml', 'phpunit.xml.dist', 'dockerfile', '.gitlab-ci.yml', 'artisan'], BlockedPaths::EDIT_FILENAMES);
        self::assertSame(['.git', '.ssh', '.gnupg', '.aws', '.azure', '.gcloud', '.kube', '.docker', '.config', 'wp-admin', 'wp-includes'], BlockedPaths::SECURITY_DIRS);
        self::assertSame(['vendor', 'node_modules'], BlockedPaths::NOISE_DIRS);
    }

    public function testConstantsAreUsableAsValuesAndStayUnchanged(): void
    {
        $copy = BlockedPaths::NOISE_DIRS;
        $copy[] = 'build';
        self::assertSame(['vendor', 'node_modules', 'build'], $copy);
        self::assertSame(['vendor', 'node_modules'], BlockedPaths::NOISE_DIRS);
        self::assertTrue(in_array('.ssh', BlockedPaths::SECURITY_DIRS, true));
        self::assertSame(BlockedPaths::NOISE_DIRS, (new \ReflectionClassConstant(BlockedPaths::class, 'NOISE_DIRS'))->getValue());
        self::assertSame('["vendor","node_modules"]', json_encode(BlockedPaths::NOISE_DIRS));
    }

    public function testAPhpClassCanReuseTheConstants(): void
    {
        $class = new class () {
            public const BLOCKED = BlockedPaths::EXTENSIONS;
        };
        self::assertSame(BlockedPaths::EXTENSIONS, $class::BLOCKED);
    }
}
