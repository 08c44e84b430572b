<?php

declare(strict_types=1);

namespace PhpClawTests;

use PhpClaw\Exceptions\ToolException;
use PhpClaw\Tools\CodeSearchTool;
use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;
use PhpClaw\Tools\ProjectTool;
use PhpClaw\Tools\ZipPackagerTool;
use PhpClawTests\Support\Files;
use PHPUnit\Framework\TestCase;

/**
 * Links and hard links against code_search, file_read, file_edit, project_info and
 * zip_package, on real files: a cloned repository inside the workspace whose files link out of
 * it (relative, absolute, through chains, with `..`), to its secrets, and to folders; hard
 * links to the workspace's `.env` and to a file outside it. Nothing secret or outside is ever
 * read, listed or packed; hard-linked files are read, searched or packed only with
 * `allowHardLinks` (project_info's tree, names only, lists them).
 */
final class LinkSandboxTest extends TestCase
{
    private const MARKER = 'PHPCLAW_SECRET_7f3a';

    private string $base;
    private string $ws;
    private string $zipName;

    protected function setUp(): void
    {
        $this->base = sys_get_temp_dir() . '/phpclaw-links-' . bin2hex(random_bytes(5));
        $this->ws = $this->base . '/ws';
        $out = $this->base . '/outside';
        foreach (["{$this->ws}/repos/cloned", "{$this->ws}/.ssh", "{$this->ws}/.git", "$out/dir"] as $d) {
            mkdir($d, 0755, true);
        }
        $secret = self::MARKER . "\n";
        file_put_contents("{$this->ws}/.env", 'APP_KEY=' . $secret);
        foreach (['.ssh/id_rsa', '.git/config', 'credentials.json', 'wp-config.php', 'id_rsa'] as $f) {
            file_put_contents("{$this->ws}/$f", $secret);
        }
        file_put_contents("{$this->ws}/notes.txt", "hello needle\n");
        file_put_contents("$out/secret.txt", 'needle ' . $secret);
        file_put_contents("$out/dir/f.txt", 'needle ' . $secret);
        $repo = "{$this->ws}/repos/cloned";
        file_put_contents("$repo/README.md", "needle readme\n");
        symlink('../../.env', "$repo/CHANGELOG.txt");
        symlink('../../../outside/secret.txt', "$repo/OUT.txt");
        symlink('/etc/passwd', "$repo/LICENSE.txt");
        symlink('OUT.txt', "$repo/chain.txt");
        symlink("$out/dir", "$repo/outdir");
        symlink('../../.ssh', "$repo/keys");
        symlink('../../.ssh/id_rsa', "$repo/key.txt");
        symlink('../../notes.txt', "$repo/inside.txt");
        link("{$this->ws}/.env", "{$this->ws}/innocent.txt");
        link("$out/secret.txt", "$repo/hard-out.txt");
        $this->zipName = 'pclinks' . bin2hex(random_bytes(4));
        (new FileReadTool($this->ws))->reset();
    }

    protected function tearDown(): void
    {
        (new FileReadTool($this->ws))->reset();
        Files::remove($this->base);
        Files::remove($this->zipPath());
    }

    private function zipPath(): string
    {
        return sys_get_temp_dir() . '/' . $this->zipName . '.zip';
    }

    /** @return list<string> */
    private function searchFiles(CodeSearchTool $tool, string $pattern): array
    {
        $r = json_decode($tool->execute(['pattern' => $pattern]), true);
        self::assertTrue($r['success']);
        return array_map(fn (array $row): string => $row['file'], $r['data']['results']);
    }

    private static function refusal(callable $call): string
    {
        try {
            $call();
        } catch (ToolException $e) {
            return $e->getMessage();
        }
        self::fail('no ToolException');
    }

    // ---- code_search --------------------------------------------------------------------

    public function testCodeSearchReadsNoLinkOutOrToSecretsAndNoHardLink(): void
    {
        $tool = new CodeSearchTool($this->ws);
        self::assertSame(['notes.txt', 'repos/cloned/README.md', 'repos/cloned/inside.txt'], $this->searchFiles($tool, 'needle'));
        self::assertSame([], $this->searchFiles($tool, self::MARKER));
        self::assertSame([], $this->searchFiles($tool, 'root:'));
        $r = json_decode($tool->execute(['pattern' => 'needle', 'path' => 'repos/cloned']), true);
        self::assertCount(2, $r['data']['results']);
    }

    public function testCodeSearchSearchesHardLinksOnlyWhenAllowed(): void
    {
        $tool = new CodeSearchTool($this->ws, allowHardLinks: true);
        self::assertSame(['innocent.txt', 'repos/cloned/hard-out.txt'], $this->searchFiles($tool, self::MARKER));
        // Links are judged all the same.
        self::assertSame([], $this->searchFiles($tool, 'root:'));
    }

    public function testCodeSearchRefusesTheFilesystemRootAsWorkspace(): void
    {
        self::assertSame(
            'Workspace root may not be the filesystem root.',
            // '/tmp/..' resolves to '/' at construction ('/' itself is trimmed to '').
            self::refusal(fn () => (new CodeSearchTool('/tmp/..'))->execute(['pattern' => 'root']))
        );
    }

    // ---- file_read and file_edit ---------------------------------------------------------

    public function testFileReadRefusesHardLinksUnlessAllowed(): void
    {
        $tool = new FileReadTool($this->ws);
        foreach (['innocent.txt', './innocent.txt', 'repos/cloned/hard-out.txt'] as $path) {
            self::assertSame(
                'Access denied: the file has more than one hard link.',
                self::refusal(fn () => $tool->execute(['path' => $path])),
                $path
            );
        }
        $allowed = new FileReadTool($this->ws, allowHardLinks: true);
        $r = json_decode($allowed->execute(['path' => 'repos/cloned/hard-out.txt']), true);
        self::assertSame('needle ' . self::MARKER . "\n", $r['data']['content']);
    }

    public function testFileReadFollowsLinksOnlyInsideAndUnblocked(): void
    {
        $plain = new FileReadTool($this->ws);
        self::assertSame(
            'Access denied: path contains a symlink.',
            self::refusal(fn () => $plain->execute(['path' => 'repos/cloned/inside.txt']))
        );
        $tool = new FileReadTool($this->ws, followSymlinks: true);
        $r = json_decode($tool->execute(['path' => 'repos/cloned/inside.txt']), true);
        self::assertSame("hello needle\n", $r['data']['content']);
        foreach ([
            'repos/cloned/CHANGELOG.txt' => "Access to '.env' files is blocked.",
            'repos/cloned/key.txt' => "Access to 'id_rsa' is blocked.",
            'repos/cloned/LICENSE.txt' => 'Path traversal detected: access denied.',
            'repos/cloned/OUT.txt' => 'Path traversal detected: access denied.',
            'repos/cloned/chain.txt' => 'Path traversal detected: access denied.',
            'repos/cloned/outdir/f.txt' => 'Path traversal detected: access denied.',
        ] as $path => $message) {
            self::assertSame($message, self::refusal(fn () => $tool->execute(['path' => $path])), $path);
        }
    }

    public function testFileEditRefusesHardLinksUnlessAllowed(): void
    {
        $edit = ['path' => 'repos/cloned/hard-out.txt', 'old_str' => 'needle', 'new_str' => 'pin'];
        self::assertSame(
            'file_edit: Access denied: the file has more than one hard link.',
            self::refusal(fn () => (new FileEditTool($this->ws))->execute($edit))
        );
        (new FileReadTool($this->ws, allowHardLinks: true))->execute(['path' => $edit['path']]);
        $r = json_decode((new FileEditTool($this->ws, allowHardLinks: true))->execute($edit), true);
        self::assertSame('edited', $r['data']['status']);
        // The edit replaced this name; the other name (outside) keeps its content.
        self::assertSame('pin ' . self::MARKER . "\n", file_get_contents($this->ws . '/' . $edit['path']));
        self::assertSame('needle ' . self::MARKER . "\n", file_get_contents($this->base . '/outside/secret.txt'));
    }

    // ---- project_info --------------------------------------------------------------------

    public function testProjectInfoNamesHardLinksButReadsNoLinkOutNorHardLinkedLock(): void
    {
        file_put_contents($this->base . '/outside/composer.lock', json_encode(['packages' => [['name' => 'acme/secret', 'version' => '6.6.6']]]));
        symlink($this->base . '/outside/composer.lock', $this->ws . '/composer.lock');
        $r = json_decode((new ProjectTool($this->ws))->execute(['depth' => 3]), true);
        self::assertSame([], $r['data']['packages']);
        $tree = $r['data']['file_tree'];
        // The tree is names only: a hard-linked file is named (`hard-out.txt` has a name
        // outside, `.env` and `innocent.txt` are one file), links out or to secrets are not.
        self::assertSame(['README.md', 'hard-out.txt', 'inside.txt'], $tree['repos/']['cloned/']);
        $top = array_values(array_filter($tree, 'is_string'));
        self::assertSame(['.env', 'credentials.json', 'id_rsa', 'innocent.txt', 'notes.txt', 'wp-config.php'], $top);

        $allowed = json_decode((new ProjectTool($this->ws, allowHardLinks: true))->execute(['depth' => 3]), true);
        self::assertSame($tree, $allowed['data']['file_tree'], 'allowHardLinks is about content only');
        self::assertSame([], $allowed['data']['packages'], 'a link out of the project is never read');

        // A composer.lock with a second name outside: named, read only once allowed.
        unlink($this->ws . '/composer.lock');
        link($this->base . '/outside/composer.lock', $this->ws . '/composer.lock');
        $r = json_decode((new ProjectTool($this->ws))->execute(['depth' => 1]), true);
        self::assertSame([], $r['data']['packages']);
        self::assertContains('composer.lock', $r['data']['file_tree']);
        $allowed = json_decode((new ProjectTool($this->ws, allowHardLinks: true))->execute(['depth' => 1]), true);
        self::assertSame([['name' => 'acme/secret', 'version' => '6.6.6']], $allowed['data']['packages']);
    }

    // ---- zip_package ---------------------------------------------------------------------

    /** @return array<string, string> entry name => content */
    private function archive(): array
    {
        exec('unzip -Z1 ' . escapeshellarg($this->zipPath()), $names, $rc);
        self::assertSame(0, $rc);
        $out = [];
        foreach ($names as $name) {
            $body = [];
            exec('unzip -p ' . escapeshellarg($this->zipPath()) . ' ' . escapeshellarg($name), $body);
            $out[$name] = implode("\n", $body);
        }
        return $out;
    }

    public function testZipPacksNoSecretNoLinkOutAndNoHardLinkAndSaysWhat(): void
    {
        $r = json_decode((new ZipPackagerTool($this->ws))->execute(['source_dir' => '.', 'output_name' => $this->zipName]), true);
        self::assertTrue($r['success']);
        $n = $this->zipName;
        $entries = $this->archive();
        self::assertSame(["$n/notes.txt", "$n/repos/cloned/README.md", "$n/repos/cloned/inside.txt"], array_keys($entries));
        foreach ($entries as $name => $body) {
            self::assertStringNotContainsString(self::MARKER, $body, $name);
        }
        self::assertSame(3, $r['data']['files']);
        self::assertSame([
            'zip_package: 6 secret file(s) or security folder(s) left out (secrets are never packed): .env, .git/, .ssh/, credentials.json, id_rsa, wp-config.php.',
            'zip_package: 5 link(s) left out: they lead out of the workspace, to a blocked file or nowhere: repos/cloned/CHANGELOG.txt, repos/cloned/LICENSE.txt, repos/cloned/OUT.txt, repos/cloned/chain.txt, repos/cloned/key.txt.',
            'zip_package: 2 file(s) with more than one hard link left out (allowHardLinks permits them): innocent.txt, repos/cloned/hard-out.txt.',
            'zip_package: 2 link(s) to folders not followed: repos/cloned/keys, repos/cloned/outdir.',
        ], $r['warnings']);
        // Owner-only.
        clearstatcache();
        self::assertSame(0600, fileperms($this->zipPath()) & 0777);
    }

    public function testZipPacksHardLinksOnlyWhenAllowed(): void
    {
        $tool = new ZipPackagerTool($this->ws, allowHardLinks: true);
        $r = json_decode($tool->execute(['source_dir' => 'repos', 'output_name' => $this->zipName]), true);
        $n = $this->zipName;
        self::assertSame(["$n/cloned/README.md", "$n/cloned/hard-out.txt", "$n/cloned/inside.txt"], array_keys($this->archive()));
        self::assertCount(2, $r['warnings']);
    }

    public function testZipReplacesALinkPlantedAtTheArchiveNameWithoutFollowingIt(): void
    {
        $victim = $this->base . '/outside/victim';
        file_put_contents($victim, 'keep');
        symlink($victim, $this->zipPath());
        $r = json_decode((new ZipPackagerTool($this->ws))->execute(['source_dir' => 'repos', 'output_name' => $this->zipName]), true);
        self::assertSame(2, $r['data']['files']);
        self::assertSame('keep', file_get_contents($victim));
        self::assertFalse(is_link($this->zipPath()));
        clearstatcache();
        self::assertSame(0600, fileperms($this->zipPath()) & 0777);
        // A dangling planted link: following it would create its target.
        unlink($this->zipPath());
        symlink($this->base . '/outside/created', $this->zipPath());
        (new ZipPackagerTool($this->ws))->execute(['source_dir' => 'repos', 'output_name' => $this->zipName]);
        self::assertFileDoesNotExist($this->base . '/outside/created');
        self::assertFalse(is_link($this->zipPath()));
    }

    public function testZipRefusesASourceInASecurityFolderOrOutsideAndTheFilesystemRoot(): void
    {
        $zip = fn (string $root, string $src) => (new ZipPackagerTool($root))->execute(['source_dir' => $src, 'output_name' => $this->zipName]);
        self::assertSame("zip_package: the '.ssh' folder is blocked.", self::refusal(fn () => $zip($this->ws, '.ssh')));
        self::assertSame("zip_package: the '.ssh' folder is blocked.", self::refusal(fn () => $zip($this->ws, 'repos/cloned/keys')));
        self::assertSame('zip_package: source_dir escapes workspace root - blocked.', self::refusal(fn () => $zip($this->ws, 'repos/cloned/outdir')));
        self::assertSame('Workspace root may not be the filesystem root.', self::refusal(fn () => $zip('/tmp/..', 'etc')));
        self::assertFileDoesNotExist($this->zipPath());
    }
}
