//! jsonrpc-errors for Rust servers and clients, natively: no WebAssembly, the same output.
//!
//! The guest crate (`jsonrpc-errors-guest`), which the component is compiled from, builds as a plain Rust
//! library too; this crate types what goes in and out of it:
//!
//! - [`ErrorKind`] (each kind with its fields) and [`Kind`] (without), generated from
//!   `taxonomy/taxonomy.toml` by `cargo xtask gen`;
//! - [`Request`], [`Response`], [`ErrorObject`], [`Id`]: JSON-RPC 2.0 messages as serde types;
//! - [`ToErrorKind`] and [`JsonRpcError`]: an application's own error → the canonical JSON-RPC error,
//!   rendered in a [`Dialect`] by the guest's `map` ([`JsonRpcError::render`]);
//! - [`RemoteError`]: a client reads an error response back into its kind ([`Response::into_result`]);
//! - with the `axum` feature, `IntoResponse` for [`JsonRpcError`], [`Rendered`] and [`Response`].
//!
//! Nothing here maps, validates, scrubs or redacts: the guest does, so a response is byte for byte what the
//! component writes for the same input (the conformance vectors run natively and through the component in
//! `host/tests/vectors.rs`; this crate's `src/vector_tests.rs` renders every map vector through the typed kinds).
//!
//! ```
//! use jsonrpc_errors::{Dialect, ErrorKind, JsonRpcError, Kind, Response};
//!
//! // Server: a canonical error for request 7, in VAPORA's dialect.
//! let error = JsonRpcError::new(ErrorKind::UnknownSkill { skill: "summarize".into() })
//!     .with_id(7)
//!     .in_dialect(Dialect::Vapora);
//! let body = error.render().into_string();
//! assert!(body.starts_with(r#"{"jsonrpc":"2.0","error":{"code":-32000"#));
//!
//! // Client: the same body read back into its kind.
//! let response: Response = serde_json::from_str(&body).unwrap();
//! let remote = response.into_result(Dialect::Vapora).unwrap_err();
//! assert_eq!(remote.kind(), Some(Kind::UnknownSkill));
//! ```
//!
//! The secret values of the server's environment are scrubbed from responses once the guest knows them:
//! call [`set_environment`] at start (`jsonrpc_errors::set_environment(&std::env::vars().collect::<Vec<_>>())`).

// The module stack, bottom up: each uses only those above it.
mod map_input;
mod kinds;
mod facts;
mod message;
mod error;
mod remote;
#[cfg(feature = "axum")]
mod axum;

pub use error::{JsonRpcError, Rendered, ToErrorKind};
pub use jsonrpc_errors_guest::set_environment;
pub use jsonrpc_errors_guest::taxonomy::Dialect;
pub use kinds::{ErrorKind, Kind};
pub use message::{ErrorObject, Id, Request, Response, Version};
pub use remote::RemoteError;

#[cfg(test)]
mod vector_tests;
