//! A small A2A-style JSON-RPC server on axum, in the two layers VAPORA's design describes: the agent's own
//! error type ([`AgentError`], a `thiserror` enum that knows nothing of JSON-RPC) and one [`ToErrorKind`]
//! impl that says which canonical kind each of its errors is. Everything else — codes, messages, `data`,
//! scrubbing, the dialect — is jsonrpc-errors' (natively: no WebAssembly).
//!
//! Methods: `skills/run {skill, text}`, `tasks/get {task_id}`, `tasks/transition {task_id, target}`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use jsonrpc_errors::{Dialect, ErrorKind, JsonRpcError, Request, Response, ToErrorKind};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The agent's own errors: what went wrong, in its words, with everything an operator needs.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no skill named {0}")]
    UnknownSkill(String),
    #[error("no task {0}")]
    NoTask(String),
    #[error("task {task_id} is {current}; it cannot become {target}")]
    BadTransition {
        task_id: String,
        current: String,
        target: String,
    },
    /// The skill store failed: its URL (with credentials) belongs in the operator's log, never in a response.
    #[error("skill store at {url} refused the connection")]
    StoreDown { url: String },
}

/// The one place the agent decides what a client learns about each of its errors.
impl ToErrorKind for AgentError {
    fn to_error_kind(&self) -> ErrorKind {
        match self {
            AgentError::UnknownSkill(name) => ErrorKind::UnknownSkill {
                skill: name.clone(),
            },
            AgentError::NoTask(id) => ErrorKind::TaskNotFound {
                task_id: id.clone(),
            },
            AgentError::BadTransition {
                current, target, ..
            } => ErrorKind::InvalidStateTransition {
                current: current.clone(),
                target: target.clone(),
            },
            // The coordinator failed; where and why is the operator's business.
            AgentError::StoreDown { .. } => ErrorKind::CoordinatorError { details: None },
        }
    }
}

/// One line per error answered: the kind, the correlation id the client got, and the domain error
/// (redacted). `main` writes them to stderr; the tests keep them.
pub type LogSink = Box<dyn Fn(String) + Send + Sync>;

/// The agent: a few skills and a task table.
pub struct Agent {
    dialect: Dialect,
    tasks: Mutex<HashMap<String, String>>,
    store_url: String,
    log: LogSink,
}

impl Agent {
    /// An agent answering in `dialect`, whose skill store lives at `store_url` (used by the `lookup` skill).
    pub fn new(dialect: Dialect, store_url: impl Into<String>, log: LogSink) -> Self {
        let tasks = HashMap::from([
            ("t-1".to_string(), "working".to_string()),
            ("t-2".to_string(), "completed".to_string()),
        ]);
        Agent {
            dialect,
            tasks: Mutex::new(tasks),
            store_url: store_url.into(),
            log,
        }
    }

    fn run_skill(&self, skill: &str, text: &str) -> Result<Value, AgentError> {
        match skill {
            "echo" => Ok(json!({ "text": text })),
            "shout" => Ok(json!({ "text": text.to_uppercase() })),
            "lookup" => Err(AgentError::StoreDown {
                url: self.store_url.clone(),
            }),
            other => Err(AgentError::UnknownSkill(other.to_string())),
        }
    }

    fn transition(&self, task_id: &str, target: &str) -> Result<Value, AgentError> {
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let current = tasks
            .get_mut(task_id)
            .ok_or_else(|| AgentError::NoTask(task_id.to_string()))?;
        if current == "completed" {
            let (current, target) = (current.clone(), target.to_string());
            return Err(AgentError::BadTransition {
                task_id: task_id.to_string(),
                current,
                target,
            });
        }
        *current = target.to_string();
        Ok(json!({ "task_id": task_id, "state": target }))
    }

    /// One request's outcome. `?` turns an [`AgentError`] into the canonical [`JsonRpcError`], and a params
    /// type that does not fit into `invalid-params`.
    fn dispatch(&self, request: &Request) -> Result<Value, JsonRpcError> {
        #[derive(serde::Deserialize)]
        struct Run {
            skill: String,
            text: String,
        }
        #[derive(serde::Deserialize)]
        struct Task {
            task_id: String,
            target: Option<String>,
        }
        match request.method.as_str() {
            "skills/run" => {
                let p: Run = request.params()?;
                Ok(self.run_skill(&p.skill, &p.text)?)
            }
            "tasks/get" => {
                let p: Task = request.params()?;
                let tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
                let state = tasks
                    .get(&p.task_id)
                    .ok_or_else(|| AgentError::NoTask(p.task_id.clone()))?;
                Ok(json!({ "task_id": p.task_id, "state": state }))
            }
            "tasks/transition" => {
                let p: Task = request.params()?;
                Ok(self.transition(&p.task_id, p.target.as_deref().unwrap_or("working"))?)
            }
            other => Err(ErrorKind::MethodNotFound {
                method: other.to_string(),
            }
            .into()),
        }
    }
}

/// `POST /rpc`: one JSON-RPC request per body.
async fn rpc(State(agent): State<Arc<Agent>>, body: Bytes) -> axum::response::Response {
    let request = match Request::parse(&body, agent.dialect) {
        Ok(request) => request,
        // Not JSON, or not a request: the guest's answer, in the agent's dialect.
        Err(rendered) => return rendered.into_response(),
    };
    let outcome = agent.dispatch(&request);
    let Some(id) = request.id else {
        // A notification is owed no answer, not even an error.
        return StatusCode::ACCEPTED.into_response();
    };
    match outcome {
        Ok(result) => Response::success(id, result).into_response(),
        Err(error) => {
            let error = error.with_id(id).in_dialect(agent.dialect);
            (agent.log)(format!(
                "answered {} correlation_id={} detail={}",
                error.kind(),
                error.correlation_id(),
                error.log_detail().unwrap_or_default()
            ));
            error.into_response()
        }
    }
}

/// The server's routes.
pub fn router(agent: Agent) -> Router {
    Router::new()
        .route("/rpc", post(rpc))
        .with_state(Arc::new(agent))
}
