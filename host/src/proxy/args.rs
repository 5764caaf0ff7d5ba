//! The guard's command-line arguments (`jsonrpc-errors guard`), as `main.rs` parsed them.

use super::config::ConfigFile;
use super::http::listen::Listen;
use super::metrics::MetricsAddr;
use super::transport;
use jsonrpc_errors_host::guard::{Options, Settings};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Text,
}

pub struct Args {
    pub session: Options,
    /// What the session resolved `session` to (`Session::settings`): the limits the fronts' readers keep.
    pub settings: Settings,
    /// The upstream: a command the guard starts, or a server at a URL (`--upstream`).
    pub transport: transport::Spec,
    pub log_format: LogFormat,
    pub log_level: tracing::Level,
    pub metrics_addr: Option<MetricsAddr>,
    /// `--listen`: serve the upstream as Streamable HTTP instead of over this process's stdio.
    pub listen: Option<Listen>,
    /// `--config`: the policy file (already read into `session.policy`), read again on SIGHUP.
    pub config: Option<ConfigFile>,
}
