// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

export const TAXONOMY_VERSION = "0.1.0" as const;

/** `validate`'s default size limit, in bytes. */
export const DEFAULT_MAX_BYTES = 10485760 as const;

export const ERROR_KINDS = [
  "parse-error",
  "invalid-request",
  "method-not-found",
  "invalid-params",
  "internal-error",
  "tool-not-exposed",
  "governance-rule-denied",
  "policy-denied",
  "approval-rejected",
  "approval-timeout",
  "workflow-not-found",
  "upstream-connection-failed",
  "upstream-timeout",
  "upstream-error",
  "task-not-found",
  "task-expired",
  "task-cancelled",
  "inspection-failed",
  "policy-drift",
  "transform-drift",
  "invalid-state-transition",
  "configuration-error",
  "rate-limited",
  "service-unavailable",
  "timeout",
  "backend-unavailable",
  "security-violation",
  "validation-failed",
  "unknown-skill",
  "coordinator-error",
  "validation-error",
  "missing-required-field",
  "invalid-format",
  "adapter-error",
  "not-implemented",
  "task-not-cancelable",
  "push-notification-not-supported",
  "unsupported-operation",
  "content-type-not-supported",
  "invalid-agent-response",
  "extended-agent-card-not-configured",
  "extension-support-required",
  "version-not-supported",
  "header-mismatch",
  "missing-client-capability",
  "unsupported-protocol-version",
  "session-required",
  "session-not-found",
  "front-unavailable",
] as const;

/** Every error kind. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

export const DIALECTS = ["canonical", "duet", "vapora", "thoughtgate", "error-model", "watchgate", "mcp", "a2a"] as const;

/** Every dialect a kind can be rendered in. */
export type Dialect = (typeof DIALECTS)[number];

export type Category = "client" | "gate" | "upstream" | "task" | "transient" | "security" | "server" | "domain";

export type Gate = "visibility" | "governance" | "policy" | "approval";

/** The input fields of each kind. */
export interface KindFields {
  "parse-error": { details?: string };
  "invalid-request": { reason?: string; details?: string };
  "method-not-found": { method: string };
  "invalid-params": { param?: string; expected?: string; received?: string; accepted?: string[]; details?: string };
  "internal-error": { details?: string };
  "tool-not-exposed": { tool: string; source?: string };
  "governance-rule-denied": { tool: string; rule?: string };
  "policy-denied": { tool: string; policy_id?: string; reason?: string };
  "approval-rejected": { tool: string; rejected_by?: string; workflow?: string };
  "approval-timeout": { tool: string; timeout_secs: number; workflow?: string };
  "workflow-not-found": { workflow: string };
  "upstream-connection-failed": { url: string; reason?: string };
  "upstream-timeout": { url?: string; timeout_secs: number };
  "upstream-error": { code?: number; message?: string };
  "task-not-found": { task_id: string };
  "task-expired": { task_id: string; ttl_secs?: number };
  "task-cancelled": { task_id: string };
  "inspection-failed": { inspector: string; reason?: string };
  "policy-drift": { task_id: string };
  "transform-drift": { task_id: string };
  "invalid-state-transition": { current: string; target: string };
  "configuration-error": { details: string };
  "rate-limited": { retry_after_secs?: number };
  "service-unavailable": { reason?: string; retry_after_secs?: number };
  "timeout": Record<never, never>;
  "backend-unavailable": Record<never, never>;
  "security-violation": { details?: string };
  "validation-failed": { details?: string };
  "unknown-skill": { skill: string };
  "coordinator-error": { details?: string };
  "validation-error": { field?: string };
  "missing-required-field": { field: string };
  "invalid-format": { field: string };
  "adapter-error": { original_error?: string; retryable?: boolean };
  "not-implemented": Record<never, never>;
  "task-not-cancelable": { task_id: string; current_state?: string };
  "push-notification-not-supported": Record<never, never>;
  "unsupported-operation": { operation?: string };
  "content-type-not-supported": { content_type?: string };
  "invalid-agent-response": { details?: string };
  "extended-agent-card-not-configured": Record<never, never>;
  "extension-support-required": { extension?: string };
  "version-not-supported": { version?: string };
  "header-mismatch": { details: string };
  "missing-client-capability": Record<never, never>;
  "unsupported-protocol-version": { supported: string[]; requested: string };
  "session-required": { details?: string };
  "session-not-found": Record<never, never>;
  "front-unavailable": { reason: string };
}

/** Each dialect's generic data fields: `mapError` to that dialect accepts them on every kind. */
export interface DialectFields {
  "canonical": Record<never, never>;
  "duet": Record<never, never>;
  "vapora": Record<never, never>;
  "thoughtgate": Record<never, never>;
  "error-model": { field?: string; reason?: string; suggestion?: string; context?: Record<string, unknown> };
  "watchgate": { details?: string; request_id?: string };
  "mcp": Record<never, never>;
  "a2a": Record<never, never>;
}

export interface KindInfo {
  category: Category;
  gate: Gate | null;
  retryable: boolean;
  httpStatus: number;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
}

export const KINDS: { readonly [K in ErrorKind]: KindInfo } = {
  "parse-error": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "invalid-request": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "method-not-found": { category: "client", gate: null, retryable: false, httpStatus: 404, logLevel: "warn" },
  "invalid-params": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "internal-error": { category: "server", gate: null, retryable: false, httpStatus: 500, logLevel: "error" },
  "tool-not-exposed": { category: "gate", gate: "visibility", retryable: false, httpStatus: 404, logLevel: "warn" },
  "governance-rule-denied": { category: "gate", gate: "governance", retryable: false, httpStatus: 403, logLevel: "warn" },
  "policy-denied": { category: "gate", gate: "policy", retryable: false, httpStatus: 403, logLevel: "warn" },
  "approval-rejected": { category: "gate", gate: "approval", retryable: false, httpStatus: 403, logLevel: "info" },
  "approval-timeout": { category: "gate", gate: "approval", retryable: true, httpStatus: 408, logLevel: "info" },
  "workflow-not-found": { category: "server", gate: "approval", retryable: false, httpStatus: 500, logLevel: "error" },
  "upstream-connection-failed": { category: "upstream", gate: null, retryable: true, httpStatus: 502, logLevel: "error" },
  "upstream-timeout": { category: "upstream", gate: null, retryable: true, httpStatus: 504, logLevel: "warn" },
  "upstream-error": { category: "upstream", gate: null, retryable: false, httpStatus: 502, logLevel: "warn" },
  "task-not-found": { category: "task", gate: null, retryable: false, httpStatus: 404, logLevel: "info" },
  "task-expired": { category: "task", gate: null, retryable: false, httpStatus: 410, logLevel: "info" },
  "task-cancelled": { category: "task", gate: null, retryable: false, httpStatus: 409, logLevel: "info" },
  "inspection-failed": { category: "security", gate: null, retryable: false, httpStatus: 403, logLevel: "warn" },
  "policy-drift": { category: "task", gate: null, retryable: false, httpStatus: 409, logLevel: "warn" },
  "transform-drift": { category: "task", gate: null, retryable: false, httpStatus: 409, logLevel: "warn" },
  "invalid-state-transition": { category: "task", gate: null, retryable: false, httpStatus: 409, logLevel: "warn" },
  "configuration-error": { category: "server", gate: null, retryable: false, httpStatus: 500, logLevel: "error" },
  "rate-limited": { category: "transient", gate: null, retryable: true, httpStatus: 429, logLevel: "warn" },
  "service-unavailable": { category: "transient", gate: null, retryable: true, httpStatus: 503, logLevel: "warn" },
  "timeout": { category: "transient", gate: null, retryable: true, httpStatus: 504, logLevel: "warn" },
  "backend-unavailable": { category: "transient", gate: null, retryable: true, httpStatus: 503, logLevel: "warn" },
  "security-violation": { category: "security", gate: null, retryable: false, httpStatus: 403, logLevel: "warn" },
  "validation-failed": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "unknown-skill": { category: "client", gate: null, retryable: false, httpStatus: 404, logLevel: "warn" },
  "coordinator-error": { category: "server", gate: null, retryable: true, httpStatus: 500, logLevel: "error" },
  "validation-error": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "missing-required-field": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "invalid-format": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "warn" },
  "adapter-error": { category: "domain", gate: null, retryable: false, httpStatus: 502, logLevel: "warn" },
  "not-implemented": { category: "domain", gate: null, retryable: false, httpStatus: 501, logLevel: "info" },
  "task-not-cancelable": { category: "task", gate: null, retryable: false, httpStatus: 409, logLevel: "info" },
  "push-notification-not-supported": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "unsupported-operation": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "content-type-not-supported": { category: "client", gate: null, retryable: false, httpStatus: 415, logLevel: "info" },
  "invalid-agent-response": { category: "upstream", gate: null, retryable: false, httpStatus: 502, logLevel: "error" },
  "extended-agent-card-not-configured": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "extension-support-required": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "version-not-supported": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "header-mismatch": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "missing-client-capability": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "unsupported-protocol-version": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "session-required": { category: "client", gate: null, retryable: false, httpStatus: 400, logLevel: "info" },
  "session-not-found": { category: "client", gate: null, retryable: false, httpStatus: 404, logLevel: "info" },
  "front-unavailable": { category: "transient", gate: null, retryable: true, httpStatus: 503, logLevel: "info" },
};
