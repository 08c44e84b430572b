//! `PhpClaw\Tools\ToolRoutingMetadata`: the routing signals a tool advertises (readonly arrays
//! domains, tags, intents, examples), native so the router can read them without PHP code.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecuteData;

use super::contracts::ROUTING_METADATA_NAME;
use super::tools::Slots;
use super::zend::{self, ClassSlot, Frame};

pub static ROUTING_METADATA: ClassSlot = ClassSlot::new();

/// The four signal lists, in constructor order.
pub const FIELDS: [&str; 4] = ["domains", "tags", "intents", "examples"];

/// Their slots (offsets recorded at startup): one metadata object per tool is built per request.
static SLOTS: Slots<4> = Slots::new(FIELDS);

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 4) {
        return;
    }
    let Some(this) = f.this() else { return };
    let mut values = Vec::with_capacity(4);
    for i in 0..4 {
        match f.arg(i) {
            None => values.push(Zval::new_array()),
            Some(_) => match f.array(i) {
                Some(v) => values.push(zend::share(v)),
                None => return,
            },
        }
    }
    for (name, value) in FIELDS.iter().zip(values) {
        if SLOTS
            .init(ROUTING_METADATA.ptr(), this, name, value)
            .is_err()
        {
            return;
        }
    }
}

extern "C" fn empty(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(ce) = ROUTING_METADATA.get() else {
        return;
    };
    if let Ok(obj) = zend::instantiate(ce, &mut []) {
        *rv = zend::owned_object_zval(obj);
    }
}

extern "C" fn is_empty(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    let empty = FIELDS.iter().all(|name| {
        zend::read_property(ROUTING_METADATA.ptr(), this, name)
            .and_then(|v| v.array().map(|a| a.is_empty()))
            .unwrap_or(false)
    });
    rv.set_bool(empty);
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let mut ctor = FunctionBuilder::constructor(construct);
    for name in FIELDS {
        ctor = ctor.arg(Arg::new(name, DataType::Array).default("[]"));
    }
    ClassBuilder::new(ROUTING_METADATA_NAME)
        .flags(ClassFlags::Final)
        .method(ctor.required_args(0), MethodFlags::Public)
        .method(
            // phpClaw declares `: self`; the engine resolves `self` against this class.
            FunctionBuilder::new("empty", empty).returns(DataType::object("self"), false, false),
            MethodFlags::Public | MethodFlags::Static,
        )
        .method(
            FunctionBuilder::new("isEmpty", is_empty).returns(DataType::Bool, false, false),
            MethodFlags::Public,
        )
        .registration(|ce, _| {
            for name in FIELDS {
                zend::declare_typed_property(
                    ce,
                    name,
                    MethodFlags::Public.bits() | zend::ACC_READONLY,
                    zend::mask_type(zend::MAY_BE_ARRAY),
                    None,
                );
            }
            SLOTS.record(ce);
            ROUTING_METADATA.set(ce);
        })
        .register()
}
