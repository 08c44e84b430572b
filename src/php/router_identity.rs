//! Per-router memory of the last tool arrays a `ToolRouter` prepared, so a repeated call with
//! the very same arrays maps straight to the prepared tools without reading their text.
//!
//! Why a pointer comparison is enough here:
//! - The snapshot holds a counted reference to the schemas array and to the metadata array.
//!   The engine separates (copies) an array before any write once it has more than one
//!   holder, so while the snapshot holds it, the array at that address never changes, and
//!   the address cannot be reused by another array.
//! - What the router reads below those arrays is reached only through their slots: nested
//!   arrays and strings that are reachable only through a frozen slot are frozen too.
//!   Three things break that chain and make a batch unfit for the snapshot: a PHP reference
//!   (or an indirect slot) anywhere on the read path, a metadata value that is not a fully
//!   constructed `ToolRoutingMetadata` (whose four lists are readonly), and a list item that
//!   is a reference. Such batches always take the content path.
//! - The snapshot lives with its router object: a custom `free_obj` handler releases it, so
//!   nothing is held past the object (and so past the request). Clones start empty.

use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::ptr;
use std::sync::{Arc, OnceLock};

use ext_php_rs::ffi::{self, zend_class_entry, zend_object, zend_object_handlers};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};

use super::routing_metadata::{FIELDS, ROUTING_METADATA};
use super::routing_support as rs;
use super::zend;
use crate::core::routing::batch::PreparedBatch;

extern "C" {
    fn zend_objects_clone_obj(old: *mut zend_object) -> *mut zend_object;
}

/// The arrays of one prepared batch, held (refcount +1) until replaced or the router dies.
struct Snapshot {
    schemas: ManuallyDrop<Zval>,
    metadata: Option<ManuallyDrop<Zval>>,
    prepared: Arc<PreparedBatch>,
}

impl Snapshot {
    /// Drops the held references (may run PHP destructors: call with no borrow of `SNAPSHOTS`).
    fn release(mut self) {
        // SAFETY: each held Zval is released exactly once, here.
        unsafe {
            ManuallyDrop::drop(&mut self.schemas);
            if let Some(m) = self.metadata.as_mut() {
                ManuallyDrop::drop(m);
            }
        }
    }
}

thread_local! {
    /// Router object address -> its snapshot. Entries leave in `free_obj`; whatever is left at
    /// thread exit is leaked on purpose (the engine's memory is gone by then).
    static SNAPSHOTS: RefCell<HashMap<usize, Snapshot>> = RefCell::new(HashMap::new());
}

struct Handlers(zend_object_handlers);

// SAFETY: the handler table holds only function pointers and an offset, written once at
// startup and read-only afterwards.
unsafe impl Sync for Handlers {}
unsafe impl Send for Handlers {}

static HANDLERS: OnceLock<Handlers> = OnceLock::new();

fn handlers() -> Option<*const zend_object_handlers> {
    HANDLERS.get().map(|h| ptr::from_ref(&h.0))
}

unsafe extern "C" fn create_object(ce: *mut zend_class_entry) -> *mut zend_object {
    // SAFETY: the engine's own allocation and property initialisation for a plain object.
    unsafe {
        let obj = ffi::zend_objects_new(ce);
        ffi::object_properties_init(obj, ce);
        if let Some(h) = handlers() {
            (*obj).handlers = h;
        }
        obj
    }
}

unsafe extern "C" fn clone_object(old: *mut zend_object) -> *mut zend_object {
    // SAFETY: the standard clone, then our handlers so the copy also releases what it holds.
    unsafe {
        let obj = zend_objects_clone_obj(old);
        if let (Some(h), false) = (handlers(), obj.is_null()) {
            (*obj).handlers = h;
        }
        obj
    }
}

unsafe extern "C" fn free_object(obj: *mut zend_object) {
    let taken = SNAPSHOTS
        .try_with(|s| s.borrow_mut().remove(&(obj as usize)))
        .ok()
        .flatten();
    // SAFETY: the standard destructor of the object's own storage.
    unsafe { ffi::zend_object_std_dtor(obj) };
    if let Some(s) = taken {
        s.release();
    }
}

/// Installs the router's object handlers on its class entry (from the class registration).
pub fn install(ce: &mut zend_class_entry) {
    let h = HANDLERS.get_or_init(|| {
        // SAFETY: copying the engine's standard handler table, initialised before extensions start.
        let mut table = unsafe { ptr::read(&raw const ffi::std_object_handlers) };
        table.free_obj = Some(free_object);
        table.clone_obj = Some(clone_object);
        Handlers(table)
    });
    let _ = h;
    ce.__bindgen_anon_2.create_object = Some(create_object);
}

/// Request start: forgets any snapshot a previous request on this thread left behind (its
/// router's `free_obj` never ran, e.g. after a bailout). Its arrays died with that request's
/// memory, so they are dropped unreleased; a new router could otherwise take the dead one's
/// address and match its stale arrays. Under ZTS each thread has its own table, and a
/// long-lived worker thread (FrankenPHP) runs this before each request it serves.
pub fn request_start() {
    let stale: Vec<Snapshot> = SNAPSHOTS
        .try_with(|s| s.borrow_mut().drain().map(|(_, v)| v).collect())
        .unwrap_or_default();
    // Dropping a Snapshot leaves its ManuallyDrop zvals alone; only the Arc is let go.
    drop(stale);
}

fn is_ours(obj: &ZendObject) -> bool {
    handlers().is_some_and(|h| ptr::eq(obj.handlers, h))
}

fn array_ptr(ht: Option<&ZendHashTable>) -> *const ZendHashTable {
    ht.map_or(ptr::null(), ptr::from_ref)
}

/// The prepared tools of the router's last batch, when `schemas` and `metadata` are the very
/// arrays it was prepared from.
pub fn lookup(
    router: Option<&ZendObject>,
    schemas: &ZendHashTable,
    metadata: Option<&ZendHashTable>,
) -> Option<Arc<PreparedBatch>> {
    let router = router.filter(|o| is_ours(o))?;
    let key = ptr::from_ref(router) as usize;
    SNAPSHOTS
        .try_with(|s| {
            let map = s.borrow();
            let snap = map.get(&key)?;
            let same_schemas = ptr::eq(array_ptr(snap.schemas.array()), ptr::from_ref(schemas));
            let same_metadata = ptr::eq(
                array_ptr(snap.metadata.as_ref().and_then(|m| m.array())),
                array_ptr(metadata),
            );
            (same_schemas && same_metadata).then(|| Arc::clone(&snap.prepared))
        })
        .ok()
        .flatten()
}

/// Remembers a batch prepared from `schemas` and `metadata` (the argument zvals), when every
/// value the router read is frozen by holding those two arrays (see the module notes).
pub fn remember(
    router: Option<&ZendObject>,
    schemas: &Zval,
    metadata: Option<&Zval>,
    prepared: Arc<PreparedBatch>,
) {
    let Some(router) = router.filter(|o| is_ours(o)) else {
        return;
    };
    let Some(schemas_ht) = schemas.array() else {
        return;
    };
    let metadata_ht = metadata.and_then(Zval::array);
    let metadata_ok = match metadata_ht {
        None => true,
        Some(m) => metadata_frozen(m),
    };
    if !metadata_ok || !schemas_frozen(schemas_ht) {
        return;
    }
    let snap = Snapshot {
        schemas: ManuallyDrop::new(zend::share(schemas)),
        metadata: metadata.map(|m| ManuallyDrop::new(zend::share(m))),
        prepared,
    };
    let key = ptr::from_ref(router) as usize;
    let old = SNAPSHOTS.try_with(|s| s.borrow_mut().insert(key, snap));
    match old {
        Ok(Some(old)) => old.release(),
        Ok(None) => {}
        // Thread shutting down: nothing was stored; the new snapshot was dropped unreleased,
        // which only leaks a reference count.
        Err(_) => {}
    }
}

/// Type byte of a slot as stored (no dereferencing).
fn raw_type(zv: &Zval) -> u32 {
    // SAFETY: reading the type word of a live zval.
    unsafe { zv.u1.type_info & 0xff }
}

/// Whether a slot breaks the freeze: a PHP reference or an indirect slot.
fn unfrozen_slot(zv: &Zval) -> bool {
    let t = raw_type(zv);
    t == ffi::IS_REFERENCE || t == ffi::IS_INDIRECT
}

/// Calls `f` with every live slot of an array as stored (references and indirect slots are
/// passed as they are). Stops when `f` returns false.
fn for_each_raw(ht: &ZendHashTable, mut f: impl FnMut(&Zval) -> bool) {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; `nNumUsed` slots of the storage its flags select, holes skipped.
    unsafe {
        let ht = &*raw;
        let used = ht.nNumUsed as usize;
        let packed = ht.u.flags & (1 << 2) != 0;
        for i in 0..used {
            let zv: &Zval = if packed {
                &*ht.__bindgen_anon_1.arPacked.add(i).cast::<Zval>()
            } else {
                &*ptr::from_ref(&(*ht.__bindgen_anon_1.arData.add(i)).val).cast::<Zval>()
            };
            if raw_type(zv) == ffi::IS_UNDEF {
                continue;
            }
            if !f(zv) {
                return;
            }
        }
    }
}

/// A field of an array as stored, without dereferencing.
fn raw_field<'a>(ht: &'a ZendHashTable, key: &str) -> Option<&'a Zval> {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; the engine returns a pointer into its storage or null.
    unsafe {
        ffi::zend_hash_str_find(raw, key.as_ptr().cast(), key.len())
            .cast::<Zval>()
            .as_ref()
    }
}

/// Whether the schema fields the router reads are all frozen with the schema itself.
fn schema_frozen(schema: &ZendHashTable) -> bool {
    let fields_ok = |ht: &ZendHashTable| {
        ["name", "description", "function"]
            .iter()
            .all(|k| !raw_field(ht, k).is_some_and(unfrozen_slot))
    };
    if !fields_ok(schema) {
        return false;
    }
    match raw_field(schema, "function").and_then(Zval::array) {
        Some(f) => fields_ok(f),
        None => true,
    }
}

fn schemas_frozen(schemas: &ZendHashTable) -> bool {
    let mut ok = true;
    for_each_raw(schemas, |zv| {
        ok = !unfrozen_slot(zv) && zv.array().is_some_and(schema_frozen);
        ok
    });
    ok
}

/// Whether a metadata value reads the same for as long as the metadata array is held: null, or
/// a constructed `ToolRoutingMetadata` whose readonly lists hold no references.
fn metadata_value_frozen(zv: &Zval) -> bool {
    if unfrozen_slot(zv) {
        return false;
    }
    if zv.is_null() {
        return true;
    }
    let Some(obj) = zv.object() else {
        return false;
    };
    if !ptr::eq(obj.ce, ROUTING_METADATA.ptr()) {
        return false;
    }
    let Ok(props) = obj.get_properties() else {
        return false;
    };
    FIELDS.iter().all(|field| {
        let Some(list) = rs::get_bytes(props, field.as_bytes()).and_then(Zval::array) else {
            return false;
        };
        let mut ok = true;
        for_each_raw(list, |item| {
            ok = !unfrozen_slot(item);
            ok
        });
        ok
    })
}

fn metadata_frozen(metadata: &ZendHashTable) -> bool {
    let mut ok = true;
    for_each_raw(metadata, |zv| {
        ok = metadata_value_frozen(zv);
        ok
    });
    ok
}
