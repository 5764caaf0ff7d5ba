//! What the taxonomy says about a kind, read from the guest's table (the one the component renders from):
//! the generated [`Kind`] carries names only, so it holds nothing that could disagree with the table.

use crate::kinds::Kind;
use jsonrpc_errors_guest::taxonomy::{self, Dialect};

impl Kind {
    fn row(self) -> &'static taxonomy::Kind {
        // `Kind` is generated from the same table (`cargo xtask gen --check` fails when it is stale, and a test
        // looks every kind up), so the name is always there.
        taxonomy::taxonomy()
            .kind(self.name())
            .expect("every generated kind is in the taxonomy")
    }

    /// The code `dialect` answers this kind with; `None` where the dialect does not define the kind.
    pub fn code(self, dialect: Dialect) -> Option<i32> {
        self.row()
            .dialect(dialect.name())
            .and_then(|entry| entry.code)
    }

    /// Who is at fault, broadly: `client`, `gate`, `upstream`, `task`, `transient`, `security`, `server` or
    /// `domain`.
    pub fn category(self) -> &'static str {
        &self.row().category
    }

    /// Whether the same call may succeed later (the canonical dialect's `data.retryable`).
    pub fn retryable(self) -> bool {
        self.row().retryable
    }

    /// What a caller should do next, in one sentence.
    pub fn retry_hint(self) -> &'static str {
        &self.row().retry_hint
    }

    /// The HTTP status that means the same thing, for servers that answer JSON-RPC errors with one (the axum
    /// integration answers 200: JSON-RPC clients read the error from the body).
    pub fn http_status(self) -> u16 {
        self.row().http_status
    }

    /// The level the taxonomy logs this kind at: `error`, `warn`, `info` or `debug`.
    pub fn log_level(self) -> &'static str {
        &self.row().log_level
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
