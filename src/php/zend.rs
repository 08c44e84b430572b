//! The one module that talks to the Zend engine below ext-php-rs's safe API: argument access,
//! calls back into PHP objects, exceptions, typed properties, class lookup at startup.
//! Every `unsafe` block in the bindings lives here.

use std::ffi::{c_char, c_int, CStr, CString};
use std::os::unix::ffi::OsStringExt;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::IntoZval;
use ext_php_rs::ffi::{
    self, zend_call_known_function, zend_class_entry, zend_function, zend_object, zend_string,
    zend_throw_exception_object, zend_type, zval,
};
use ext_php_rs::types::{ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData, ExecutorGlobals};

extern "C" {
    fn zend_declare_typed_property(
        ce: *mut zend_class_entry,
        name: *mut zend_string,
        property: *mut zval,
        access_type: c_int,
        doc_comment: *mut zend_string,
        ty: zend_type,
    ) -> *mut ffi::zend_property_info;
    fn zend_update_property_ex(
        scope: *mut zend_class_entry,
        object: *mut zend_object,
        name: *mut zend_string,
        value: *mut zval,
    );
    fn zend_read_property_ex(
        scope: *mut zend_class_entry,
        object: *mut zend_object,
        name: *mut zend_string,
        silent: bool,
        rv: *mut zval,
    ) -> *mut zval;
    fn zend_argument_type_error(arg_num: u32, format: *const c_char, ...);
    fn zend_zval_type_name(arg: *const zval) -> *const c_char;
    fn zend_wrong_parameters_count_error(min_num_args: u32, max_num_args: u32);
    fn zend_parse_arg_long_weak(arg: *mut zval, dest: *mut i64, arg_num: u32) -> bool;
    fn zend_parse_arg_str_weak(arg: *mut zval, dest: *mut *mut zend_string, arg_num: u32) -> bool;
    fn zend_is_unwind_exit(ex: *const zend_object) -> bool;
    fn zend_is_graceful_exit(ex: *const zend_object) -> bool;
    fn cfg_get_entry(name: *const c_char, name_length: usize) -> *mut zval;
    fn php_log_err_with_severity(message: *const c_char, syslog_type: c_int);
    fn zval_add_ref(p: *mut zval);
    fn virtual_getcwd(buf: *mut c_char, size: usize) -> *mut c_char;
    fn tsrm_realpath(path: *const c_char, real_path: *mut c_char) -> *mut c_char;
}

/// `MAXPATHLEN` on Linux: the size of the buffer `tsrm_realpath` fills.
const MAXPATHLEN: usize = 4096;

/// PHP's own `realpath()` of `path` (its realpath cache, then the file system; relative paths
/// against PHP's working directory), without the `open_basedir` check: None when it does not
/// resolve, or when `path` holds a NUL byte or is too long for PHP.
pub fn php_realpath(path: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    if c.as_bytes().len() >= MAXPATHLEN {
        return None;
    }
    // Not zeroed: the function writes a NUL-terminated path on success, and only then is the
    // buffer read (zeroing 4 KiB was a tenth of a tool's construction).
    let mut buf = std::mem::MaybeUninit::<[u8; MAXPATHLEN]>::uninit();
    // SAFETY: a NUL-terminated path shorter than MAXPATHLEN and a writable MAXPATHLEN buffer,
    // which the function fills with a NUL-terminated path on success (NULL on failure).
    let got = unsafe { tsrm_realpath(c.as_ptr(), buf.as_mut_ptr().cast()) };
    if got.is_null() {
        return None;
    }
    // SAFETY: on success `got` is the buffer, holding a NUL-terminated string.
    let real = unsafe { CStr::from_ptr(got) };
    Some(
        std::ffi::OsStr::from_bytes(real.to_bytes())
            .to_owned()
            .into(),
    )
}

/// PHP's working directory, as `getcwd()` in PHP answers. A thread-safe PHP keeps one per
/// thread (its virtual cwd, which `chdir()` moves) and never moves the process's; a
/// non-thread-safe PHP's `chdir()` moves the process's own, which is then the answer.
pub fn php_cwd() -> Option<std::path::PathBuf> {
    if !ext_php_rs::PHP_ZTS {
        return std::env::current_dir().ok();
    }
    let mut buf = vec![0u8; 4096];
    // SAFETY: the buffer is writable for its length; on success the function leaves a
    // NUL-terminated path in it (the running thread's virtual cwd), on failure NULL.
    let got = unsafe { virtual_getcwd(buf.as_mut_ptr().cast(), buf.len()) };
    if got.is_null() {
        return None;
    }
    let len = buf.iter().position(|&b| b == 0)?;
    buf.truncate(len);
    Some(std::ffi::OsString::from_vec(buf).into())
}

/// `ZEND_ACC_READONLY`: a property that can be initialised once, from its class scope.
pub const ACC_READONLY: u32 = 1 << 7;
/// `ZEND_ACC_STRICT_TYPES` on a function: its file declared strict_types=1.
const ACC_STRICT_TYPES: u32 = 1 << 31;
/// The `MAY_BE_*` bits of a `zend_type` mask (Zend/zend_type_info.h) the bindings declare
/// typed properties and arguments with.
pub const MAY_BE_NULL: u32 = 1 << 1;
/// `MAY_BE_FALSE | MAY_BE_TRUE`.
pub const MAY_BE_BOOL: u32 = (1 << 2) | (1 << 3);
pub const MAY_BE_LONG: u32 = 1 << 4;
pub const MAY_BE_DOUBLE: u32 = 1 << 5;
pub const MAY_BE_STRING: u32 = 1 << 6;
pub const MAY_BE_ARRAY: u32 = 1 << 7;
/// `LOG_NOTICE`, the severity PHP's `error_log()` uses for message type 0.
const LOG_NOTICE: c_int = 5;

/// A class entry registered at startup, kept for the life of the process (internal classes
/// never move or die before module shutdown).
pub struct ClassSlot(AtomicPtr<ClassEntry>);

impl ClassSlot {
    /// An empty slot, filled by the class's registration callback.
    pub const fn new() -> Self {
        Self(AtomicPtr::new(ptr::null_mut()))
    }

    /// Remember the class entry.
    pub fn set(&self, ce: &'static mut ClassEntry) {
        self.0.store(ce, Ordering::Release);
    }

    /// The class entry, if registered.
    pub fn get(&self) -> Option<&'static ClassEntry> {
        // SAFETY: only ever set from a `&'static mut ClassEntry` of an internal class.
        unsafe { self.0.load(Ordering::Acquire).as_ref() }
    }

    /// The raw pointer, for engine calls that want a mutable class entry.
    pub fn ptr(&self) -> *mut zend_class_entry {
        self.0.load(Ordering::Acquire).cast()
    }
}

/// A userland class looked up by name on every use (it may be declared or autoloaded at any
/// time, so the entry is never kept), with its name and lower-cased key made once per process
/// as permanent interned strings ([`ClassName::intern`], at startup): a lookup then allocates
/// nothing and skips the engine's lower-casing and name validation. Before `intern` it is an
/// ordinary lookup.
pub struct ClassName {
    name: &'static str,
    strings: std::sync::OnceLock<(usize, usize)>,
}

impl ClassName {
    /// The class `name` (without a leading backslash).
    pub const fn new(name: &'static str) -> Self {
        ClassName {
            name,
            strings: std::sync::OnceLock::new(),
        }
    }

    /// Make the interned strings (module startup only: interned strings made during a request
    /// die with it).
    pub fn intern(&self) {
        self.strings.get_or_init(|| {
            let make = |s: &str| {
                let z = ZendStr::new_interned(s, true);
                // Permanent interned strings live as long as the process; the box must not free it.
                ZBox::into_raw(z) as *mut ZendStr as usize
            };
            (make(self.name), make(&self.name.to_ascii_lowercase()))
        });
    }

    /// The class entry (autoloaded when unknown), None when there is no such class; Err when
    /// autoloading threw.
    pub fn find(&self) -> Result<Option<*mut zend_class_entry>, Pending> {
        let ce: *mut zend_class_entry = match self.strings.get() {
            // SAFETY: permanent interned strings (see `intern`); the engine neither frees nor
            // counts references to interned strings.
            Some(&(name, key)) => unsafe {
                ext_php_rs::ffi::zend_lookup_class_ex(name as *mut _, key as *mut _, 0)
            },
            None => ClassEntry::try_find(self.name)
                .map_or(ptr::null_mut(), |ce| ptr::from_ref(ce).cast_mut().cast()),
        };
        if !ce.is_null() {
            Ok(Some(ce))
        } else if pending() {
            Err(Pending)
        } else {
            Ok(None)
        }
    }
}

extern "C" {
    static spl_ce_RuntimeException: *mut zend_class_entry;
    static php_json_exception_ce: *mut zend_class_entry;
}

/// `JsonException` (ext/json is compiled into every PHP 8).
pub fn json_exception_ce() -> Option<&'static ClassEntry> {
    // SAFETY: set by ext/json's startup, before shared extensions start.
    unsafe { php_json_exception_ce.cast::<ClassEntry>().as_ref() }
}

/// `RuntimeException` (SPL is compiled into every PHP and starts before shared extensions).
pub fn runtime_exception_ce() -> Option<&'static ClassEntry> {
    // SAFETY: set by SPL's startup, which runs before any shared extension's.
    unsafe { spl_ce_RuntimeException.cast::<ClassEntry>().as_ref() }
}

/// The value of a php.ini directive as parsed at startup (php.ini, `-d`), before any module
/// registered it: how the module learns about `opcache.preload` during its own startup.
pub fn startup_ini(name: &str) -> Option<String> {
    let cname = CString::new(name).ok()?;
    // SAFETY: reads the engine's configuration hash, which is built before modules start.
    let zv = unsafe { cfg_get_entry(cname.as_ptr(), name.len()).as_ref() }?;
    // SAFETY: `zval` and `Zval` are the same type.
    let zv: &Zval = unsafe { &*ptr::from_ref(zv).cast::<Zval>() };
    zv.str().map(str::to_owned)
}

/// A `zend_type` for a class name (persistent interned), optionally nullable.
pub fn class_type(class: &str, nullable: bool) -> zend_type {
    let name = ZendStr::new_interned(class, true).into_raw();
    zend_type {
        ptr: name.cast(),
        type_mask: TYPE_NAME_BIT | if nullable { MAY_BE_NULL } else { 0 },
    }
}

/// A `zend_type` from a type mask (`MAY_BE_*` bits).
pub fn mask_type(type_mask: u32) -> zend_type {
    zend_type {
        ptr: ptr::null_mut(),
        type_mask,
    }
}

/// `_ZEND_TYPE_NAME_BIT`: the type names a class.
const TYPE_NAME_BIT: u32 = 1 << 24;

/// Declare a typed property on a class during startup (ext-php-rs declares untyped ones only).
/// `default` None leaves it uninitialised, as a typed property without default is.
pub fn declare_typed_property(
    ce: &mut ClassEntry,
    name: &str,
    flags: u32,
    ty: zend_type,
    default: Option<Zval>,
) {
    let name = ZendStr::new_interned(name, true).into_raw();
    let mut default = default.unwrap_or_else(|| {
        let mut undef = Zval::new();
        // SAFETY: a typed property without default is declared with an UNDEF value.
        unsafe { (*ptr::from_mut(&mut undef).cast::<zval>()).u1.type_info = ffi::IS_UNDEF };
        undef
    });
    // SAFETY: called from a registration callback during startup; the name is a persistent
    // interned string; the engine takes the (scalar) default without a reference.
    unsafe {
        zend_declare_typed_property(
            ptr::from_mut(ce).cast(),
            name.cast(),
            ptr::from_mut(&mut default).cast(),
            flags as c_int,
            ptr::null_mut(),
            ty,
        );
    }
    std::mem::forget(default);
}

/// The method `name` as the class `ce` resolves it (its own, a trait's, or inherited).
pub fn find_method(ce: *const zend_class_entry, name: &str) -> Option<*mut zend_function> {
    if ce.is_null() {
        return None;
    }
    // SAFETY: a live class; the lookup lower-cases its own copy of the name.
    let func = unsafe {
        ffi::zend_hash_str_find_ptr_lc(
            &raw const (*ce).function_table,
            name.as_ptr().cast(),
            name.len(),
        )
    }
    .cast::<zend_function>();
    (!func.is_null()).then_some(func)
}

/// Whether a method is written in PHP (a userland override of a native one).
pub fn is_user_function(func: *mut zend_function) -> bool {
    const ZEND_USER_FUNCTION: u8 = 2;
    // SAFETY: a live function from a class's method table.
    unsafe { (*func).type_ == ZEND_USER_FUNCTION }
}

/// Call a static method of `ce` (e.g. `self::x()` from a trait method).
pub fn call_static(
    ce: *mut zend_class_entry,
    func: *mut zend_function,
    args: &mut [Zval],
) -> Result<Zval, Pending> {
    let mut rv = Zval::new();
    // SAFETY: a live function and class; the engine copies the arguments.
    unsafe {
        zend_call_known_function(
            func,
            ptr::null_mut(),
            ce,
            ptr::from_mut(&mut rv).cast(),
            args.len() as u32,
            args.as_mut_ptr().cast(),
            ptr::null_mut(),
        );
    }
    if pending() {
        return Err(Pending);
    }
    Ok(rv)
}

/// A method handler's view of its call frame.
pub struct Frame<'a> {
    ex: &'a mut ExecuteData,
}

impl<'a> Frame<'a> {
    /// Wrap the frame the engine handed to a native method.
    pub fn new(ex: &'a mut ExecuteData) -> Self {
        Self { ex }
    }

    /// Number of arguments actually passed.
    pub fn num_args(&self) -> usize {
        // SAFETY: every member of the `u2` union is a u32.
        unsafe { self.ex.This.u2.num_args as usize }
    }

    /// Check the argument count against `min..=max`, raising PHP's ArgumentCountError.
    pub fn check_count(&self, min: usize, max: usize) -> bool {
        let n = self.num_args();
        if n < min || n > max {
            // SAFETY: builds the standard message from the current frame.
            unsafe { zend_wrong_parameters_count_error(min as u32, max as u32) };
            return false;
        }
        true
    }

    /// Argument `n` (0-based), dereferenced; None when not passed.
    pub fn arg(&self, n: usize) -> Option<&'a Zval> {
        if n >= self.num_args() {
            return None;
        }
        // SAFETY: n < num_args, so the slot is inside the frame, which outlives this handler.
        let zv = unsafe { self.ex.zend_call_arg(n) }?;
        let zv: &'a Zval = zv;
        Some(zv.dereference())
    }

    /// `$this`, for an instance method.
    pub fn this(&self) -> Option<&'a ZendObject> {
        let this: *const Zval = &self.ex.This;
        // SAFETY: the frame's `$this` outlives the handler.
        unsafe { (*this).object() }
    }

    /// The class the running method belongs to: for a trait method, the class that used it.
    /// Private properties a trait declares are scoped to that class.
    pub fn scope(&self) -> *mut zend_class_entry {
        // SAFETY: a running frame always has its function.
        unsafe {
            self.ex
                .func
                .as_ref()
                .map_or(ptr::null_mut(), |f| f.common.scope)
        }
    }

    /// Whether the caller declared strict_types (PHP's `ZEND_ARG_USES_STRICT_TYPES`).
    pub fn strict(&self) -> bool {
        // SAFETY: the previous frame, when present, is live while this one runs.
        unsafe {
            self.ex
                .prev_execute_data
                .as_ref()
                .and_then(|prev| prev.func.as_ref())
                .is_some_and(|f| f.common.fn_flags & ACC_STRICT_TYPES != 0)
        }
    }

    /// Argument `n` that must be an array, or a pending TypeError.
    pub fn array(&self, n: usize) -> Option<&'a Zval> {
        let zv = self.arg(n)?;
        if zv.is_array() {
            Some(zv)
        } else {
            type_error(n, "array", zv);
            None
        }
    }

    /// Argument `n` that must be an int (PHP's coercion in weak mode), or a pending TypeError.
    pub fn long(&self, n: usize) -> Option<i64> {
        let zv = self.arg(n)?;
        if let Some(v) = zv.long() {
            return Some(v);
        }
        // null is refused even in weak mode: these methods stand in for PHP-declared ones,
        // and only internal functions accept null for a scalar (with a deprecation).
        if !self.strict() && !zv.is_null() {
            let mut out: i64 = 0;
            // SAFETY: PHP's own weak-mode conversion (numeric strings, integral floats, bools,
            // with its deprecation notices) on the frame's argument.
            if unsafe { zend_parse_arg_long_weak(arg_ptr(zv), &mut out, (n + 1) as u32) } {
                return Some(out);
            }
            if pending() {
                return None;
            }
        }
        type_error(n, "int", zv);
        None
    }

    /// Argument `n` that must be a string (weak mode converts scalars and Stringable objects
    /// exactly as PHP does), or a pending TypeError.
    pub fn string(&self, n: usize) -> Option<Vec<u8>> {
        let zv = self.arg(n)?;
        if let Some(s) = zv.zend_str() {
            return Some(s.as_bytes().to_vec());
        }
        if !self.strict() && !zv.is_null() {
            let mut out: *mut zend_string = ptr::null_mut();
            // SAFETY: PHP's own weak-mode conversion; it may convert the frame's argument slot
            // in place, as parameter parsing does.
            if unsafe { zend_parse_arg_str_weak(arg_ptr(zv), &mut out, (n + 1) as u32) } {
                // SAFETY: on success `out` points at the converted string, owned by the slot.
                if let Some(s) = unsafe { out.cast::<ZendStr>().as_ref() } {
                    return Some(s.as_bytes().to_vec());
                }
            }
            if pending() {
                return None;
            }
        }
        type_error(n, "string", zv);
        None
    }

    /// Argument `n` that must be an object of `ce` (or null when `nullable`).
    pub fn object_of(
        &self,
        n: usize,
        ce: &ClassEntry,
        nullable: bool,
    ) -> Option<Option<&'a ZendObject>> {
        let zv = self.arg(n)?;
        if nullable && zv.is_null() {
            return Some(None);
        }
        if let Some(obj) = zv.object() {
            if obj.instance_of(ce) {
                return Some(Some(obj));
            }
        }
        let name = ce.name().unwrap_or("object");
        let expected = if nullable {
            format!("?{name}")
        } else {
            name.to_owned()
        };
        type_error(n, &expected, zv);
        None
    }
}

/// The frame slot behind a borrowed argument, for PHP's in-place argument conversions.
fn arg_ptr(zv: &Zval) -> *mut zval {
    ptr::from_ref(zv).cast_mut().cast()
}

/// Raise PHP's standard TypeError for argument `n` (0-based) of the running function.
pub fn type_error(n: usize, expected: &str, given: &Zval) {
    let fmt = CString::new(format!(
        "must be of type {}, %s given",
        expected.replace('%', "%%")
    ))
    .unwrap_or_default();
    // SAFETY: the format has exactly one %s, fed the engine's own type name.
    unsafe {
        zend_argument_type_error(
            (n + 1) as u32,
            fmt.as_ptr(),
            zend_zval_type_name(ptr::from_ref(given).cast()),
        );
    }
}

/// A PHP exception object taken from the engine, owned until it is thrown again.
pub struct Thrown(Option<ZBox<ZendObject>>);

impl Thrown {
    /// Take the pending exception, if any. `exit()` and fatal errors unwind the stack with an
    /// internal marker that is not an exception: that one is never taken (None), so it keeps
    /// unwinding to the end of the script.
    pub fn take() -> Option<Self> {
        if !pending() || exiting() {
            return None;
        }
        ExecutorGlobals::take_exception().map(|e| Self(Some(e)))
    }

    /// Whatever is pending, taken when it is an exception, left in the engine when it is the
    /// exit marker (then `object()` is None and `rethrow()` does nothing).
    pub fn take_pending() -> Self {
        Self::take().unwrap_or(Self(None))
    }

    /// The exception object, unless the exit marker was left pending.
    pub fn object(&self) -> Option<&ZendObject> {
        self.0.as_deref()
    }

    /// Whether it is an instance of `ce`.
    pub fn is(&self, ce: Option<&ClassEntry>) -> bool {
        matches!((self.object(), ce), (Some(o), Some(ce)) if o.instance_of(ce))
    }

    /// Throw it again: the same object, so its file, line and trace are unchanged.
    pub fn rethrow(self) {
        if let Some(obj) = self.0 {
            throw_zval(owned_object_zval(obj));
        }
    }

    /// Wrap an object the caller owns (e.g. an argument) without taking it from the engine.
    pub fn from_object(obj: &ZendObject) -> Self {
        let raw = obj_ptr(obj);
        add_object_ref(raw);
        // SAFETY: a live refcounted object; the box owns the reference added just above.
        unsafe { Self(Some(ZBox::from_raw(raw.cast()))) }
    }
}

/// A zval that takes over the reference an owned object box holds.
pub fn owned_object_zval(obj: ZBox<ZendObject>) -> Zval {
    let mut zv = Zval::new();
    // Moving an owned object into a zval cannot fail.
    let _ = obj.set_zval(&mut zv, false);
    zv
}

fn throw_zval(zv: Zval) {
    let mut zv = std::mem::ManuallyDrop::new(zv);
    // SAFETY: the engine takes over the object reference held by `zv`.
    unsafe { zend_throw_exception_object(ptr::from_mut(&mut *zv).cast()) };
}

/// The call ended with an exception pending in the engine.
#[derive(Debug)]
pub struct Pending;

/// The engine's pending exception pointer, read straight from the executor globals.
/// ext-php-rs's `ExecutorGlobals::get()` takes a process-wide lock for every read; the engine
/// itself never takes one (the globals belong to the running thread), and no Rust code here
/// holds a guard across this call, so a plain read is what the engine's own EG(exception) is.
fn pending_exception() -> *mut zend_object {
    // SAFETY: the executor globals are static (per thread under ZTS) for the process's life.
    unsafe {
        ffi::ext_php_rs_executor_globals()
            .as_ref()
            .map_or(ptr::null_mut(), |eg| eg.exception)
    }
}

/// Whether an exception is pending.
pub fn pending() -> bool {
    !pending_exception().is_null()
}

/// Whether the pending "exception" is the marker `exit()` and fatal errors unwind with.
pub fn exiting() -> bool {
    let ex = pending_exception();
    // SAFETY: the engine's pending exception pointer, checked for null first.
    !ex.is_null()
        && unsafe { zend_is_unwind_exit(ex.cast_const()) || zend_is_graceful_exit(ex.cast_const()) }
}

/// The engine's pointer to an object we were handed by shared reference. The engine mutates
/// objects behind our back (refcounts, properties), so every write goes through this pointer,
/// laundered with `black_box` so the compiler cannot treat the memory as read-only because a
/// `&ZendObject` to it exists.
pub fn obj_ptr(obj: &ZendObject) -> *mut zend_object {
    std::hint::black_box(ptr::from_ref(obj).cast_mut().cast())
}

/// A zval holding a new reference to `obj` (`ZVAL_OBJ_COPY`).
pub fn object_zval(obj: &ZendObject) -> Zval {
    let raw = obj_ptr(obj);
    let mut zv = Zval::new();
    let out: *mut zval = ptr::from_mut(&mut zv).cast();
    add_object_ref(raw);
    // SAFETY: a live, refcounted object; the new zval owns the reference added just above.
    unsafe {
        (*out).value.obj = raw;
        (*out).u1.type_info = IS_OBJECT_EX;
    }
    zv
}

/// Add a reference to a live object, done by the engine (`zval_add_ref`). Incrementing
/// `gc.refcount` from Rust through a pointer derived from a `&ZendObject` is undefined
/// behaviour the optimiser may drop, and release builds did drop it: an authorizer bound with
/// withAuthorizer() was freed while the tool still pointed at it.
fn add_object_ref(raw: *mut zend_object) {
    let mut tmp = std::mem::MaybeUninit::<zval>::zeroed();
    // SAFETY: a zval naming the live object, handed to the engine's own add-ref; the temporary
    // is never destroyed, so the reference stays with the caller's new owner.
    unsafe {
        let p = tmp.as_mut_ptr();
        (*p).value.obj = raw;
        (*p).u1.type_info = IS_OBJECT_EX;
        zval_add_ref(p);
    }
}

/// `IS_OBJECT_EX`: object type with the refcounted and collectable flags.
const IS_OBJECT_EX: u32 = ffi::IS_OBJECT | (1 << 8) | (1 << 9);

/// Call `$obj->name(...args)` through the engine: the lookup goes through the object's own
/// class, so a PHP override wins, and visibility is not checked (protected methods work).
pub fn call_method(obj: &ZendObject, name: &str, args: &mut [Zval]) -> Result<Zval, Pending> {
    let lc = name.to_ascii_lowercase();
    // SAFETY: `obj.ce` is the object's live class; the table holds `zend_function` pointers.
    let func = unsafe {
        ffi::zend_hash_str_find_ptr_lc(
            &raw const (*obj.ce).function_table,
            lc.as_ptr().cast(),
            lc.len(),
        )
    }
    .cast::<zend_function>();
    if func.is_null() {
        let class = obj.get_class_name().unwrap_or_default();
        throw_error(&format!("Call to undefined method {class}::{name}()"));
        return Err(Pending);
    }
    let mut rv = Zval::new();
    // SAFETY: the engine copies the arguments into the new frame; we keep ownership of ours.
    unsafe {
        zend_call_known_function(
            func,
            obj_ptr(obj),
            obj.ce,
            ptr::from_mut(&mut rv).cast(),
            args.len() as u32,
            args.as_mut_ptr().cast(),
            ptr::null_mut(),
        );
    }
    if pending() {
        return Err(Pending);
    }
    Ok(rv)
}

/// A new reference to the same value (refcount +1).
pub fn share(zv: &Zval) -> Zval {
    zv.shallow_clone()
}

/// A string zval from bytes.
pub fn bytes_zval(bytes: &[u8]) -> Zval {
    let mut zv = Zval::new();
    zv.set_zend_string(ZendStr::new(bytes, false));
    zv
}

/// A string zval from text.
pub fn str_zval(s: &str) -> Zval {
    bytes_zval(s.as_bytes())
}

/// An array zval from (key, value) pairs with string keys, in order.
pub fn assoc(pairs: Vec<(&str, Zval)>) -> Zval {
    let mut ht = ZendHashTable::with_capacity(pairs.len() as u32);
    for (k, v) in pairs {
        // Inserting into a fresh array with string keys cannot fail.
        let _ = ht.insert(k, v);
    }
    let mut zv = Zval::new();
    zv.set_hashtable(ht);
    zv
}

/// Read a property with the given scope (private trait properties need the using class).
pub fn read_property(scope: *mut zend_class_entry, obj: &ZendObject, name: &str) -> Option<Zval> {
    let name = ZendStr::new(name, false);
    let mut rv = Zval::new();
    // SAFETY: a live object and class; reading an uninitialised typed property throws, as
    // the same read in PHP would.
    let found = unsafe {
        zend_read_property_ex(
            scope,
            obj_ptr(obj),
            ptr::from_ref(&*name).cast_mut().cast(),
            false,
            ptr::from_mut(&mut rv).cast(),
        )
    };
    if pending() {
        return None;
    }
    // SAFETY: the engine returns either `rv` or a pointer into the object's property table.
    let found = unsafe { found.cast::<Zval>().as_ref() }?;
    Some(found.dereference().shallow_clone())
}

/// Write a property with the given scope (which also lets a class initialise its readonly
/// properties).
pub fn write_property(
    scope: *mut zend_class_entry,
    obj: &ZendObject,
    name: &str,
    value: &mut Zval,
) {
    let name = ZendStr::new(name, false);
    // SAFETY: a live object and class; the engine copies the value.
    unsafe {
        zend_update_property_ex(
            scope,
            obj_ptr(obj),
            ptr::from_ref(&*name).cast_mut().cast(),
            ptr::from_mut(value).cast(),
        );
    }
}

/// Instantiate `ce` and run its constructor with `args`; the new object, or a pending exception.
pub fn instantiate(ce: &ClassEntry, args: &mut [Zval]) -> Result<ZBox<ZendObject>, Pending> {
    let obj = ZendObject::new(ce);
    call_method(&obj, "__construct", args)?;
    Ok(obj)
}

/// Throw a new `ce` exception with a message, code and optional previous throwable.
pub fn throw_new(ce: &ClassEntry, message: &str, code: i64, previous: Option<Thrown>) {
    let prev = match previous.and_then(|p| p.0) {
        Some(p) => owned_object_zval(p),
        None => Zval::null(),
    };
    let mut code_zv = Zval::new();
    code_zv.set_long(code);
    let mut args = [str_zval(message), code_zv, prev];
    if let Ok(obj) = instantiate(ce, &mut args) {
        throw_zval(owned_object_zval(obj));
    }
}

/// Throw a new `ce` with `message` (code 0, no previous) the way PHP's own C functions do
/// (`zend_throw_exception`: properties set, no `__construct` call back into the engine), for
/// classes whose constructor is Exception's own; a message holding a NUL byte (which the C
/// string would cut) goes through [`throw_new`].
pub fn throw_plain(ce: &ClassEntry, message: &str) {
    let Ok(c) = CString::new(message) else {
        return throw_new(ce, message, 0, None);
    };
    // SAFETY: a registered class entry and a NUL-terminated message the engine copies.
    unsafe { ffi::zend_throw_exception(ptr::from_ref(ce).cast_mut().cast(), c.as_ptr(), 0) };
}

/// Throw PHP's `\Error` with a message.
pub fn throw_error(message: &str) {
    // SAFETY: zend_ce_error is set at engine startup.
    if let Some(ce) = unsafe { ffi::zend_ce_error.cast::<ClassEntry>().as_ref() } {
        throw_new(ce, message, 0, None);
    }
}

/// Write a line to PHP's error log exactly as `error_log($message)` does.
pub fn error_log(message: &[u8]) {
    // error_log() hands PHP's logger a C string: the message ends at its first NUL byte.
    let end = message
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(message.len());
    if let Ok(c) = CString::new(&message[..end]) {
        // SAFETY: a valid C string; PHP routes it to the configured error log.
        unsafe { php_log_err_with_severity(c.as_ptr(), LOG_NOTICE) };
    }
}

/// Move every method of an internal trait into a zeroed block the size of a full
/// `zend_function`: when PHP copies a trait method under a renamed alias it copies that many
/// bytes, which would read past the end of an internal function's smaller allocation.
pub fn pad_trait_methods(ce: &mut ClassEntry) {
    let size = std::mem::size_of::<zend_function>();
    let internal = std::mem::size_of::<ffi::zend_internal_function>();
    let table: *mut ffi::HashTable = &raw mut ce.function_table;
    // SAFETY: startup, single-threaded; each bucket holds a malloc'ed internal function that
    // the engine frees with `free()` at shutdown, which is what we allocate with too.
    unsafe {
        let ht = &mut *table;
        for i in 0..ht.nNumUsed as usize {
            let bucket = ht.__bindgen_anon_1.arData.add(i);
            let val = &mut (*bucket).val;
            if val.u1.type_info & 0xff != ffi::IS_PTR {
                continue;
            }
            let old = val.value.ptr.cast::<u8>();
            let new = libc_calloc(1, size).cast::<u8>();
            if new.is_null() {
                continue;
            }
            ptr::copy_nonoverlapping(old, new, internal);
            val.value.ptr = new.cast();
            libc_free(old.cast());
        }
    }
}

extern "C" {
    #[link_name = "calloc"]
    fn libc_calloc(n: usize, size: usize) -> *mut std::ffi::c_void;
    #[link_name = "free"]
    fn libc_free(p: *mut std::ffi::c_void);
}

/// An array key exactly as PHP stores it: an integer, or a byte string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Key<'a> {
    /// An integer key.
    Int(i64),
    /// A string key (bytes, not necessarily UTF-8).
    Str(&'a [u8]),
}

const HASH_FLAG_PACKED: u32 = 1 << 2;

/// Visit every live entry of a PHP array in order, with its exact key, dereferencing
/// indirect slots. Stops early when `f` returns false.
pub fn for_each_entry<'a>(ht: &'a ZendHashTable, mut f: impl FnMut(Key<'a>, &'a Zval) -> bool) {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; we read `nNumUsed` slots of the storage its flags say it uses,
    // skipping holes (UNDEF), exactly as the engine's own foreach does.
    unsafe {
        let ht = &*raw;
        let used = ht.nNumUsed as usize;
        if ht.u.flags & HASH_FLAG_PACKED != 0 {
            let data = ht.__bindgen_anon_1.arPacked;
            for i in 0..used {
                let zv = &*data.add(i).cast::<Zval>();
                if let Some(zv) = live(zv) {
                    if !f(Key::Int(i as i64), zv) {
                        return;
                    }
                }
            }
        } else {
            let data = ht.__bindgen_anon_1.arData;
            for i in 0..used {
                let bucket = &*data.add(i);
                let zv = &*ptr::from_ref(&bucket.val).cast::<Zval>();
                let Some(zv) = live(zv) else { continue };
                let key = match bucket.key.cast::<ZendStr>().as_ref() {
                    Some(s) => Key::Str(s.as_bytes()),
                    None => Key::Int(bucket.h as i64),
                };
                if !f(key, zv) {
                    return;
                }
            }
        }
    }
}

fn live(zv: &Zval) -> Option<&Zval> {
    let raw: *const zval = ptr::from_ref(zv).cast();
    // SAFETY: reading the type byte and, for INDIRECT, the pointer it holds.
    unsafe {
        match (*raw).u1.type_info & 0xff {
            t if t == ffi::IS_UNDEF => None,
            t if t == ffi::IS_INDIRECT => {
                let inner = (*raw).value.zv.cast::<Zval>().as_ref()?;
                if (*ptr::from_ref(inner).cast::<zval>()).u1.type_info & 0xff == ffi::IS_UNDEF {
                    None
                } else {
                    Some(inner.dereference())
                }
            }
            _ => Some(zv.dereference()),
        }
    }
}

/// Look a key up in a PHP array.
pub fn get<'a>(ht: &'a ZendHashTable, key: &str) -> Option<&'a Zval> {
    let zv = ht.get(key)?;
    Some(zv.dereference())
}

/// Look a key given as bytes up in a PHP array (a canonical integer string finds the integer
/// key, as PHP's own lookup does).
pub fn get_bytes<'a>(ht: &'a ZendHashTable, key: &[u8]) -> Option<&'a Zval> {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; the lookups only read it.
    let zv = unsafe {
        match canonical_int(key) {
            Some(i) => ffi::zend_hash_index_find(raw, i as u64),
            None => ffi::zend_hash_str_find(raw, key.as_ptr().cast(), key.len()),
        }
    };
    // SAFETY: a live slot of the array, valid as long as the array is.
    let zv = unsafe { zv.cast::<Zval>().as_ref()? };
    live(zv)
}

/// Set `key` in an array, keeping PHP's key semantics (a string key that is a canonical
/// integer is stored as that integer).
pub fn set(ht: &mut ZendHashTable, key: Key<'_>, value: Zval) {
    let value = std::mem::ManuallyDrop::new(value);
    let raw: *mut ffi::HashTable = ptr::from_mut(ht).cast();
    let val: *mut zval = ptr::from_ref(&*value).cast_mut().cast();
    // SAFETY: the array owns the value afterwards (update takes it without copying).
    unsafe {
        match key {
            Key::Int(i) => {
                ffi::zend_hash_index_update(raw, i as u64, val);
            }
            Key::Str(bytes) => match canonical_int(bytes) {
                Some(i) => {
                    ffi::zend_hash_index_update(raw, i as u64, val);
                }
                None => {
                    let k = ZendStr::new(bytes, false);
                    ffi::zend_hash_update(raw, ptr::from_ref(&*k).cast_mut().cast(), val);
                }
            },
        }
    }
}

/// Append to an array at its next free integer index.
pub fn push(ht: &mut ZendHashTable, value: Zval) {
    let value = std::mem::ManuallyDrop::new(value);
    let raw: *mut ffi::HashTable = ptr::from_mut(ht).cast();
    // SAFETY: the array owns the value afterwards.
    unsafe {
        ffi::zend_hash_next_index_insert(raw, ptr::from_ref(&*value).cast_mut().cast());
    }
}

/// PHP's numeric-string key rule (`ZEND_HANDLE_NUMERIC_STR`): "6" and "-3" are integer keys,
/// "06", "+1", "-0", " 1" and anything out of range stay strings.
pub fn canonical_int(bytes: &[u8]) -> Option<i64> {
    let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
    if digits.is_empty() || digits.len() > 20 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if (digits[0] == b'0' && digits.len() > 1) || bytes == b"-0" {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse::<i64>().ok()
}

/// A new array zval built by `f`.
pub fn build_array(capacity: u32, f: impl FnOnce(&mut ZendHashTable)) -> Zval {
    let mut ht = ZendHashTable::with_capacity(capacity);
    f(&mut ht);
    let mut zv = Zval::new();
    zv.set_hashtable(ht);
    zv
}

/// The `Throwable` interface.
pub fn throwable_ce() -> Option<&'static ClassEntry> {
    // SAFETY: set at engine startup.
    unsafe { ffi::zend_ce_throwable.cast::<ClassEntry>().as_ref() }
}

/// Call a PHP function by name (used for the few engine services without a C entry point
/// we can reach, e.g. `json_encode` as a fallback for objects).
pub fn call_function(name: &str, args: &mut [Zval]) -> Result<Zval, Pending> {
    let mut callable = Zval::new();
    let _ = callable.set_string(name, false);
    let Ok(f) = ext_php_rs::types::ZendCallable::new(&callable) else {
        throw_error(&format!("Call to undefined function {name}()"));
        return Err(Pending);
    };
    let params: Vec<&dyn ext_php_rs::convert::IntoZvalDyn> = args
        .iter()
        .map(|a| a as &dyn ext_php_rs::convert::IntoZvalDyn)
        .collect();
    match f.try_call(params) {
        Ok(v) if !pending() => Ok(v),
        _ => Err(Pending),
    }
}

/// Where the declared property `name` of `ce` lives inside its objects (the engine's
/// `property_info->offset`, in bytes from the object's start), for [`declared_slot`]. Read it
/// once the class is declared (its registration callback); it never moves for a final class.
pub fn property_offset(ce: &ClassEntry, name: &str) -> Option<u32> {
    // SAFETY: a live class; `properties_info` maps names to `zend_property_info` pointers.
    unsafe {
        let zv = ffi::zend_hash_str_find(
            &raw const ce.properties_info,
            name.as_ptr().cast(),
            name.len(),
        )
        .as_ref()?;
        let info = zv.value.ptr.cast::<ffi::zend_property_info>().as_ref()?;
        Some(info.offset)
    }
}

/// Initialise the declared property at `offset` of `obj` (from [`property_offset`] for `obj`'s
/// own class) with `value`, as the engine's first write to a typed property does (value in,
/// property flags cleared), when the slot is still uninitialised: no name lookup, no allocation.
/// The caller vouches that `value` has the property's type and that its scope may initialise
/// it. The value comes back when the slot is already set (write through the engine then, which
/// raises PHP's own readonly Error) or the offset is unknown.
pub fn init_slot(obj: &ZendObject, offset: u32, value: Zval) -> Result<(), Zval> {
    if offset == 0 {
        return Err(value);
    }
    // SAFETY: as in `declared_slot`, `offset` points at one of the object's declared property
    // slots; an uninitialised slot owns nothing, so overwriting it leaks nothing, and the
    // value's reference moves into the slot (it is not dropped here).
    unsafe {
        // Through `obj_ptr`: the slot is written, which a pointer taken from the shared
        // reference itself must not do (the optimiser would drop the stores).
        let slot = obj_ptr(obj)
            .cast::<u8>()
            .add(offset as usize)
            .cast::<zval>();
        if (*slot).u1.type_info & 0xff != ffi::IS_UNDEF {
            return Err(value);
        }
        let value = std::mem::ManuallyDrop::new(value);
        let src = ptr::from_ref(&*value).cast::<zval>();
        (*slot).value = (*src).value;
        (*slot).u1 = (*src).u1;
        // Z_PROP_FLAG_P(slot) = 0: initialised (the engine's write clears IS_PROP_UNINIT).
        (*slot).u2.extra = 0;
    }
    Ok(())
}

/// The declared property at `offset` of `obj` (from [`property_offset`] for `obj`'s own
/// class), dereferenced; None while it is uninitialised (then read it with [`read_property`],
/// which raises PHP's own Error). No lookup, no allocation, no copy.
pub fn declared_slot(obj: &ZendObject, offset: u32) -> Option<&Zval> {
    if offset == 0 {
        return None;
    }
    // SAFETY: for an object of the class the offset was taken from, `offset` points at one of
    // the object's declared property slots, which live as long as the object.
    unsafe {
        let slot = ptr::from_ref(obj)
            .cast::<u8>()
            .add(offset as usize)
            .cast::<Zval>()
            .as_ref()?;
        if (*ptr::from_ref(slot).cast::<zval>()).u1.type_info & 0xff == ffi::IS_UNDEF {
            return None;
        }
        Some(slot.dereference())
    }
}
