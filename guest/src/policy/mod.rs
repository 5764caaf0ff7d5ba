//! One policy file for every guard (issue 27): per-tool and per-method timeouts, redaction options and
//! scopes beyond errors, actions per rule or category, read by the component so that every runtime's guard
//! obeys it identically and refuses a bad one with the same words.
//!
//! relay-pii's shape, one way: the document as written (`document.rs`: TOML, checked key by key), compiled
//! for a session (`compiled.rs`: names matched, rule names known, redactors built), and applied by
//! the guard session (guard/), which asks it what holds for each request.

pub mod compiled;
/// What `check-policy` answers (written by `cargo xtask gen` from the WIT's `policy-defaults`).
pub mod defaults;
pub mod document;
/// The document's JSON Schema, for editors (written by `cargo xtask gen`; not in the component).
#[cfg(not(target_family = "wasm"))]
pub mod schema;

pub use compiled::{Compiled, Effective};
pub use document::{Action, DocumentError, Scope};
