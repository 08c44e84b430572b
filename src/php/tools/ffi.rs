//! Engine helpers the native tools need beyond `super::super::zend`: class constants holding
//! arrays, which must outlive every request (persistent, immutable) because the engine frees
//! everything allocated per request, startup included.

use std::ptr;

use ext_php_rs::ffi::{self, zval, HashTable};
use ext_php_rs::types::{ZendStr, Zval};

extern "C" {
    fn _zend_hash_init(
        ht: *mut HashTable,
        size: u32,
        destructor: Option<unsafe extern "C" fn(*mut zval)>,
        persistent: bool,
    );
}

/// `GC_IMMUTABLE`: the engine never counts references to, changes or frees the array.
const GC_IMMUTABLE: u32 = 1 << 6;

/// A persistent, immutable list of interned strings, for a class constant declared at
/// startup. It lives for the whole process (the engine leaves immutable values alone).
pub fn persistent_string_list(items: &[&str]) -> Zval {
    let ht: *mut HashTable = Box::into_raw(Box::new(
        // SAFETY: a HashTable is plain data; `_zend_hash_init` sets every field it reads.
        unsafe { std::mem::zeroed::<HashTable>() },
    ));
    // SAFETY: startup, single-threaded; a fresh persistent table filled with persistent
    // interned strings (never refcounted), then marked immutable so no request touches it.
    unsafe {
        _zend_hash_init(ht, items.len() as u32, None, true);
        for item in items {
            let s = ZendStr::new_interned(item, true).into_raw();
            let mut v = Zval::new();
            let raw: *mut zval = ptr::from_mut(&mut v).cast();
            (*raw).value.str_ = s.cast();
            (*raw).u1.type_info = ffi::IS_STRING;
            ffi::zend_hash_next_index_insert(ht, raw);
            std::mem::forget(v);
        }
        (*ht).gc.refcount = 2;
        (*ht).gc.u.type_info |= GC_IMMUTABLE;
    }
    let mut out = Zval::new();
    let raw: *mut zval = ptr::from_mut(&mut out).cast();
    // SAFETY: an immutable array is stored without the refcounted type flag (`ZVAL_ARR` of an
    // immutable array, as `ZVAL_EMPTY_ARRAY` does).
    unsafe {
        (*raw).value.arr = ht;
        (*raw).u1.type_info = ffi::IS_ARRAY;
    }
    out
}
