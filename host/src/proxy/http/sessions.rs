//! Legacy sessions (2025-11-25 and earlier): `initialize` opens one, with a child of its own, named by a
//! random `Mcp-Session-Id`; DELETE, `--idle-timeout` without an open stream, or the child's end close it
//! (the client is then told 404 and starts again, as the spec has it). At `--max-sessions`, a new session
//! takes the place of the least recently used one with nothing open: clients that leave without DELETE
//! must not lock every later client out until their sessions time out.

use super::super::metrics::Metrics;
use super::upstream::Upstream;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
pub struct Sessions {
    table: Mutex<HashMap<String, Arc<Upstream>>>,
}

/// 128 random bits from the system, as 32 hex digits (visible ASCII, as the spec asks of a session id).
pub fn new_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Never expected; a clock-seeded hash keeps ids unique at least.
        let ctx = jsonrpc_errors_host::Context::now();
        bytes[..8].copy_from_slice(&ctx.entropy.to_le_bytes());
        bytes[8..].copy_from_slice(&jsonrpc_errors_host::Context::now().entropy.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Upstream>>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn get(&self, id: &str) -> Option<Arc<Upstream>> {
        self.lock().get(id).cloned()
    }

    /// The session, unless it has ended: a session whose child is gone is not found (404) from the moment
    /// its end is known, though the reaper closes it only once what was open has been answered.
    pub fn live(&self, id: &str) -> Option<Arc<Upstream>> {
        self.get(id).filter(|up| !up.gone())
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether a new session could be added: fewer than `max` are open, or one of them has nothing open.
    pub fn room(&self, max: usize) -> bool {
        let table = self.lock();
        table.len() < max
            || table
                .values()
                .any(|up| up.open.load(Ordering::Acquire) == 0)
    }

    /// Adds a session; at `max`, in place of the least recently used one with nothing open, which is
    /// returned (out of the table: its child is the caller's to stop). Err: `max` are open, each busy.
    pub fn insert(
        &self,
        id: String,
        up: Arc<Upstream>,
        max: usize,
    ) -> Result<Option<(String, Arc<Upstream>)>, ()> {
        let mut table = self.lock();
        let mut evicted = None;
        if table.len() >= max {
            let lru = table
                .iter()
                .filter(|(_, up)| up.open.load(Ordering::Acquire) == 0)
                .max_by_key(|(_, up)| up.idle_for())
                .map(|(id, _)| id.clone())
                .ok_or(())?;
            evicted = table.remove_entry(&lru);
        }
        table.insert(id, up);
        Ok(evicted)
    }

    pub fn remove(&self, id: &str) -> Option<Arc<Upstream>> {
        self.lock().remove(id)
    }

    pub fn all(&self) -> Vec<Arc<Upstream>> {
        self.lock().values().cloned().collect()
    }

    pub fn take_all(&self) -> Vec<Arc<Upstream>> {
        self.lock().drain().map(|(_, up)| up).collect()
    }

    /// Ends a session: out of the table (later requests get 404), its child stopped.
    pub async fn close(&self, metrics: &Metrics, id: &str, why: &str) -> bool {
        let Some(up) = self.remove(id) else {
            return false;
        };
        metrics.sessions().set(self.len() as i64);
        tracing::info!(event = "session-closed", session = %short(id), "legacy session closed: {why}");
        up.retire().await;
        true
    }

    /// Closes the sessions whose child has ended and those idle (no stream open) for `idle_timeout`.
    pub async fn reap(self: Arc<Self>, metrics: Arc<Metrics>, idle_timeout: Duration) {
        let every = (idle_timeout / 4).clamp(Duration::from_millis(100), Duration::from_secs(1));
        loop {
            tokio::time::sleep(every).await;
            let table: Vec<(String, Arc<Upstream>)> = self
                .lock()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (id, up) in table {
                if up.gone() {
                    // Its GET stream ends; requests still open are answered by the session, then it closes.
                    up.close_own();
                    if up.open.load(Ordering::Acquire) == 0 {
                        self.close(&metrics, &id, "its upstream ended").await;
                    }
                } else if up.open.load(Ordering::Acquire) == 0 && up.idle_for() >= idle_timeout {
                    self.close(&metrics, &id, "idle").await;
                }
            }
        }
    }
}

/// The first characters of a session id, enough to tell sessions apart in the log.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}
