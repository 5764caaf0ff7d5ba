//! axum integration (feature `axum`): responses and errors as handler return values.
//!
//! Every JSON-RPC answer is HTTP 200 with `application/json`: a JSON-RPC client reads the outcome from the
//! body, as MCP's and A2A's HTTP transports (and `jsonrpc-errors guard --listen`) answer. A server that
//! wants the taxonomy's HTTP status instead reads [`Kind::http_status`](crate::Kind::http_status).

use crate::error::{JsonRpcError, Rendered};
use crate::message::Response;
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::IntoResponse;

fn json(body: String) -> axum::response::Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

/// The guest's text, sent as it is.
impl IntoResponse for Rendered {
    fn into_response(self) -> axum::response::Response {
        json(self.into_string())
    }
}

/// Rendered in its dialect (see [`JsonRpcError::render`]).
impl IntoResponse for JsonRpcError {
    fn into_response(self) -> axum::response::Response {
        self.render().into_response()
    }
}

impl IntoResponse for Response {
    fn into_response(self) -> axum::response::Response {
        // Serializing a `Value` and an id cannot fail; should it, the client gets a plain -32603 for the id.
        let body = serde_json::to_string(&self).unwrap_or_else(|_| {
            let plain = jsonrpc_errors_guest::error::ErrorObject::internal();
            jsonrpc_errors_guest::error::error_response(&plain, self.id.to_value()).to_string()
        });
        json(body)
    }
}
