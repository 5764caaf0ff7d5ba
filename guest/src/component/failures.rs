// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

use super::exports::jsonrpc_errors::core::guard as wit;
use crate::guard::{RequestFailure, UpstreamFailure};

impl From<wit::UpstreamFailure> for UpstreamFailure {
    fn from(failure: wit::UpstreamFailure) -> Self {
        match failure {
            wit::UpstreamFailure::SpawnFailed(v) => UpstreamFailure::SpawnFailed(v),
            wit::UpstreamFailure::Exited(v) => UpstreamFailure::Exited(v),
            wit::UpstreamFailure::Killed(v) => UpstreamFailure::Killed(v),
            wit::UpstreamFailure::ClosedOutput => UpstreamFailure::ClosedOutput,
        }
    }
}

impl From<wit::RequestFailure> for RequestFailure {
    fn from(failure: wit::RequestFailure) -> Self {
        match failure {
            wit::RequestFailure::Unreachable(v) => RequestFailure::Unreachable(v),
            wit::RequestFailure::Refused(r) => RequestFailure::Refused {
                status: r.status,
                retry_after_secs: r.retry_after_secs,
            },
            wit::RequestFailure::SessionGone => RequestFailure::SessionGone,
        }
    }
}
