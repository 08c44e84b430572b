//! Which tools a turn sees, and how big one tool result may be.
//!
//! Three stages narrow the tool set, as the spec's "Which tools a turn sees" lays out:
//! 1. [`profiles`]: the provider and model pick a profile, which sets a tool budget, a request
//!    token budget and lean descriptions; deny lists are applied here too.
//! 2. [`router`]: pins the tools the message names, ranks the rest on six weighted signals and
//!    slices to the per-turn budget ([`budget`] derives it from the model id when unset).
//! 3. [`fit`]: drops the lowest-ranked tools until the estimated request fits the profile.
//!
//! [`result_cap`] cuts an oversized tool result. [`text`] holds the tokenising rules the router
//! applies to messages and tool metadata alike.

pub mod batch;
pub mod budget;
pub mod fit;
pub mod prepared_index;
pub mod profiles;
pub mod result_cap;
pub mod route;
pub mod router;
pub mod schemas;
pub mod text;
#[cfg(test)]
mod text_parity;
pub mod tidy;

pub use budget::{model_budget, resolve_budget, DEFAULT_BUDGET, MODEL_BUDGETS, UNLIMITED};
pub use fit::{estimate_tokens, fit_request, FitOutcome, FitRequest, FitTool};
pub use profiles::{resolve as resolve_profile, DanglingMember, Profile, UnknownProfile};
pub use result_cap::{cap_result, cap_result_bytes, DEFAULT_MAX_TOOL_RESULT_TOKENS};
pub use router::{
    prepare, prepare_all, PreparedTool, RankedTool, Router, Selection, ToolDescriptor,
};
