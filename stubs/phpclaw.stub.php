<?php

/**
 * IDE and static-analysis stubs for the phpclaw native extension.
 *
 * Every symbol below is registered by the extension itself (`extension=phpclaw`); this file is
 * never loaded at runtime. php-tests/StubsTest.php keeps it in step with the module.
 *
 * @generated-by hand, checked by php-tests/StubsTest.php
 */

namespace PhpClaw\Exceptions {

    /** Base class of every exception phpClaw throws. */
    class PhpClawException extends \RuntimeException
    {
    }

    /** A tool execution failed; with a previous exception it counts as retryable infrastructure. */
    class ToolException extends PhpClawException
    {
    }

    /** ShellTool refused a command. */
    final class ShellDeniedException extends ToolException
    {
    }
}

namespace PhpClaw\Tools {

    /** Routing signals a tool advertises so the router ranks it by intent and domain. */
    final class ToolRoutingMetadata
    {
        /** Broad subject areas the tool belongs to (weight 8). */
        public readonly array $domains;

        /** Narrow keywords a user is likely to type (weight 4). */
        public readonly array $tags;

        /** Verb phrases describing what the tool does (weight 16). */
        public readonly array $intents;

        /** Short example requests the tool answers well (weight 2). */
        public readonly array $examples;

        /** Store the four signal lists; each defaults to an empty list. */
        public function __construct(array $domains = [], array $tags = [], array $intents = [], array $examples = [])
        {
        }

        /** A new instance carrying no signal. */
        public static function empty(): ToolRoutingMetadata
        {
        }

        /** Whether all four signal lists are empty. */
        public function isEmpty(): bool
        {
        }
    }
}

namespace PhpClaw\Tools\Contracts {

    use PhpClaw\Tools\ToolRoutingMetadata;

    /** A capability the agent can call. */
    interface ToolInterface
    {
        /** The unique snake_case name the model calls. */
        public function name(): string;

        /** The description the model reads to choose the tool. */
        public function description(): string;

        /** The JSON schema of the tool's input. */
        public function inputSchema(): array;

        /** Run the tool and return the JSON string the model receives. */
        public function execute(array $input): string;
    }

    /** Decides whether the current caller may use core's tools. */
    interface ToolAuthorizerInterface
    {
        /** The capability every core tool requires. */
        public const CAPABILITY = 'phpclaw_use_tools';

        /** Whether the current caller holds the capability. */
        public function allows(): bool;

        /** Whether the request came through the platform's console. */
        public function runningInConsole(): bool;
    }

    /** A tool that accepts an authorizer (core-style tools). */
    interface AuthorizableToolInterface
    {
        /** Bind the authorizer to consult, or null to allow every caller. */
        public function withAuthorizer(?ToolAuthorizerInterface $authorizer): void;
    }

    /** A tool the router can rank and offer. */
    interface ToolRoutingInterface
    {
        /** Whether the tool may be offered to the model for the current caller. */
        public function isEligibleForRouting(): bool;

        /** The routing signals of this tool. */
        public function routingMetadata(): ToolRoutingMetadata;
    }

    /** Marker: the tool always changes state, so an approval gate asks first. */
    interface MutatingToolInterface
    {
    }

    /** The tool decides per call whether it changes state. */
    interface PerInvocationMutabilityInterface
    {
        /** Whether this input would change state (true when unsure). */
        public function isMutating(array $input): bool;
    }

    /** A tool that needs runtime configuration. */
    interface ConfigurableToolInterface extends ToolInterface
    {
        /** The settings fields an admin screen renders. */
        public static function settingsFields(): array;

        /** Apply a configuration array. */
        public function configure(array $config): void;

        /** Whether the tool has the configuration it needs. */
        public function isConfigured(): bool;
    }

    /** A tool holding per-run state. */
    interface ResettableInterface
    {
        /** Forget the per-run state. */
        public function reset(): void;
    }
}

namespace PhpClaw\Tools\Concerns {

    use PhpClaw\Exceptions\ToolException;
    use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;

    /**
     * The tool lifecycle (plan, perform, verify, complete, recover) and its helpers; native
     * unless opcache.preload is set.
     */
    trait HasToolExecutionContract
    {
        /** Authorise, normalise and validate: ['input' => array, 'result' => ?string]. */
        abstract protected function plan(array $input): array;

        /** Do the work and return the raw execution. */
        abstract protected function perform(array $input): array;

        /** Check the raw execution: ['result' => null] to continue, or a finished result. */
        abstract protected function verify(array $execution, array $input): array;

        /** Build the envelope the model receives. */
        abstract protected function complete(array $execution, array $input): string;

        /** Run plan, perform, verify and complete, recovering ToolExceptions. */
        public function execute(array $input): string
        {
        }

        /** How many times a tool failure may be retried (1 here). */
        protected function maxRecoveryAttempts(): int
        {
        }

        /** The short class name used in log lines. */
        protected function toolLabel(): string
        {
        }

        /** Null when the caller may act, else a FORBIDDEN envelope naming the capability. */
        protected function guardCapability(string $subject): ?string
        {
        }

        /** Null when every input key is allowed (strict comparison), else UNKNOWN_ARGUMENT. */
        protected function rejectUnknownArguments(array $input, array $allowed): ?string
        {
        }

        /** Null when limit/offset are in range, else INVALID_LIMIT or INVALID_OFFSET. */
        protected function validatePaging(array $input, int $maxLimit, int $maxOffset): ?string
        {
        }

        /** Retry a retryable failure (['result' => null]) or rethrow it. */
        protected function recover(ToolException $exception, int $attempt): array
        {
        }

        /** Whether a failure is retryable infrastructure: it has a previous exception. */
        protected function isRetryableInfrastructureFailure(ToolException $exception): bool
        {
        }

        /** The success envelope. */
        protected function success(array $data, array $meta, array $warnings = []): string
        {
        }

        /** The error envelope; $context is merged into "error" as array_merge does. */
        protected function error(string $code, string $message, array $context = []): string
        {
        }

        /** JSON-encode an envelope, HTML entities decoded in every string value. */
        protected function encodeResult(array $result): string
        {
        }

        /** html_entity_decode over every string value, keys kept. */
        private static function decodeEntitiesRecursively(mixed $value): mixed
        {
        }

        /** Worked example prompts; none by default. */
        public static function examples(): array
        {
        }

        /** Write "phpClaw <Label> execution failed: <message>" to the error log. */
        protected function logExecutionError(\Throwable $exception): void
        {
        }

        /** The platform capability this tool requires. */
        abstract public function requiredCapability(): string;

        /** Whether the request came through the platform's console. */
        abstract protected function runningInConsole(): bool;

        /** Whether the current caller holds a platform capability. */
        abstract protected function callerHasCapability(string $capability): bool;
    }

    /**
     * Core's binding of the lifecycle: capability from the bound authorizer, no retries,
     * verbatim encoding; native unless opcache.preload is set.
     */
    trait HasCoreToolBinding
    {
        /** The authorizer withAuthorizer() bound, or null. */
        private ?\PhpClaw\Tools\Contracts\ToolAuthorizerInterface $authorizer = null;

        /** Authorise, normalise and validate: ['input' => array, 'result' => ?string]. */
        abstract protected function plan(array $input): array;

        /** Do the work and return the raw execution. */
        abstract protected function perform(array $input): array;

        /** Check the raw execution: ['result' => null] to continue, or a finished result. */
        abstract protected function verify(array $execution, array $input): array;

        /** Build the envelope the model receives. */
        abstract protected function complete(array $execution, array $input): string;

        /** Run plan, perform, verify and complete, recovering ToolExceptions. */
        public function execute(array $input): string
        {
        }

        /** How many times a tool failure may be retried (0 for core). */
        protected function maxRecoveryAttempts(): int
        {
        }

        /** The short class name used in log lines. */
        protected function toolLabel(): string
        {
        }

        /** Null when the caller may act, else a FORBIDDEN envelope naming the missing caller. */
        protected function guardCapability(string $subject): ?string
        {
        }

        /** Null when every input key is allowed (strict comparison), else UNKNOWN_ARGUMENT. */
        protected function rejectUnknownArguments(array $input, array $allowed): ?string
        {
        }

        /** Null when limit/offset are in range, else INVALID_LIMIT or INVALID_OFFSET. */
        protected function validatePaging(array $input, int $maxLimit, int $maxOffset): ?string
        {
        }

        /** Retry a retryable failure (['result' => null]) or rethrow it. */
        protected function recover(ToolException $exception, int $attempt): array
        {
        }

        /** Whether a failure is retryable infrastructure: it has a previous exception. */
        protected function isRetryableInfrastructureFailure(ToolException $exception): bool
        {
        }

        /** The success envelope. */
        protected function success(array $data, array $meta, array $warnings = []): string
        {
        }

        /** The error envelope; $context is merged into "error" as array_merge does. */
        protected function error(string $code, string $message, array $context = []): string
        {
        }

        /** JSON-encode an envelope verbatim (no entity decoding). */
        protected function encodeResult(array $result): string
        {
        }

        /** html_entity_decode over every string value, keys kept. */
        private static function decodeEntitiesRecursively(mixed $value): mixed
        {
        }

        /** Worked example prompts; none by default. */
        public static function examples(): array
        {
        }

        /** Write "phpClaw <Label> execution failed: <message>" to the error log. */
        protected function logExecutionError(\Throwable $exception): void
        {
        }

        /** Bind the authorizer to consult, or null to allow every caller. */
        public function withAuthorizer(?ToolAuthorizerInterface $authorizer): void
        {
        }

        /** Always ToolAuthorizerInterface::CAPABILITY. */
        public function requiredCapability(): string
        {
        }

        /** Offered to the model on the console or when the caller holds the capability. */
        public function isEligibleForRouting(): bool
        {
        }

        /** The authorizer's runningInConsole(); false without an authorizer. */
        protected function runningInConsole(): bool
        {
        }

        /** The authorizer's allows(); true without an authorizer. */
        protected function callerHasCapability(string $capability): bool
        {
        }
    }
}

namespace PhpClaw\Tools\Security {

    /** The sensitive-path lists the file tools, code search and the shell policy share. */
    final class BlockedPaths
    {
        /** Extensions of files holding keys, certificates, databases or password stores. */
        public const EXTENSIONS = ['env', 'key', 'pem', 'crt', 'p12', 'pfx', 'cer', 'der', 'jks', 'keystore', 'truststore', 'sqlite', 'sqlite3', 'db', 'mdb', 'kdbx', 'kwallet'];

        /** File names holding credentials or server configuration. */
        public const FILENAMES = ['wp-config.php', 'wp-config-sample.php', 'config.php', 'configuration.php', 'database.php', 'settings.php', 'local_settings.php', 'settings.local.php', 'local.php', 'app.php', 'env.php', 'config.local.php', 'config.prod.php', 'settings.inc.php', 'parameters.php', 'parameters.yml', 'parameters.yaml', '.htpasswd', '.htaccess', '.htdigest', 'nginx.conf', 'httpd.conf', 'php.ini', '.npmrc', '.pypirc', '.netrc', '.envrc', '.my.cnf', '.pgpass', 'credentials.json', 'service-account.json', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa', 'known_hosts', 'authorized_keys', 'docker-compose.yml', 'docker-compose.yaml', '.dockerenv'];

        /** Build and project files the editing tools refuse to change. */
        public const EDIT_FILENAMES = ['composer.json', 'composer.lock', 'package.json', 'package-lock.json', '.gitignore', 'phpunit.xml', 'phpunit.xml.dist', 'dockerfile', '.gitlab-ci.yml', 'artisan'];

        /** Folders whose contents are secrets or platform internals; never readable. */
        public const SECURITY_DIRS = ['.git', '.ssh', '.gnupg', '.aws', '.azure', '.gcloud', '.kube', '.docker', '.config', 'wp-admin', 'wp-includes'];

        /** Dependency folders refused as noise unless a tool is configured otherwise. */
        public const NOISE_DIRS = ['vendor', 'node_modules'];

        /** Constants only: not instantiable. */
        private function __construct()
        {
        }
    }
}

namespace PhpClaw\Tools {

    use PhpClaw\Tools\Contracts\AuthorizableToolInterface;
    use PhpClaw\Tools\Contracts\MutatingToolInterface;
    use PhpClaw\Tools\Contracts\PerInvocationMutabilityInterface;
    use PhpClaw\Tools\Contracts\ResettableInterface;
    use PhpClaw\Tools\Contracts\ToolAuthorizerInterface;
    use PhpClaw\Tools\Contracts\ToolInterface;
    use PhpClaw\Tools\Contracts\ToolRoutingInterface;

    /** Decides whether a tool call changes state and so needs approval first. */
    final class ToolMutability
    {
        /** A per-invocation tool decides for this input; otherwise any mutating tool needs approval. */
        public static function isApprovalRequired(?ToolInterface $tool, array $input): bool
        {
        }
    }

    /** file_read: one text file from the sandboxed workspace, capped, binaries refused. */
    final class FileReadTool implements AuthorizableToolInterface, ResettableInterface, ToolInterface, ToolRoutingInterface
    {
        /** Workspace folder under the working directory when no root is given. */
        public const DEFAULT_WORKSPACE_SUBPATH = 'storage/phpclaw';

        /** Default byte cap of a read. */
        public const DEFAULT_MAX_BYTES = 16384;

        /** Noise folders refused by default. */
        private const NOISE_BLOCKED_DIRS = ['vendor', 'node_modules'];

        /** Byte cap of a read (at least 1). */
        private int $maxBytes;

        /** Whether symlinks in paths are followed (their targets are judged again). */
        private bool $followSymlinks;

        /** Noise folder names refused besides the security folders. */
        private array $noiseBlockedDirs;

        /** The root as configured, without trailing separator. */
        private string $workspaceRootConfigured;

        /** The real root, once it resolved. */
        private ?string $workspaceRootResolved = null;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the sandbox; maxBytes below 1 throws InvalidArgumentException. */
        public function __construct(?string $workspaceRoot = null, int $maxBytes = self::DEFAULT_MAX_BYTES, bool $followSymlinks = false, array $noiseBlockedDirs = self::NOISE_BLOCKED_DIRS)
        {
        }

        /** Bind the authorizer to consult, or null to allow every caller. */
        public function withAuthorizer(?ToolAuthorizerInterface $authorizer): void
        {
        }

        /** The capability core's tools require. */
        public function requiredCapability(): string
        {
        }

        /** Whether the caller may be offered the tool (console, else the capability). */
        public function isEligibleForRouting(): bool
        {
        }

        /** Example calls (none). */
        public static function examples(): array
        {
        }

        /** The tool name: file_read. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: path, offset, limit, line_numbers. */
        public function inputSchema(): array
        {
        }

        /** Read the file and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of file_read. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** Clear phpClaw's read log (FileReadLog) when it is installed. */
        public function reset(): void
        {
        }

        /** The real workspace root once it exists, else the configured path. */
        public function workspaceRoot(): string
        {
        }

        /** The byte cap. */
        public function maxBytes(): int
        {
        }
    }

    /** shell_exec: one allowlisted command, run without a shell (argv executed directly). */
    final class ShellTool implements AuthorizableToolInterface, MutatingToolInterface, PerInvocationMutabilityInterface, ToolInterface, ToolRoutingInterface
    {
        /** Inline stdout cap; longer output is spilled to a temp file. */
        public const DEFAULT_MAX_STDOUT_BYTES = 8192;

        /** Inline stderr cap, used when a failed command printed nothing on stdout. */
        public const DEFAULT_MAX_STDERR_BYTES = 10000;

        /** Wall-clock limit of one command, in seconds; the process group is killed then. */
        private const PROCESS_TIMEOUT_SECONDS = 5;

        /** Combined stdout and stderr bytes after which the process group is killed. */
        private const HARD_READ_CEILING_BYTES = 10485760;

        /** Signal that ends a command past a limit. */
        private const SIGKILL = 9;

        /** Programs allowed when no allowlist is given. */
        private const DEFAULT_ALLOWLIST = ['ls', 'pwd', 'df', 'wc', 'date', 'uptime', 'hostname', 'whoami'];

        /** Programs that need no approval (when allowlisted). */
        private const READONLY_COMMANDS = ['ls', 'pwd', 'df', 'cat', 'head', 'tail', 'grep', 'wc', 'date', 'uptime', 'hostname', 'whoami'];

        /** Programs refused whatever the allowlist says. */
        private const HARD_BLOCKED = ['rm', 'mv', 'dd', 'mkfs', 'fdisk', 'shred', 'mkfifo', 'mknod', 'chmod', 'chown', 'chattr', 'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'ftp', 'rsync', 'kill', 'killall', 'pkill', 'reboot', 'shutdown', 'halt', 'poweroff', 'init', 'sudo', 'su', 'doas', 'pkexec', 'newgrp', 'chroot', 'bash', 'sh', 'zsh', 'fish', 'csh', 'ksh', 'tcsh', 'dash', 'python', 'python2', 'python3', 'ruby', 'perl', 'node', 'npx', 'npm', 'pip', 'pip3', 'at', 'batch', 'nohup', 'crontab', 'gdb', 'strace', 'ltrace', 'ptrace', 'ps', 'pstree', 'top', 'htop', 'du', 'find', 'env', 'printenv', 'set', 'export', 'artisan'];

        /** Characters that make a command refused. */
        private const METACHARACTERS = [';', '&', '|', '>', '<', '`', '$', '(', ')', '{', '}', '[', ']', '\\', '"', '\'', '!'];

        /** Programs whose operands are judged as file paths most strictly. */
        private const FILE_READING_COMMANDS = ['cat', 'head', 'tail', 'less', 'more', 'tac', 'nl', 'grep', 'egrep', 'fgrep', 'awk', 'sed', 'wc', 'sort', 'uniq', 'cut', 'paste', 'tr', 'strings', 'xxd', 'hexdump', 'od'];

        /** Programs that may run, matched exactly against the first token. */
        private readonly array $allowlist;

        /** Inline stdout cap in bytes. */
        private readonly int $maxStdoutBytes;

        /** Inline stderr cap in bytes. */
        private readonly int $maxStderrBytes;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the allowlist and the inline caps. */
        public function __construct(array $allowlist = self::DEFAULT_ALLOWLIST, int $maxStdoutBytes = self::DEFAULT_MAX_STDOUT_BYTES, int $maxStderrBytes = self::DEFAULT_MAX_STDERR_BYTES)
        {
        }

        /** Bind the authorizer to consult, or null to allow every caller. */
        public function withAuthorizer(?ToolAuthorizerInterface $authorizer): void
        {
        }

        /** The capability core's tools require. */
        public function requiredCapability(): string
        {
        }

        /** Whether the caller may be offered the tool (console, else the capability). */
        public function isEligibleForRouting(): bool
        {
        }

        /** Example calls (none). */
        public static function examples(): array
        {
        }

        /** Run the command and return the JSON envelope; refusals throw ShellDeniedException. */
        public function execute(array $input): string
        {
        }

        /** Whether this command needs human approval (refused and read-only commands do not). */
        public function isMutating(array $input): bool
        {
        }

        /** The routing signals of shell_exec. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** The sensitive-path rules on one token; a refusal fires shell.denied and throws. */
        private function assertPathNotSensitive(string $command, string $cmdName, string $token): void
        {
        }

        /** The tool name: shell_exec. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: command. */
        public function inputSchema(): array
        {
        }

        /** The allowlist as configured. */
        public function allowlist(): array
        {
        }

        /** The inline stdout cap. */
        public function maxStdoutBytes(): int
        {
        }

        /** The inline stderr cap. */
        public function maxStderrBytes(): int
        {
        }
    }
}
