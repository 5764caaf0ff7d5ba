//! The guard's clock and its log of a session's events.

use jsonrpc_errors_host::guard::Event;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

pub(crate) fn log_event(e: &Event) {
    let id = e.id.as_ref().map(|v| v.to_string());
    macro_rules! emit {
        ($level:ident) => {
            tracing::$level!(
                event = e.event.as_str(),
                kind = e.kind.as_deref(),
                code = e.code,
                category = e.category.as_deref(),
                gate = e.gate.as_deref(),
                correlation_id = e.correlation_id.as_deref(),
                id = id.as_deref(),
                method = e.method.as_deref(),
                detail = e.detail.as_deref(),
                rule = e.rule.as_deref(),
                tool = e.tool.as_deref(),
                "{}",
                e.kind.as_deref().unwrap_or(e.event.as_str())
            )
        };
    }
    match e.level.as_str() {
        "error" => emit!(error),
        "warn" => emit!(warn),
        "info" => emit!(info),
        _ => emit!(debug),
    }
}
