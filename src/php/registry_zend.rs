//! Low-level helpers for the registry and the remote activator, beside `zend.rs`: declared
//! properties read and written in place through their slots, array entries replaced without
//! running a destructor mid-update, PHP warnings and TypeErrors with a given message, bool
//! arguments, and superglobal lookups.

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use ext_php_rs::ffi::{self, zend_class_entry, zend_object, zend_string, zend_type, zval};
use ext_php_rs::types::{ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecutorGlobals};

use super::zend::{self, canonical_int, Frame, Key};

extern "C" {
    fn zend_declare_typed_property(
        ce: *mut zend_class_entry,
        name: *mut zend_string,
        property: *mut zval,
        access_type: c_int,
        doc_comment: *mut zend_string,
        ty: zend_type,
    ) -> *mut ffi::zend_property_info;
    fn zend_error(ty: c_int, format: *const c_char, ...);
    fn zend_type_error(format: *const c_char, ...);
    fn zend_is_auto_global_str(name: *const c_char, len: usize) -> bool;
    static zend_empty_array: ffi::HashTable;
}

/// `E_WARNING`.
const E_WARNING: c_int = 2;
/// `_ZEND_TYPE_NAME_BIT`: the type names a class.
const TYPE_NAME_BIT: u32 = 1 << 24;
/// `MAY_BE_NULL` is also `_ZEND_TYPE_NULLABLE_BIT`.
pub use super::zend::MAY_BE_NULL;
/// `IS_ARRAY` with the refcounted and collectable flags.
const IS_ARRAY_EX: u32 = ffi::IS_ARRAY | (1 << 8) | (1 << 9);
/// `IS_TYPE_REFCOUNTED` in a zval's type flags.
const TYPE_REFCOUNTED: u32 = 1 << 8;

/// A property's default at declaration.
pub enum Default {
    /// No default (typed property left uninitialised until the constructor runs).
    None,
    /// `[]`.
    EmptyArray,
}

/// Declare a typed property at startup: `type_mask` bits, optionally naming a class.
pub fn declare_property(
    ce: &mut ClassEntry,
    name: &str,
    flags: u32,
    type_mask: u32,
    class_name: Option<&str>,
    default: Default,
) {
    let name = ZendStr::new_interned(name, true).into_raw();
    let mut value = Zval::new();
    let raw: *mut zval = ptr::from_mut(&mut value).cast();
    // SAFETY: an UNDEF or immutable empty-array default, as C extensions declare them.
    unsafe {
        match default {
            Default::None => (*raw).u1.type_info = ffi::IS_UNDEF,
            Default::EmptyArray => {
                (*raw).value.arr = (&raw const zend_empty_array).cast_mut();
                (*raw).u1.type_info = ffi::IS_ARRAY;
            }
        }
    }
    let ty = match class_name {
        Some(class) => zend_type {
            ptr: ZendStr::new_interned(class, true).into_raw().cast(),
            type_mask: TYPE_NAME_BIT | type_mask,
        },
        None => zend_type {
            ptr: ptr::null_mut(),
            type_mask,
        },
    };
    // SAFETY: startup, from a registration callback; persistent interned names; the engine
    // copies the default.
    unsafe {
        zend_declare_typed_property(
            ptr::from_mut(ce).cast(),
            name.cast(),
            raw,
            flags as c_int,
            ptr::null_mut(),
            ty,
        );
    }
    std::mem::forget(value);
}

/// The byte offset of a declared property inside objects of `ce`.
pub fn property_offset(ce: &ClassEntry, name: &str) -> Option<u32> {
    // SAFETY: reads the class's property table (live for the process).
    unsafe {
        let zv = ffi::zend_hash_str_find(
            &raw const ce.properties_info,
            name.as_ptr().cast(),
            name.len(),
        );
        let info = zv.as_ref()?.value.ptr.cast::<ffi::zend_property_info>();
        info.as_ref().map(|i| i.offset)
    }
}

/// A raw pointer to an object whose declared properties are written in place. Writes go
/// through this pointer, never through a `&ZendObject` (which the compiler may treat as
/// read-only memory): the first property slot lies inside the `zend_object` struct itself.
pub fn raw(obj: &ZendObject) -> *mut zend_object {
    std::hint::black_box(ptr::from_ref(obj).cast_mut().cast())
}

/// The slot of a declared property of `obj` at `offset` (from [`property_offset`] for the
/// object's own final class).
fn slot(obj: *mut zend_object, offset: u32) -> *mut zval {
    let base: *mut u8 = obj.cast();
    // SAFETY: `offset` is a declared property's offset in this (final) class's objects.
    unsafe { base.add(offset as usize).cast() }
}

/// The property's value, or None while it is uninitialised.
pub fn property(obj: &ZendObject, offset: u32) -> Option<&Zval> {
    let zv = slot(raw(obj), offset);
    // SAFETY: a live object's slot.
    unsafe {
        if (*zv).u1.type_info & 0xff == ffi::IS_UNDEF {
            return None;
        }
        Some((*zv.cast::<Zval>()).dereference())
    }
}

/// Replace the property's value and hand back the old one, to be dropped by the caller once
/// it holds no pointer into the object (its destructor may run PHP code).
pub fn swap_property(obj: *mut zend_object, offset: u32, value: Zval) -> Zval {
    let zv = slot(obj, offset).cast::<Zval>();
    // SAFETY: a live object's slot; the old value is moved out, the new one moved in.
    unsafe { std::mem::replace(&mut *zv, value) }
}

/// The property's array, separated so it can be changed in place (a shared or immutable
/// array is copied first; anything else becomes a new empty array, old value returned).
/// The engine owns the object; callers hold no other reference into this property while they
/// use the result, as the engine's own `SEPARATE_ARRAY` users do.
/// The result borrows `graveyard` only to bound its lifetime to the caller's update.
pub fn array_property_mut(
    obj: *mut zend_object,
    offset: u32,
    graveyard: &mut Vec<Zval>,
) -> &mut ZendHashTable {
    let zv = slot(obj, offset);
    // SAFETY: a live object's slot; the array is duplicated when it is not ours alone.
    unsafe {
        if (*zv).u1.type_info & 0xff != ffi::IS_ARRAY {
            let old = std::mem::replace(&mut *zv.cast::<Zval>(), Zval::new_array());
            graveyard.push(old);
        }
        let ht = (*zv).value.arr;
        let refcounted = (*zv).u1.type_info & TYPE_REFCOUNTED != 0;
        if !refcounted || (*ht).gc.refcount > 1 {
            let dup = ffi::zend_array_dup(ht);
            if refcounted {
                (*ht).gc.refcount -= 1;
            }
            (*zv).value.arr = dup;
            (*zv).u1.type_info = IS_ARRAY_EX;
        }
        &mut *(*zv).value.arr.cast::<ZendHashTable>()
    }
}

/// Look a key up with PHP's array-key rules (a canonical integer string is an int key).
pub use super::zend::get_bytes as find;

/// Store `value` under the key held by the string zval `key` (its cached hash is reused); an
/// old value is moved out and returned (not destroyed here).
pub fn replace_zstr(ht: &mut ZendHashTable, key: &Zval, value: Zval) -> Option<Zval> {
    let Some(zs) = key.zend_str() else {
        return replace(ht, b"", value);
    };
    if canonical_int(zs.as_bytes()).is_some() {
        return replace(ht, zs.as_bytes(), value);
    }
    let raw_ht: *mut ffi::HashTable = ptr::from_mut(ht).cast();
    let k: *mut zend_string = ptr::from_ref(zs).cast_mut().cast();
    // SAFETY: a live, separated array and a live key string; the array adds its own
    // reference to the key and takes the value.
    unsafe {
        if let Some(slot) = ffi::zend_hash_find(raw_ht, k).cast::<Zval>().as_mut() {
            return Some(std::mem::replace(slot, value));
        }
        let v = std::mem::ManuallyDrop::new(value);
        ffi::zend_hash_update(raw_ht, k, ptr::from_ref(&*v).cast_mut().cast());
    }
    None
}

/// Store `value` under `key`; an old value is moved out and returned (not destroyed here).
pub fn replace(ht: &mut ZendHashTable, key: &[u8], value: Zval) -> Option<Zval> {
    let raw: *mut ffi::HashTable = ptr::from_mut(ht).cast();
    // SAFETY: a live, separated array; the found slot is overwritten in place.
    let existing = unsafe {
        match canonical_int(key) {
            Some(i) => ffi::zend_hash_index_find(raw, i as u64),
            None => ffi::zend_hash_str_find(raw, key.as_ptr().cast(), key.len()),
        }
    };
    if let Some(slot) = unsafe { existing.cast::<Zval>().as_mut() } {
        return Some(std::mem::replace(slot, value));
    }
    zend::set(ht, Key::Str(key), value);
    None
}

/// Raise an `E_WARNING` with this exact message.
pub fn warning(message: &str) {
    let msg = CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: "%s" with one C string argument.
    unsafe { zend_error(E_WARNING, c"%s".as_ptr(), msg.as_ptr()) };
}

/// Throw PHP's `TypeError` with this exact message.
pub fn throw_type_error(message: &str) {
    let msg = CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: "%s" with one C string argument.
    unsafe { zend_type_error(c"%s".as_ptr(), msg.as_ptr()) };
}

/// PHP's type name of a value for messages (`string`, `int`, `array`, a class name...).
pub fn type_name(zv: &Zval) -> String {
    if let Some(obj) = zv.object() {
        return obj.get_class_name().unwrap_or_else(|_| "object".into());
    }
    let name = match () {
        _ if zv.is_null() => "null",
        _ if zv.is_bool() => "bool",
        _ if zv.is_long() => "int",
        _ if zv.is_double() => "float",
        _ if zv.is_string() => "string",
        _ if zv.is_array() => "array",
        _ => "mixed",
    };
    name.to_owned()
}

/// Argument `n` as a bool parameter (weak mode coerces scalars), or a pending TypeError.
pub fn bool_arg(f: &Frame<'_>, n: usize) -> Option<bool> {
    let zv = f.arg(n)?;
    if let Some(b) = zv.bool() {
        return Some(b);
    }
    if !f.strict() {
        if let Some(i) = zv.long() {
            return Some(i != 0);
        }
        if let Some(d) = zv.double() {
            return Some(d != 0.0);
        }
        if let Some(s) = zv.zend_str() {
            let b = s.as_bytes();
            return Some(!(b.is_empty() || b == b"0"));
        }
    }
    zend::type_error(n, "bool", zv);
    None
}

/// `$GLOBALS[superglobal][key]` (e.g. `_ENV`, `_SERVER`), arming a just-in-time superglobal
/// first; the value as a string when it is a non-empty string or another scalar.
pub fn superglobal_string(superglobal: &str, key: &str) -> Option<Vec<u8>> {
    // SAFETY: arms the auto-global (creates $_ENV / $_SERVER on first use), then reads the
    // request's symbol table.
    let table = unsafe {
        zend_is_auto_global_str(superglobal.as_ptr().cast(), superglobal.len());
        let eg = ExecutorGlobals::get();
        let st: *const ZendHashTable = (&raw const eg.symbol_table).cast();
        &*st
    };
    let arr = find_indirect(table, superglobal)?;
    let ht = arr.array()?;
    let v = find(ht, key.as_bytes())?;
    if let Some(s) = v.zend_str() {
        return Some(s.as_bytes().to_vec());
    }
    if v.is_long() || v.is_double() || v.is_bool() {
        return v.coerce_to_string().map(String::into_bytes);
    }
    None
}

fn find_indirect<'a>(ht: &'a ZendHashTable, key: &str) -> Option<&'a Zval> {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; INDIRECT slots point at a live CV or property slot.
    unsafe {
        let zv = ffi::zend_hash_str_find(raw, key.as_ptr().cast(), key.len());
        let zv = zv.as_ref()?;
        let zv = if zv.u1.type_info & 0xff == ffi::IS_INDIRECT {
            zv.value.zv.as_ref()?
        } else {
            zv
        };
        if zv.u1.type_info & 0xff == ffi::IS_UNDEF {
            return None;
        }
        Some((*ptr::from_ref(zv).cast::<Zval>()).dereference())
    }
}

/// Whether an exception is pending, read straight from the executor globals (no lock: NTS
/// PHP runs one request per thread, and this reads one pointer).
pub fn exception_pending() -> bool {
    // SAFETY: the executor globals live for the whole process.
    unsafe {
        ffi::ext_php_rs_executor_globals()
            .as_ref()
            .is_some_and(|eg| !eg.exception.is_null())
    }
}

/// Call a public method without arguments, looked up by its lower-case name in the object's
/// class (so a subclass override wins). Falls back to [`zend::call_method`] (which raises the
/// engine's own error) when the class has no such entry.
pub fn call0(obj: &ZendObject, lc_name: &str) -> Result<Zval, zend::Pending> {
    // SAFETY: `obj.ce` is the object's live class; the table holds `zend_function` pointers.
    let func = unsafe {
        ffi::zend_hash_str_find(
            &raw const (*obj.ce).function_table,
            lc_name.as_ptr().cast(),
            lc_name.len(),
        )
        .as_ref()
        .map(|zv| zv.value.ptr.cast::<ffi::zend_function>())
    };
    call_found(obj, func, lc_name)
}

/// [`call0`] with the lower-case name interned at startup (its hash is computed once).
pub fn call0_interned(
    obj: &ZendObject,
    key: &Interned,
    lc_name: &str,
) -> Result<Zval, zend::Pending> {
    let k = key.get();
    if k.is_null() {
        return call0(obj, lc_name);
    }
    // SAFETY: as in `call0`; the key is a live interned string.
    let func = unsafe {
        ffi::zend_hash_find(&raw const (*obj.ce).function_table, k)
            .as_ref()
            .map(|zv| zv.value.ptr.cast::<ffi::zend_function>())
    };
    call_found(obj, func, lc_name)
}

fn call_found(
    obj: &ZendObject,
    func: Option<*mut ffi::zend_function>,
    lc_name: &str,
) -> Result<Zval, zend::Pending> {
    let Some(func) = func else {
        return zend::call_method(obj, lc_name, &mut []);
    };
    let mut rv = Zval::new();
    // SAFETY: a method of the object's class, called on the object with no arguments.
    unsafe {
        ffi::zend_call_known_function(
            func,
            raw(obj),
            obj.ce,
            ptr::from_mut(&mut rv).cast(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        );
    }
    if exception_pending() {
        return Err(zend::Pending);
    }
    Ok(rv)
}

/// Persistent interned strings made at startup, for array keys used on every call (their
/// hash is computed once).
pub struct Interned(std::sync::atomic::AtomicPtr<zend_string>);

impl Interned {
    /// An empty slot.
    pub const fn new() -> Self {
        Self(std::sync::atomic::AtomicPtr::new(ptr::null_mut()))
    }

    /// Make the string (module startup only).
    pub fn init(&self, s: &str) {
        let z = ZendStr::new_interned(s, true).into_raw();
        self.0.store(z.cast(), std::sync::atomic::Ordering::Release);
    }

    fn get(&self) -> *mut zend_string {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// A new array of (interned key, value) pairs, in order; keys must be distinct and not
/// numeric (they are fixed names).
pub fn assoc_interned(pairs: Vec<(&Interned, Zval)>) -> Zval {
    zend::build_array(pairs.len() as u32, |ht| {
        let raw_ht: *mut ffi::HashTable = ptr::from_mut(ht).cast();
        for (k, v) in pairs {
            let key = k.get();
            let v = std::mem::ManuallyDrop::new(v);
            // SAFETY: a fresh array; the key is a live interned string; the array takes the
            // value. A missing key (startup failed) falls back to a normal insert.
            unsafe {
                if key.is_null() {
                    zend::push(ht, std::mem::ManuallyDrop::into_inner(v));
                } else {
                    ffi::zend_hash_add_new(raw_ht, key, ptr::from_ref(&*v).cast_mut().cast());
                }
            }
        }
    })
}

/// A string zval of an interned string (no copy); `fallback` when it was not made.
pub fn interned_zval(s: &Interned, fallback: &str) -> Zval {
    let key = s.get();
    if key.is_null() {
        return zend::str_zval(fallback);
    }
    let mut zv = Zval::new();
    let out: *mut zval = ptr::from_mut(&mut zv).cast();
    // SAFETY: an interned string needs no reference count (`ZVAL_INTERNED_STR`).
    unsafe {
        (*out).value.str_ = key;
        (*out).u1.type_info = ffi::IS_STRING;
    }
    zv
}

/// A zval holding a new reference to `obj` (`ZVAL_OBJ_COPY`). The reference count is changed
/// through [`raw`], not through the shared reference (which the optimiser may treat as
/// read-only: `zend::object_zval` loses its increment in release builds).
pub fn object_ref_zval(obj: &ZendObject) -> Zval {
    let p = raw(obj);
    let mut zv = Zval::new();
    let out: *mut zval = ptr::from_mut(&mut zv).cast();
    // SAFETY: a live, refcounted object; the new zval owns the reference added here.
    unsafe {
        (*p).gc.refcount += 1;
        (*out).value.obj = p;
        (*out).u1.type_info = ffi::IS_OBJECT | (1 << 8) | (1 << 9);
    }
    zv
}
