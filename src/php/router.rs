//! `PhpClaw\Tools\ToolRouter`: stage 2 of "Which tools a turn sees" (and, through `route()`,
//! stage 3), native. The schemas PHP passes come back as the same zvals (shared, never
//! copied); only names, descriptions and routing metadata are read, and the core's
//! prepared-tool cache keeps repeated calls with the same tools from re-tokenising them.
//! A router called again with the very arrays it prepared last skips even that reading
//! (`router_identity`), and ranks through the core's indexed batch.

use std::sync::Arc;

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::json_view::ZvalView;
use super::router_identity;
use super::routing_metadata::FIELDS;
use super::routing_support::{
    self as rs, bool_zval, double_zval, float_arg, list, long_zval, nullable_long_arg,
    nullable_string_arg, scalar_bytes, scalar_string, string_list, ACC_PRIVATE, MAY_BE_DOUBLE,
    MAY_BE_LONG,
};
use super::zend::{self, ClassSlot, Frame};
use crate::core::json::{self, EncodeError, EncodeOptions};
use crate::core::routing::batch::{batch_of, PreparedBatch};
use crate::core::routing::prepared_index::{self, hash_pieces, Piece, ToolPieces};
use crate::core::routing::profiles::Profile;
use crate::core::routing::route::{self, RouteOptions};
use crate::core::routing::router::{Router, ToolDescriptor};
use crate::core::routing::{resolve_budget, UNLIMITED};

pub static TOOL_ROUTER: ClassSlot = ClassSlot::new();

/// Fully qualified class name.
pub const TOOL_ROUTER_NAME: &str = "PhpClaw\\Tools\\ToolRouter";

const PROP_MAX: &str = "maxToolsPerTurn";
const PROP_SHARE: &str = "minScoreShare";
const PROP_LAST: &str = "lastRankedNames";

/// The router's constructor arguments, read back from the object.
struct Settings {
    max: i64,
    share: f64,
}

fn settings(this: &ZendObject) -> Settings {
    let scope = TOOL_ROUTER.ptr();
    Settings {
        max: zend::read_property(scope, this, PROP_MAX)
            .and_then(|v| v.long())
            .unwrap_or(0),
        share: zend::read_property(scope, this, PROP_SHARE)
            .and_then(|v| v.double())
            .unwrap_or(0.0),
    }
}

fn set_last_ranked(this: &ZendObject, names: &[&str]) {
    let mut value = string_list(names);
    zend::write_property(TOOL_ROUTER.ptr(), this, PROP_LAST, &mut value);
}

/// The schemas of one call: the zvals to hand back and the tools prepared for the core.
struct Batch<'a> {
    schemas: Vec<&'a Zval>,
    prepared: Arc<PreparedBatch>,
}

/// A schema field in either provider shape: `$s[field]`, else `$s['function'][field]`.
fn schema_field<'a>(schema: &'a ZendHashTable, field: &str) -> Option<&'a Zval> {
    if let Some(v) = zend::get(schema, field).filter(|v| !v.is_null()) {
        return Some(v);
    }
    zend::get(schema, "function")
        .and_then(Zval::array)
        .and_then(|f| zend::get(f, field))
        .filter(|v| !v.is_null())
}

/// One tool as PHP holds it: the schema's name and description and the metadata's four lists,
/// streamed to the core's prepared-tool index without copying.
struct ZvalTool<'a> {
    name: Option<&'a Zval>,
    description: Option<&'a Zval>,
    lists: [Option<&'a ZendHashTable>; 4],
}

/// Calls `f` with a scalar's text, borrowed for strings.
fn with_text(zv: Option<&Zval>, f: &mut dyn FnMut(Piece<'_>) -> bool) -> bool {
    match zv {
        None => f(Piece::Text(b"")),
        Some(v) => match v.zend_str() {
            Some(s) => f(Piece::Text(s.as_bytes())),
            None => f(Piece::Text(&scalar_bytes(v))),
        },
    }
}

impl ToolPieces for ZvalTool<'_> {
    fn for_each_piece(&self, f: &mut dyn FnMut(Piece<'_>) -> bool) {
        if !with_text(self.name, f) || !with_text(self.description, f) {
            return;
        }
        for list in self.lists {
            let Some(ht) = list else {
                if !f(Piece::Count(0)) {
                    return;
                }
                continue;
            };
            if !f(Piece::Count(ht.len())) {
                return;
            }
            let mut go = true;
            zend::for_each_entry(ht, |_, v| {
                go = with_text(Some(v), f);
                go
            });
            if !go {
                return;
            }
        }
    }
}

impl ZvalTool<'_> {
    /// The owned descriptor, for a tool the index does not hold yet.
    fn descriptor(&self) -> ToolDescriptor {
        let text = |zv: Option<&Zval>| zv.map(scalar_string).unwrap_or_default();
        let list = |ht: Option<&ZendHashTable>| {
            let mut out = Vec::new();
            if let Some(ht) = ht {
                zend::for_each_entry(ht, |_, v| {
                    out.push(scalar_string(v));
                    true
                });
            }
            out
        };
        let [domains, tags, intents, examples] = self.lists;
        ToolDescriptor {
            name: text(self.name),
            description: text(self.description),
            domains: list(domains),
            tags: list(tags),
            intents: list(intents),
            examples: list(examples),
        }
    }
}

/// The four signal lists of a metadata object, read from its property table.
fn signal_lists(obj: &ZendObject) -> [Option<&ZendHashTable>; 4] {
    let Ok(props) = obj.get_properties() else {
        return [None; 4];
    };
    FIELDS.map(|field| rs::get_bytes(props, field.as_bytes()).and_then(Zval::array))
}

/// Reads every schema (and its metadata) of a call; None with a TypeError pending.
///
/// A router that prepared these very arrays last time (and still holds them, see
/// `router_identity`) gets its prepared tools back without their text being read.
fn collect<'a>(
    method: &str,
    router: Option<&ZendObject>,
    all: &'a Zval,
    metadata_zv: Option<&'a Zval>,
) -> Option<Batch<'a>> {
    let schemas = all.array()?;
    let metadata = metadata_zv.and_then(Zval::array);
    if let Some(prepared) = router_identity::lookup(router, schemas, metadata) {
        let mut zvals = Vec::with_capacity(prepared.len());
        zend::for_each_entry(schemas, |_, zv| {
            zvals.push(zv);
            true
        });
        if zvals.len() == prepared.len() {
            return Some(Batch {
                schemas: zvals,
                prepared,
            });
        }
    }
    let mut zvals = Vec::with_capacity(schemas.len());
    let mut prepared = Vec::with_capacity(schemas.len());
    let mut failed = false;
    let mut lower: Vec<u8> = Vec::new();
    zend::for_each_entry(schemas, |_, zv| {
        let Some(schema) = zv.array() else {
            rs::throw_type_error(&format!(
                "{TOOL_ROUTER_NAME}::{method}(): Argument #1 ($allSchemas) must contain only schema arrays, {} given",
                rs::type_name(zv)
            ));
            failed = true;
            return false;
        };
        let name = schema_field(schema, "name");
        let mut tool = ZvalTool {
            name,
            description: schema_field(schema, "description"),
            lists: [None; 4],
        };
        if let Some(m) = metadata {
            lower.clear();
            if let Some(n) = name {
                match n.zend_str() {
                    Some(s) => lower.extend(s.as_bytes().iter().map(u8::to_ascii_lowercase)),
                    None => lower.extend(scalar_bytes(n).iter().map(u8::to_ascii_lowercase)),
                }
            }
            if let Some(meta) = rs::get_bytes(m, &lower).filter(|v| !v.is_null()) {
                let Some(obj) = meta.object() else {
                    rs::throw_type_error(&format!(
                        "{TOOL_ROUTER_NAME}::{method}(): Argument #4 ($metadata) must hold PhpClaw\\Tools\\ToolRoutingMetadata objects, {} given for '{}'",
                        rs::type_name(meta),
                        String::from_utf8_lossy(&lower)
                    ));
                    failed = true;
                    return false;
                };
                tool.lists = signal_lists(obj);
            }
        }
        let hash = hash_pieces(&tool);
        let p = match prepared_index::lookup(&tool, hash) {
            Some(p) => p,
            None => prepared_index::insert(&tool.descriptor(), hash),
        };
        zvals.push(zv);
        prepared.push(p);
        true
    });
    if failed {
        return None;
    }
    let prepared = batch_of(prepared);
    router_identity::remember(router, all, metadata_zv, Arc::clone(&prepared));
    Some(Batch {
        schemas: zvals,
        prepared,
    })
}

fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Optional string argument `n` (default ''); None with a TypeError pending.
fn opt_string(f: &Frame<'_>, n: usize) -> Option<String> {
    match f.arg(n) {
        None => Some(String::new()),
        Some(_) => f.string(n).map(lossy),
    }
}

/// Optional array argument `n` (default []); `Some(None)` when absent.
fn opt_array<'a>(f: &Frame<'a>, n: usize) -> Option<Option<&'a ZendHashTable>> {
    match f.arg(n) {
        None => Some(None),
        Some(_) => f.array(n).map(|zv| zv.array()),
    }
}

/// Optional array argument `n` as its zval; `Some(None)` when absent.
fn opt_array_zval<'a>(f: &Frame<'a>, n: usize) -> Option<Option<&'a Zval>> {
    match f.arg(n) {
        None => Some(None),
        Some(_) => f.array(n).map(Some),
    }
}

fn names_of<'a>(batch: &'a Batch<'_>, ids: &[usize]) -> Vec<&'a str> {
    ids.iter()
        .filter_map(|&i| batch.prepared.get(i).map(|p| p.name_lower()))
        .collect()
}

fn shared_list(batch: &Batch<'_>, ids: &[usize]) -> Zval {
    list(
        ids.iter()
            .filter_map(|&i| batch.schemas.get(i).map(|zv| zend::share(zv)))
            .collect(),
    )
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 2) {
        return;
    }
    let Some(this) = f.this() else { return };
    let max = match f.arg(0) {
        None => 0,
        Some(_) => match f.long(0) {
            Some(v) => v,
            None => return,
        },
    };
    let share = match f.arg(1) {
        None => 0.0,
        Some(_) => match float_arg(&f, 1) {
            Some(v) => v,
            None => return,
        },
    };
    let scope = TOOL_ROUTER.ptr();
    zend::write_property(scope, this, PROP_MAX, &mut long_zval(max));
    if zend::pending() {
        return;
    }
    zend::write_property(scope, this, PROP_SHARE, &mut double_zval(share));
    if zend::pending() {
        return;
    }
    set_last_ranked(this, &[]);
}

extern "C" fn last_ranked_names(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    *rv = zend::read_property(TOOL_ROUTER.ptr(), this, PROP_LAST)
        .filter(Zval::is_array)
        .unwrap_or_else(Zval::new_array);
}

extern "C" fn filter(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 4) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(all) = f.array(0) else { return };
    let Some(message) = f.string(1).map(lossy) else {
        return;
    };
    let Some(model) = opt_string(&f, 2) else {
        return;
    };
    let Some(metadata) = opt_array_zval(&f, 3) else {
        return;
    };
    let Some(schemas) = all.array() else { return };
    let s = settings(this);
    // Within budget (or no cap): the list comes back as it was given, untouched.
    if within_budget(resolve_budget(s.max, &model), schemas.len()) {
        set_last_ranked(this, &[]);
        *rv = zend::share(all);
        return;
    }
    let Some(batch) = collect("filter", Some(this), all, metadata) else {
        return;
    };
    let share = route::effective_share(s.share, None);
    let selection = route::select(
        batch.prepared.tools(),
        &message,
        &model,
        Router::new(s.max),
        share,
        &[],
    );
    set_last_ranked(this, &names_of(&batch, &selection.chosen_order));
    *rv = shared_list(&batch, &selection.selected);
}

/// Whether a turn's budget lets every tool through: no cap, or at most that many tools.
fn within_budget(budget: Option<usize>, count: usize) -> bool {
    match budget {
        None => true,
        Some(limit) => count <= limit,
    }
}

extern "C" fn confidence(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 3) {
        return;
    }
    let Some(all) = f.array(0) else { return };
    let Some(message) = f.string(1).map(lossy) else {
        return;
    };
    let Some(metadata) = opt_array_zval(&f, 2) else {
        return;
    };
    let Some(batch) = collect("confidence", f.this(), all, metadata) else {
        return;
    };
    rv.set_double(Router::confidence_batch(&batch.prepared, &message));
}

/// Bytes of a schema as PHP's `json_encode($schema)` (default flags) writes it; 0 when PHP
/// cannot encode it.
fn schema_json_len(schema: &Zval) -> usize {
    match json::to_vec(ZvalView::new(schema), EncodeOptions::default()) {
        Ok(bytes) => bytes.len() + route::default_flags_extra_bytes(&bytes),
        Err(EncodeError::Unsupported) => {
            // Objects (e.g. `{}` for empty properties): PHP's own encoder measures them.
            // An exception from a JsonSerializable stays pending and ends route().
            if zend::pending() {
                return 0;
            }
            match zend::call_function("json_encode", &mut [zend::share(schema)]) {
                Ok(v) => v.zend_str().map_or(0, |s| s.len()),
                Err(_) => 0,
            }
        }
        Err(_) => 0,
    }
}

extern "C" fn route_turn(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 9) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(all) = f.array(0) else { return };
    let Some(message) = f.string(1).map(lossy) else {
        return;
    };
    let Some(model) = opt_string(&f, 2) else {
        return;
    };
    let Some(metadata) = opt_array_zval(&f, 3) else {
        return;
    };
    let Some(profile_arg) = nullable_string_arg(&f, 4) else {
        return;
    };
    let profile = match profile_arg {
        None => None,
        Some(name) => match lossy(name).parse::<Profile>() {
            Ok(p) => Some(p),
            Err(_) => {
                rs::throw_value_error(&format!(
                    "{TOOL_ROUTER_NAME}::route(): Argument #5 ($profile) must be \"minimal\", \"standard\", \"full\" or null"
                ));
                return;
            }
        },
    };
    let Some(always_arg) = opt_array(&f, 5) else {
        return;
    };
    let mut always = Vec::new();
    if let Some(ht) = always_arg {
        zend::for_each_entry(ht, |_, v| {
            always.push(scalar_string(v));
            true
        });
    }
    let system_prompt_chars = match f.arg(6) {
        None => 0,
        Some(_) => match f.string(6) {
            Some(s) => s.len(),
            None => return,
        },
    };
    let Some(history_arg) = opt_array(&f, 7) else {
        return;
    };
    let mut history = Vec::new();
    let mut bad_history = None;
    if let Some(ht) = history_arg {
        zend::for_each_entry(ht, |_, v| {
            if let Some(s) = v.zend_str() {
                history.push(s.len());
            } else if let Some(n) = v.long().filter(|n| *n >= 0) {
                history.push(usize::try_from(n).unwrap_or(usize::MAX));
            } else {
                bad_history = Some(rs::type_name(v));
                return false;
            }
            true
        });
    }
    if let Some(given) = bad_history {
        rs::throw_type_error(&format!(
            "{TOOL_ROUTER_NAME}::route(): Argument #8 ($history) must contain only strings or non-negative int lengths, {given} given"
        ));
        return;
    }
    let Some(budget_arg) = nullable_long_arg(&f, 8) else {
        return;
    };
    let request_budget = match budget_arg {
        None => profile.map_or(0, Profile::request_budget),
        Some(n) => usize::try_from(n.max(0)).unwrap_or(usize::MAX),
    };
    let Some(batch) = collect("route", Some(this), all, metadata) else {
        return;
    };
    let s = settings(this);
    let opts = RouteOptions {
        router: Router::new(s.max),
        min_score_share: s.share,
        profile,
        always_include: &always,
        system_prompt_chars,
        history_chars: &history,
        request_budget,
    };
    let turn = route::route(batch.prepared.tools(), &message, &model, &opts, |i| {
        batch.schemas.get(i).map_or(0, |zv| schema_json_len(zv))
    });
    if zend::pending() {
        return;
    }
    let sel = &turn.selection;
    let ranked = names_of(&batch, &sel.chosen_order);
    set_last_ranked(this, &ranked);
    let budget = match sel.budget {
        Some(b) => long_zval(i64::try_from(b).unwrap_or(i64::MAX)),
        None => Zval::null(),
    };
    *rv = zend::assoc(vec![
        ("schemas", shared_list(&batch, &turn.offered)),
        ("ranked", string_list(&ranked)),
        ("pinned", string_list(&names_of(&batch, &sel.pinned))),
        (
            "always",
            string_list(&names_of(&batch, &sel.always_included)),
        ),
        ("dropped", string_list(&names_of(&batch, &turn.dropped))),
        ("routed", bool_zval(sel.engaged)),
        ("budget", budget),
        (
            "estimate",
            long_zval(i64::try_from(turn.estimate_tokens).unwrap_or(i64::MAX)),
        ),
    ]);
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let array_arg = |name: &str| Arg::new(name, DataType::Array);
    ClassBuilder::new(TOOL_ROUTER_NAME)
        .flags(ClassFlags::Final)
        .constant("UNLIMITED", UNLIMITED, &[], ConstantFlags::Public)?
        .method(
            FunctionBuilder::constructor(construct)
                .arg(Arg::new("maxToolsPerTurn", DataType::Long).default("0"))
                .arg(Arg::new("minScoreShare", DataType::Double).default("0.0"))
                .required_args(0),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("lastRankedNames", last_ranked_names).returns(
                DataType::Array,
                false,
                false,
            ),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("filter", filter)
                .arg(array_arg("allSchemas"))
                .arg(Arg::new("message", DataType::String))
                .arg(Arg::new("model", DataType::String).default("''"))
                .arg(array_arg("metadata").default("[]"))
                .required_args(2)
                .returns(DataType::Array, false, false),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("confidence", confidence)
                .arg(array_arg("allSchemas"))
                .arg(Arg::new("message", DataType::String))
                .arg(array_arg("metadata").default("[]"))
                .required_args(2)
                .returns(DataType::Double, false, false),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("route", route_turn)
                .arg(array_arg("allSchemas"))
                .arg(Arg::new("message", DataType::String))
                .arg(Arg::new("model", DataType::String).default("''"))
                .arg(array_arg("metadata").default("[]"))
                .arg(
                    Arg::new("profile", DataType::String)
                        .allow_null()
                        .default("null"),
                )
                .arg(array_arg("alwaysInclude").default("[]"))
                .arg(Arg::new("systemPrompt", DataType::String).default("''"))
                .arg(array_arg("history").default("[]"))
                .arg(
                    Arg::new("requestBudget", DataType::Long)
                        .allow_null()
                        .default("null"),
                )
                .required_args(2)
                .returns(DataType::Array, false, false),
            MethodFlags::Public,
        )
        .registration(|ce, _| {
            let private = ACC_PRIVATE;
            let readonly = private | zend::ACC_READONLY;
            zend::declare_typed_property(
                ce,
                PROP_MAX,
                readonly,
                zend::mask_type(MAY_BE_LONG),
                None,
            );
            zend::declare_typed_property(
                ce,
                PROP_SHARE,
                readonly,
                zend::mask_type(MAY_BE_DOUBLE),
                None,
            );
            zend::declare_typed_property(
                ce,
                PROP_LAST,
                private,
                zend::mask_type(zend::MAY_BE_ARRAY),
                None,
            );
            router_identity::install(ce);
            TOOL_ROUTER.set(ce);
        })
        .register()
}
