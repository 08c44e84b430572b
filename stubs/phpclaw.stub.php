<?php

/**
 * IDE and static-analysis stubs for the phpclaw native extension.
 *
 * Every symbol below is registered by the extension itself (`extension=phpclaw`); this file is
 * never loaded at runtime. php-tests/StubsTest.php keeps it in step with the module.
 *
 * @generated-by hand, checked by php-tests/StubsTest.php
 */

namespace PhpClaw\AutoDiscovery {

    /** The contract of phpClaw's catalogues (tools, providers, memory, skills, hooks, guards). */
    interface CatalogueInterface
    {
        /** Register the entries installed Composer packages declare; safe to call again. */
        public static function boot(): void;

        /** The entries enabled by the given admin settings. */
        public static function activateFromSettings(array $settings): array;
    }
}

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
        public static function empty(): self
        {
        }

        /** Whether all four signal lists are empty. */
        public function isEmpty(): bool
        {
        }
    }

    /**
     * Per-turn tool selection: pins the tools a message names, ranks the rest on six weighted
     * signals and slices to the budget; the result is sorted by name.
     */
    final class ToolRouter
    {
        /** Budget value that turns the per-turn cap off. */
        public const UNLIMITED = -1;

        /** Explicit per-turn budget: positive caps, UNLIMITED turns the cap off, 0 and other negatives derive it from the model id. */
        private readonly int $maxToolsPerTurn;

        /** Share of the best score a ranked tool needs to be offered; 0 means no floor. */
        private readonly float $minScoreShare;

        /** Lowercased names the last engaged call chose, pinned first then by rank. */
        private array $lastRankedNames;

        /** Set the per-turn budget and the optional score floor share. */
        public function __construct(int $maxToolsPerTurn = 0, float $minScoreShare = 0.0)
        {
        }

        /** Lowercased names of the last routed selection in rank order, pinned tools first; empty when the router did not engage. */
        public function lastRankedNames(): array
        {
        }

        /**
         * The schemas this message is offered: the given array untouched when within budget,
         * else the chosen schemas (the same arrays) sorted by lowercased name.
         */
        public function filter(array $allSchemas, string $message, string $model = '', array $metadata = []): array
        {
        }

        /** How well the best tool matches the message, 0..1, rounded to four decimals. */
        public function confidence(array $allSchemas, string $message, array $metadata = []): float
        {
        }

        /**
         * One turn for the agent: profile floor, always-included tools, routing and the fit to the
         * request budget (null takes the profile's). History entries are strings or byte lengths.
         * Returns schemas, ranked, pinned, always, dropped (lowercased names), routed, budget and estimate.
         */
        public function route(array $allSchemas, string $message, string $model = '', array $metadata = [], ?string $profile = null, array $alwaysInclude = [], string $systemPrompt = '', array $history = [], ?int $requestBudget = null): array
        {
        }
    }

    /** Provider and model to a tool profile, the profile's numbers, and the deny list. */
    final class ToolProfileResolver
    {
        /** Small local models: 5 tools, 3000-token requests, first-line descriptions. */
        public const PROFILE_MINIMAL = 'minimal';

        /** Medium local models: 8 tools, 6000-token requests. */
        public const PROFILE_STANDARD = 'standard';

        /** Cloud models: no profile cap, no request budget. */
        public const PROFILE_FULL = 'full';

        /** The profile for a provider and model. */
        public static function resolve(string $provider, string $model): string
        {
        }

        /** The tools left after the deny list (names or group references), reindexed. */
        public static function filter(array $tools, array $deny = [], array $groups = []): array
        {
        }

        /** The profile's tool budget; 0 means no profile cap. */
        public static function maxTools(string $profile): int
        {
        }

        /** The profile's request budget in estimated tokens; 0 means none. */
        public static function requestBudget(string $profile): int
        {
        }

        /** The profile's ceiling for the injected skill block in characters; 0 means none. */
        public static function skillContextChars(string $profile): int
        {
        }

        /** Tool names and group references flattened to tool names, first occurrence kept. */
        public static function resolveNames(array $entries, array $groups): array
        {
        }
    }

    /** Native helpers the agent runs around a tool call: argument tidying and the result cap. */
    final class ToolInput
    {
        /** Default ceiling for one tool result, in estimated tokens (four bytes each). */
        public const DEFAULT_MAX_RESULT_TOKENS = 2500;

        /**
         * Arguments tidied against the input schema: optional null, blank, * and % (unless an
         * enum value) dropped; integer and number properties cast and set into minimum..maximum.
         */
        public static function tidy(array $arguments, array $inputSchema): array
        {
        }

        /** The result cut at the ceiling, without splitting a UTF-8 character, with the note appended; 0 disables. */
        public static function capResult(string $result, int $maxTokens = 2500): string
        {
        }
    }

    /** The registered tools by name, with their schemas shaped and cached per provider. */
    final class ToolRegistry
    {
        /** Shape name of the OpenAI function-calling format. */
        public const TOOL_FORMAT_OPENAI = 'openai';

        /** Shape name of the Anthropic-native format. */
        public const TOOL_FORMAT_ANTHROPIC = 'anthropic';

        /** Registered tools keyed by name. */
        private array $tools = [];

        /** Shaped schemas per provider (and lean mode), emptied by register(). */
        private array $schemasCache = [];

        /** Bound into every authorizable tool on register(), when set. */
        private readonly ?\PhpClaw\Tools\Contracts\ToolAuthorizerInterface $authorizer;

        /** Optionally take the authorizer consulted by the tools registered here. */
        public function __construct(?\PhpClaw\Tools\Contracts\ToolAuthorizerInterface $authorizer = null)
        {
        }

        /** Add tools, minus the denied names and groups; warns about group members naming no tool. */
        public function register(array $tools, array $deny = [], array $groups = []): void
        {
        }

        /** Whether a tool of this name is registered. */
        public function has(string $name): bool
        {
        }

        /** The tool of this name (it must be registered). */
        public function get(string $name): \PhpClaw\Tools\Contracts\ToolInterface
        {
        }

        /** Every registered tool, in registration order. */
        public function all(): array
        {
        }

        /** Reset per-run state of every resettable tool. */
        public function resetRunState(): void
        {
        }

        /** How many tools are registered. */
        public function count(): int
        {
        }

        /** The registered names. */
        public function names(): array
        {
        }

        /** Eligible tools shaped for a provider; lean sends each description's first line only. */
        public function schemas(string $providerName, bool $lean = false): array
        {
        }

        /** Routing metadata of each routing-aware tool, keyed by lower-cased name. */
        public function routingMetadata(): array
        {
        }

        /** The schema shape a provider takes: TOOL_FORMAT_OPENAI or TOOL_FORMAT_ANTHROPIC. */
        public static function toolFormat(string $providerName): string
        {
        }
    }

    /** Remote tool profiles: an HTTPS document that selects among the tools installed. */
    final class RemoteToolActivator
    {
        /** Fetch a profile (HTTPS, SSRF-checked and pinned, 5 s, 64 KB, cached one hour); null and a logged warning on failure. */
        public static function fetch(string $url): ?array
        {
        }

        /** The tools whose name is allowed, in order; all of them when the list is empty. */
        public static function filter(array $allTools, array $allowed): array
        {
        }

        /** The curl options phpClaw's PHP implementation uses for the pinned fetch. */
        public static function buildCurlOptions(string $url, array $resolved): array
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

    /** code_search: a literal or PHP-style PCRE search across workspace files, paged. */
    final class CodeSearchTool implements AuthorizableToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** Workspace folder under the working directory when no root is given. */
        public const DEFAULT_WORKSPACE_SUBPATH = 'storage/phpclaw';

        /** The workspace root: real path when it exists, else as given without trailing separator. */
        private string $workspaceRoot;

        /** Whether regular files with more than one hard link are read (ours; refused or left out when false). */
        private bool $allowHardLinks;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Fix the workspace root (default: storage/phpclaw under the working directory); allowHardLinks (ours) searches files with more than one hard link. */
        public function __construct(?string $workspaceRoot = null, bool $allowHardLinks = false)
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

        /** The tool name: code_search. */
        public function name(): string
        {
        }

        /** The description the model reads (names the root). */
        public function description(): string
        {
        }

        /** The input schema: pattern, path, extension, is_regex, context_lines, offset. */
        public function inputSchema(): array
        {
        }

        /** Search and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of code_search. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }
    }

    /** project_info: detected platform, Composer packages and the file tree (depth 1..4). */
    final class ProjectTool implements AuthorizableToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** The project root as given (the working directory when null). */
        private string $projectRoot;

        /** Whether regular files with more than one hard link are read (ours; refused or left out when false). */
        private bool $allowHardLinks;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Fix the project root (default: the working directory); allowHardLinks (ours) reads a composer.lock with more than one hard link (the tree names such files either way). */
        public function __construct(?string $projectRoot = null, bool $allowHardLinks = false)
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

        /** The tool name: project_info. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: depth. */
        public function inputSchema(): array
        {
        }

        /** Inspect the project and return the JSON envelope; the filesystem root or a missing folder throws ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of project_info. */
        public function routingMetadata(): ToolRoutingMetadata
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

        /** Whether regular files with more than one hard link are read (ours; refused or left out when false). */
        private bool $allowHardLinks;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the sandbox; maxBytes below 1 throws InvalidArgumentException; allowHardLinks (ours) reads files with more than one hard link. */
        public function __construct(?string $workspaceRoot = null, int $maxBytes = self::DEFAULT_MAX_BYTES, bool $followSymlinks = false, array $noiseBlockedDirs = self::NOISE_BLOCKED_DIRS, bool $allowHardLinks = false)
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

        /** Clear the read log (phpClaw's FileReadLog when installed, else the extension's). */
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

    /** Native file_write: writes one file in the sandboxed workspace, atomically. */
    final class FileWriteTool implements AuthorizableToolInterface, MutatingToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** Workspace folder under the working directory when no root is given. */
        public const DEFAULT_WORKSPACE_SUBPATH = 'storage/phpclaw';

        /** Default content cap: 10 MB. */
        public const DEFAULT_MAX_BYTES = 10485760;

        /** Whether PHP files (php, phtml, phar) may be written. */
        private bool $allowPhpWrite;

        /** Content cap in bytes. */
        private int $maxBytes;

        /** Whether symlinks in paths are followed (their targets are judged again). */
        private bool $followSymlinks;

        /** The real workspace root when it existed at construction, else the configured path. */
        private string $workspaceRoot;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the sandbox and the PHP-file permission. */
        public function __construct(?string $workspaceRoot = null, bool $allowPhpWrite = false, int $maxBytes = self::DEFAULT_MAX_BYTES, bool $followSymlinks = false)
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

        /** The tool name: file_write. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: path, content. */
        public function inputSchema(): array
        {
        }

        /** Write the file and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of file_write. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** The workspace root fixed at construction. */
        public function workspaceRoot(): string
        {
        }

        /** The content cap. */
        public function maxBytes(): int
        {
        }
    }

    /** Native http_request: one GET or POST to a public URL, SSRF-checked, pinned, truncated. */
    final class HttpTool implements AuthorizableToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** Default response cap: 8192 bytes. */
        public const DEFAULT_MAX_RESPONSE_BYTES = 8192;

        /** Default timeout: 10 seconds. */
        public const DEFAULT_TIMEOUT_SECONDS = 10;

        /** Response cap in bytes. */
        private int $maxResponseBytes;

        /** Timeout in seconds. */
        private int $timeoutSeconds;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the response cap and the timeout. */
        public function __construct(int $maxResponseBytes = self::DEFAULT_MAX_RESPONSE_BYTES, int $timeoutSeconds = self::DEFAULT_TIMEOUT_SECONDS)
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

        /** The tool name: http_request. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: url, method, body, headers. */
        public function inputSchema(): array
        {
        }

        /** Send the request and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of http_request. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** The response cap. */
        public function maxResponseBytes(): int
        {
        }

        /** The timeout in seconds. */
        public function timeoutSeconds(): int
        {
        }
    }

    /** Native zip_package: a workspace folder packed into {output_name}.zip in the temp directory. */
    final class ZipPackagerTool implements AuthorizableToolInterface, MutatingToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** Workspace folder under the working directory when no root is given. */
        public const DEFAULT_WORKSPACE_SUBPATH = 'storage/phpclaw';

        /** The real workspace root when it existed at construction, else the configured path. */
        private string $workspaceRoot;

        /** Whether regular files with more than one hard link are read (ours; refused or left out when false). */
        private bool $allowHardLinks;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the sandbox; allowHardLinks (ours) packs files with more than one hard link. */
        public function __construct(?string $workspaceRoot = null, bool $allowHardLinks = false)
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

        /** The tool name: zip_package. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: source_dir, output_name. */
        public function inputSchema(): array
        {
        }

        /** Write the archive and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of zip_package. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }
    }

    /** Native file_edit: replaces one unique string in a file file_read has read in this run. */
    final class FileEditTool implements AuthorizableToolInterface, MutatingToolInterface, ResettableInterface, ToolInterface, ToolRoutingInterface
    {
        /** Workspace folder under the working directory when no root is given. */
        public const DEFAULT_WORKSPACE_SUBPATH = 'storage/phpclaw';

        /** Default size cap of an edited file: 2 MB. */
        public const DEFAULT_MAX_BYTES = 2097152;

        /** Noise folders refused by default. */
        private const NOISE_BLOCKED_DIRS = ['vendor', 'node_modules'];

        /** Whether symlinks in paths are followed (their targets are judged again). */
        private bool $followSymlinks;

        /** Noise folder names refused besides the security and edit folders. */
        private array $noiseBlockedDirs;

        /** Size cap of an edited file (at least 1). */
        private int $maxBytes;

        /** The root as configured, without trailing separator. */
        private string $workspaceRootConfigured;

        /** The real root, once it resolved. */
        private ?string $workspaceRootResolved = null;

        /** The extension's per-request read log, used when phpClaw's FileReadLog is absent. */
        private static ?array $readLog = null;

        /** Whether regular files with more than one hard link are read (ours; refused or left out when false). */
        private bool $allowHardLinks;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Configure the sandbox; maxBytes below 1 throws InvalidArgumentException; allowHardLinks (ours) edits files with more than one hard link. */
        public function __construct(?string $workspaceRoot = null, bool $followSymlinks = false, array $noiseBlockedDirs = self::NOISE_BLOCKED_DIRS, int $maxBytes = self::DEFAULT_MAX_BYTES, bool $allowHardLinks = false)
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

        /** The tool name: file_edit. */
        public function name(): string
        {
        }

        /** The description the model reads. */
        public function description(): string
        {
        }

        /** The input schema: path, old_str, new_str. */
        public function inputSchema(): array
        {
        }

        /** Replace the unique match and return the JSON envelope; refusals throw ToolException. */
        public function execute(array $input): string
        {
        }

        /** The routing signals of file_edit. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** Clear the read log (phpClaw's FileReadLog when installed, else the extension's). */
        public function reset(): void
        {
        }

        /** The size cap. */
        public function maxBytes(): int
        {
        }
    }

    /** db_query: one read-only SQL statement run through the given PDO connection. */
    final class DatabaseQueryTool implements AuthorizableToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** The connection queries run through. */
        private \PDO $pdo;

        /** Folder of spill files; empty means the system temp folder. */
        private string $spillDir;

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** Keep the connection and the spill folder. */
        public function __construct(\PDO $pdo, string $spillDir = '')
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

        /** No examples of its own. */
        public static function examples(): array
        {
        }

        /** Check the SQL, run it, answer with at most 100 rows inline and a spill file for the rest. */
        public function execute(array $input): string
        {
        }

        /** Domains, tags, intents and examples for the router. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** The tool name, db_query. */
        public function name(): string
        {
        }

        /** The description advertised to the model. */
        public function description(): string
        {
        }

        /** The JSON Schema of the input (sql, params). */
        public function inputSchema(): array
        {
        }
    }

    /** load_skill: one registered skill's full instructions by exact name. */
    final class LoadSkillTool implements AuthorizableToolInterface, ToolInterface, ToolRoutingInterface
    {
        /** The tool name. */
        public const NAME = 'load_skill';

        /** The bound authorizer, if any. */
        private ?ToolAuthorizerInterface $authorizer = null;

        /** The Skills System section listing every registered skill; empty when there is none. */
        public static function systemPromptSection(): string
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

        /** No examples of its own. */
        public static function examples(): array
        {
        }

        /** The named skill's instructions, or UNKNOWN_SKILL listing the registered names. */
        public function execute(array $input): string
        {
        }

        /** Domains, tags, intents and examples for the router. */
        public function routingMetadata(): ToolRoutingMetadata
        {
        }

        /** The tool name, load_skill. */
        public function name(): string
        {
        }

        /** The description advertised to the model. */
        public function description(): string
        {
        }

        /** The JSON Schema of the input (name). */
        public function inputSchema(): array
        {
        }
    }

    /** The built-in tool catalogue plus this request's custom registrations. */
    final class ToolCatalogue implements \PhpClaw\AutoDiscovery\CatalogueInterface
    {
        /** Custom registrations of this request. */
        private static ?array $custom = null;

        /** Every existing built-in tool class, then the custom ones, without duplicates. */
        public static function all(): array
        {
        }

        /** Whether the class is in all(). */
        public static function has(string $class): bool
        {
        }

        /** Add a custom tool class (once). */
        public static function register(string $class): void
        {
        }

        /** Register the tool classes named by installed Composer packages. */
        public static function boot(): void
        {
        }

        /** The given classes (or all()) that exist and implement ToolInterface. */
        public static function activateEnabled(?array $enabledClasses = null): array
        {
        }

        /** activateEnabled() for the string entries of the tools_enabled setting. */
        public static function activateFromSettings(array $settings): array
        {
        }

        /** Forget the custom registrations. */
        public static function reset(): void
        {
        }

        /** Create the default tools with their config arguments and the config's authorizer. */
        public static function instantiateDefaults(array $config = []): array
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
