//! `--config FILE`: the guard's policy file (docs/policy.md). The component reads and checks it,
//! so the CLI refuses a bad file with the same words and positions as the Python and TypeScript sessions;
//! this module only reads the file, names it in the refusal, and hands the text on (at start, and again on
//! SIGHUP: a refused reload keeps the old policy).

use super::core::PolicyText;
use jsonrpc_errors_host::guard::PolicyDefaults;
use jsonrpc_errors_host::{ErrorObject, Runtime};
use std::path::PathBuf;
use std::sync::Arc;

/// The policy file a guard was started with.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
}

/// The environment a policy's `hash_key_env` is read from: this process's (names and values that are
/// not Unicode cannot be named by the file, and are left out).
pub fn environment() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

impl ConfigFile {
    /// Reads and checks the file: its text and the defaults it sets, or why it is refused, as
    /// `FILE:LINE:COLUMN: what is wrong` (the details scrubbed by the component: a value the file holds
    /// is not echoed into logs). Of the defaults (`check-policy`'s answer) the CLI reads only whether the file
    /// names a dialect, which decides whether an A2A upstream's own default (`a2a`) applies: every option is
    /// the session's to resolve, and it reports what it chose in its settings.
    pub fn load(&self, runtime: &Runtime) -> Result<(PolicyText, PolicyDefaults), String> {
        let name = self.path.display();
        let text = std::fs::read_to_string(&self.path)
            .map_err(|e| format!("{name}: cannot read the policy file: {e}"))?;
        let env = environment();
        let json = runtime
            .check_policy(&text, &env)
            .map_err(|f| refusal(&name.to_string(), &f))?;
        let defaults = PolicyDefaults::from_json(&json)
            .map_err(|e| format!("{name}: unexpected answer from check-policy: {e}"))?;
        Ok((PolicyText { text, env }, defaults))
    }
}

/// `FILE:LINE:COLUMN: details` from the component's invalid-policy error (or its message, for any other).
fn refusal(name: &str, f: &ErrorObject) -> String {
    let data: Option<serde_json::Value> =
        f.data.as_deref().and_then(|d| serde_json::from_str(d).ok());
    let field = |k: &str| data.as_ref().and_then(|d| d.get(k)).cloned();
    match (
        field("details").and_then(|d| d.as_str().map(str::to_string)),
        field("line"),
        field("column"),
    ) {
        (Some(details), Some(line), Some(column)) => format!("{name}:{line}:{column}: {details}"),
        (Some(details), _, _) => format!("{name}: {details}"),
        _ => format!("{name}: {}", f.message),
    }
}

/// SIGHUP with `--config`: the file read and checked again; the new policy, or None (logged: the old one
/// holds) when it is refused.
pub(crate) fn reload_policy(file: &ConfigFile, runtime: &Runtime) -> Option<Arc<PolicyText>> {
    match file.load(runtime) {
        Ok((policy, _)) => {
            tracing::info!(
                event = "policy-reloaded",
                "received SIGHUP; reloaded {} for the requests from now on",
                file.path.display()
            );
            Some(Arc::new(policy))
        }
        Err(why) => {
            tracing::warn!(event = "policy-reload-refused", detail = %why, "received SIGHUP; the new policy file is refused, the old one still holds");
            None
        }
    }
}
