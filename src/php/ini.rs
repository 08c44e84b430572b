//! The module's php.ini settings, read at call time. All but one are php.ini-only
//! (`PHP_INI_SYSTEM`: php.ini or `php -d`, never `ini_set()`, so a site's code cannot weaken
//! them):
//! - `phpclaw.shell_sandbox` (`auto`, `required`, `off`; default `auto`): whether shell_exec's
//!   children run under the kernel sandbox (see `core::sandbox::Mode`).
//! - `phpclaw.durable_writes` (bool, default 0; `PHP_INI_ALL`): file_write and file_edit sync
//!   the new file and its folder before answering. Settable anywhere, `ini_set()` included:
//!   it trades speed for surviving a power loss and weakens nothing (every write is atomic
//!   either way), so a script that saves something precious may turn it on for itself.
//! - `phpclaw.search_cache_size` (bytes, `K`/`M`/`G` suffixes as `memory_limit`; default
//!   `16M`): code_search's tree cache per process (`code_search::tree_cache`); `0` turns it
//!   off. Set at module startup.
//!
//! The others are TEST-ONLY:
//! - `phpclaw.test_allow_loopback` (bool, default 0): SSRF validation of remote tool profiles
//!   also accepts 127.0.0.0/8 and `::1` (nothing else), so tests can serve a profile locally.
//! - `phpclaw.test_ca_file` (path, default empty): a PEM bundle trusted in addition to the
//!   built-in roots for outbound HTTPS, so tests can use a self-signed certificate.
//! - `phpclaw.test_sandbox_abi`, `phpclaw.test_shell_trust_arguments`: see the README.
//! - `phpclaw.test_db_time_budget_ms` (integer, default 0 = the built-in 5000): a shorter
//!   time budget for db_query, so timeout tests run fast. It can only shorten the budget.

use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;

use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::zend::{IniEntryDef, IniEntryDefs, ModuleEntry};

use crate::core::sandbox::{kernel_abi, Mode};

/// Name of the loopback allowance.
pub const ALLOW_LOOPBACK: &CStr = c"phpclaw.test_allow_loopback";
/// Name of the extra CA bundle path.
pub const CA_FILE: &CStr = c"phpclaw.test_ca_file";
/// Name of the shell sandbox mode.
pub const SHELL_SANDBOX: &CStr = c"phpclaw.shell_sandbox";
/// Name of the test-only Landlock ABI override.
pub const TEST_SANDBOX_ABI: &CStr = c"phpclaw.test_sandbox_abi";
/// Name of the test-only switch that approves any arguments of an allowlisted program.
pub const TEST_TRUST_ARGUMENTS: &CStr = c"phpclaw.test_shell_trust_arguments";

/// Name of db_query's shorter test time budget.
pub const DB_TIME_BUDGET_MS: &CStr = c"phpclaw.test_db_time_budget_ms";

/// Name of the durable-writes switch.
pub const DURABLE_WRITES: &CStr = c"phpclaw.durable_writes";

/// Name of code_search's tree cache budget.
pub const SEARCH_CACHE_SIZE: &CStr = c"phpclaw.search_cache_size";

static ENTRIES: IniEntryDefs<9> = IniEntryDefs::new([
    IniEntryDef::new(ALLOW_LOOPBACK, c"0", IniEntryPermission::System),
    IniEntryDef::new(CA_FILE, c"", IniEntryPermission::System),
    IniEntryDef::new(SHELL_SANDBOX, c"auto", IniEntryPermission::System),
    IniEntryDef::new(TEST_SANDBOX_ABI, c"", IniEntryPermission::System),
    IniEntryDef::new(TEST_TRUST_ARGUMENTS, c"0", IniEntryPermission::System),
    IniEntryDef::new(DB_TIME_BUDGET_MS, c"0", IniEntryPermission::System),
    IniEntryDef::new(DURABLE_WRITES, c"0", IniEntryPermission::All),
    IniEntryDef::new(SEARCH_CACHE_SIZE, c"16M", IniEntryPermission::System),
    IniEntryDef::end(),
]);

extern "C" {
    fn zend_ini_string_ex(
        name: *const c_char,
        name_length: usize,
        orig: c_int,
        exists: *mut bool,
    ) -> *mut c_char;
    fn zend_unregister_ini_entries_ex(module_number: c_int, module_type: c_int);
    fn display_ini_entries(module: *mut ModuleEntry);
}

/// Register the settings (module startup).
pub fn register(module_number: i32) {
    IniEntryDef::register(ENTRIES.as_slice(), module_number);
}

/// Remove the settings (module shutdown), as C extensions do.
pub fn unregister(module_type: i32, module_number: i32) {
    // SAFETY: module shutdown, with the numbers the engine passed.
    unsafe { zend_unregister_ini_entries_ex(module_number, module_type) };
}

/// The settings' rows in `php --ri phpclaw` / phpinfo().
pub fn display(module: *mut ModuleEntry) {
    // SAFETY: the module entry the engine handed to the info function.
    unsafe { display_ini_entries(module) };
}

fn current(name: &CStr) -> Option<Vec<u8>> {
    let mut exists = false;
    // SAFETY: reads the registered directive's current value; the pointer stays valid while
    // the directive is not modified, and the bytes are copied at once.
    unsafe {
        let p = zend_ini_string_ex(name.as_ptr(), name.count_bytes(), 0, &raw mut exists);
        if !exists || p.is_null() {
            return None;
        }
        Some(CStr::from_ptr(p).to_bytes().to_vec())
    }
}

/// PHP's `zend_ini_parse_bool`: `true`, `yes`, `on` (any case) or a non-zero integer prefix.
fn parse_bool(v: &[u8]) -> bool {
    let lower = v.to_ascii_lowercase();
    if matches!(lower.as_slice(), b"true" | b"yes" | b"on") {
        return true;
    }
    let t = std::str::from_utf8(&lower).unwrap_or("").trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse::<i64>().is_ok_and(|n| n != 0)
}

/// Whether the loopback allowance is on.
pub fn allow_loopback() -> bool {
    current(ALLOW_LOOPBACK).is_some_and(|v| parse_bool(&v))
}

/// Whether file_write and file_edit sync what they write (read per call: `ini_set()` may
/// change it between calls).
pub fn durable_writes() -> bool {
    current(DURABLE_WRITES).is_some_and(|v| parse_bool(&v))
}

/// code_search's tree cache budget in bytes: a count with an optional `K`, `M` or `G` (any
/// case), as PHP reads `memory_limit`; anything else keeps the built-in default.
pub fn search_cache_size() -> usize {
    current(SEARCH_CACHE_SIZE)
        .and_then(|v| crate::core::tools::code_search::tree_cache::parse_budget(&v))
        .unwrap_or(crate::core::tools::code_search::tree_cache::BUDGET_DEFAULT)
}

/// PHP's own `pcre.jit` (on when PCRE is built without the setting): code_search compiles
/// its patterns the way `preg_match` would.
pub fn pcre_jit() -> bool {
    current(c"pcre.jit").map_or(true, |v| parse_bool(&v))
}

/// The shell settings, read once per process: they are php.ini-only (`PHP_INI_SYSTEM`), so
/// they cannot change once requests run, and every shell_exec call (refusals included) needs
/// them.
struct ShellSettings {
    sandbox: Mode,
    abi: i32,
    trust_arguments: bool,
}

fn shell_settings() -> &'static ShellSettings {
    static SETTINGS: std::sync::OnceLock<ShellSettings> = std::sync::OnceLock::new();
    SETTINGS.get_or_init(|| ShellSettings {
        sandbox: current(SHELL_SANDBOX)
            .and_then(|v| Mode::parse(&String::from_utf8_lossy(&v)))
            .unwrap_or(Mode::Required),
        abi: current(TEST_SANDBOX_ABI)
            .and_then(|v| String::from_utf8_lossy(&v).trim().parse::<i32>().ok())
            .unwrap_or_else(kernel_abi),
        trust_arguments: current(TEST_TRUST_ARGUMENTS).is_some_and(|v| parse_bool(&v)),
    })
}

/// `phpclaw.shell_sandbox`; a value that is none of the three counts as `required`, so a typo
/// never loosens confinement.
pub fn shell_sandbox() -> Mode {
    shell_settings().sandbox
}

/// The Landlock ABI shell_exec works with: the kernel's, unless the test-only
/// `phpclaw.test_sandbox_abi` pretends another (`0`: a kernel without Landlock).
pub fn sandbox_abi() -> i32 {
    shell_settings().abi
}

/// Whether the test-only argument trust is on.
pub fn trust_arguments() -> bool {
    shell_settings().trust_arguments
}

/// db_query's test time budget in milliseconds, when one is set (a positive integer).
pub fn db_time_budget_ms() -> Option<u64> {
    let v = current(DB_TIME_BUDGET_MS)?;
    std::str::from_utf8(&v)
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|&ms| ms > 0)
}

/// The extra CA bundle, if one is configured.
pub fn ca_file() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let v = current(CA_FILE)?;
    if v.is_empty() {
        None
    } else {
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(&v)))
    }
}
