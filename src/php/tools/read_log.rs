//! The read log file_edit consults when phpClaw's `PhpClaw\Tools\Concerns\FileReadLog` is not
//! installed: FileReadTool records every successful read here and FileEditTool asks it.
//!
//! Where it lives: a private static property of the native FileEditTool class,
//! `private static ?array $readLog = null`, one entry per read (`<root>\0<real path>` => true;
//! neither part can hold a NUL byte). Static properties of an internal class are per request:
//! the engine builds them from their default (null) on the first access in a request and frees
//! them when the request ends, so a php-fpm or FrankenPHP worker starts every request with an
//! empty log, and no PHP value outlives the request. `reset()` of either tool empties it, as
//! phpClaw's `FileReadLog::reset()` does. When phpClaw's class exists it is used instead (see
//! `super::call_read_log`), so PHP and native tools share one log.

use std::ptr;

use ext_php_rs::ffi::{self, zend_class_entry, zend_string, zval};
use ext_php_rs::types::{ZendStr, Zval};

use super::super::zend::{self, Key};

extern "C" {
    fn zend_read_static_property_ex(
        scope: *mut zend_class_entry,
        name: *mut zend_string,
        silent: bool,
    ) -> *mut zval;
}

/// The static property's name.
pub const PROP: &str = "readLog";

/// `IS_ARRAY_EX`: an array that is refcounted and collectable.
const IS_ARRAY_EX: u32 = ffi::IS_ARRAY | (1 << 8) | (1 << 9);
/// `GC_IMMUTABLE`.
const GC_IMMUTABLE: u32 = 1 << 6;

fn key(root: &str, path: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(root.len() + 1 + path.len());
    k.extend_from_slice(root.as_bytes());
    k.push(0);
    k.extend_from_slice(path.as_bytes());
    k
}

/// The property's slot for this request, or None before the class is registered.
fn slot() -> Option<*mut zval> {
    let ce = super::file_edit::FILE_EDIT.ptr();
    if ce.is_null() {
        return None;
    }
    let name = ZendStr::new(PROP, false);
    // SAFETY: a registered class declaring the property; reading with the class as scope
    // (the function sets the engine's fake scope) returns the request's own slot.
    let zv =
        unsafe { zend_read_static_property_ex(ce, ptr::from_ref(&*name).cast_mut().cast(), true) };
    if zv.is_null() {
        return None;
    }
    // SAFETY: a live slot; a reference (never made here) would be followed to its value.
    unsafe {
        if (*zv).u1.type_info & 0xff == ffi::IS_REFERENCE {
            return Some(ptr::addr_of_mut!((*(*zv).value.ref_).val));
        }
    }
    Some(zv)
}

/// Record a read.
pub fn mark(root: &str, path: &str) {
    let Some(zv) = slot() else { return };
    let k = key(root, path);
    let mut yes = Zval::new();
    yes.set_bool(true);
    // SAFETY: the slot belongs to this request; an array found there is separated before it is
    // changed (nothing else should share it, but a shared array is never written in place).
    unsafe {
        if (*zv).u1.type_info & 0xff != ffi::IS_ARRAY {
            let fresh = zend::build_array(8, |ht| zend::set(ht, Key::Str(&k), yes));
            // The slot holds null (the property's only other value): nothing to release.
            ptr::write(zv.cast::<Zval>(), fresh);
            return;
        }
        let mut ht = (*zv).value.arr;
        let shared = (*ht).gc.refcount > 1 || (*ht).gc.u.type_info & GC_IMMUTABLE != 0;
        if shared {
            let dup = ffi::zend_array_dup(ht);
            if (*ht).gc.u.type_info & GC_IMMUTABLE == 0 {
                (*ht).gc.refcount -= 1;
            }
            (*zv).value.arr = dup;
            (*zv).u1.type_info = IS_ARRAY_EX;
            ht = dup;
        }
        zend::set(&mut *ht.cast(), Key::Str(&k), yes);
    }
}

/// Whether a read was recorded.
pub fn was(root: &str, path: &str) -> bool {
    let Some(zv) = slot() else { return false };
    let k = key(root, path);
    // SAFETY: reading a live array of this request.
    unsafe {
        if (*zv).u1.type_info & 0xff != ffi::IS_ARRAY {
            return false;
        }
        let found = ffi::zend_hash_str_find((*zv).value.arr, k.as_ptr().cast(), k.len());
        !found.is_null()
    }
}

/// Forget every read.
pub fn reset() {
    let Some(zv) = slot() else { return };
    // SAFETY: the old value is released once and the slot set to null.
    unsafe {
        let old = ptr::read(zv.cast::<Zval>());
        (*zv).u1.type_info = ffi::IS_NULL;
        drop(old);
    }
}
