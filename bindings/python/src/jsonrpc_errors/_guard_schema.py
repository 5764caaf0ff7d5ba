# Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.
"""A guard session's options and what its calls return, as ``interface guard`` in wit/world.wit states them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional, TypedDict

from wasmtime.component import Record

from ._args import _bool, _pairs, _text, _texts, _u64
from ._errors import ArgumentTypeError, JsonRpcErrorsValueError

#: Where a step writes.
Peer = Literal["client", "upstream"]

#: What an event reports.
EventName = Literal["answered", "sanitized", "redacted", "repaired", "dropped", "client-cancelled", "upstream-ended", "blocked", "audited"]

#: The level a kind is logged at.
LogLevel = Literal["error", "warn", "info", "debug"]


class Step(TypedDict, total=False):
    """One step, carried out in order: ``step`` names the case (``forward``, ``send``, ``event``, ``end``); the other members are its fields,
    absent when none."""

    step: Literal["forward", "send", "event", "end"]
    to: Peer
    #: The client stream, once the session serves several (`client-line-on`).
    stream: int
    line: str
    event: EventName
    level: LogLevel
    kind: str
    #: The code the client got (none for an `isError` tool result).
    code: int
    category: str
    gate: str
    #: The correlation id the client's response carries, when it carries one.
    correlation_id: str
    #: The JSON-RPC id of the request concerned.
    id: Any
    method: str
    detail: str
    #: A policy decision's rule (or category): never the value it found.
    rule: str
    #: The tool (or method) a policy decision was taken for, as a label of a bounded set: a tool the
    #: upstream listed or the policy names (or the glob that matched it), a method MCP defines, else
    #: `other` (the name then in `detail`); at most 64 bytes.
    tool: str


class Outcome(TypedDict):
    """What a session call returns."""

    #: The steps to carry out, in order.
    steps: list[Step]
    #: Client requests still waiting for an answer.
    pending: int
    #: When to call `expire` (unix milliseconds), or null.
    deadline: Optional[int]


class GuardOptions(TypedDict, total=False):
    """:class:`GuardSession`'s keyword options (the dialect is its first argument)."""

    #: Largest client message in bytes. Not given: the policy file's `max_bytes`, else 10 MiB (the taxonomy's
    #: default).
    max_bytes: Optional[int]
    #: Whether a client batch is split and relayed, or refused. Not given: the policy file's `batch`, else
    #: `reject`.
    batch: Optional[Literal["reject", "allow"]]
    #: How long a request may wait for the upstream, in milliseconds (progress notifications for it
    #: restart the wait); 0 (null in Python, TypeScript and the JSON form): no limit. Not given: the
    #: policy file's `timeout`, else 50 000 (50 s: below the 60 s most MCP clients wait, so they get the
    #: guard's answer rather than their own timeout).
    timeout_ms: Optional[int]
    #: How errors and logs name the upstream (a program name, a URL: credentials are never shown).
    #: Default: `upstream`.
    upstream: str
    #: The longest text of a failed tool result passed on (at least 64); a longer one keeps its start and
    #: its end, the middle cut. Not given: the policy file's `failed_result_bytes`, else 8 KiB.
    failed_result_bytes: Optional[int]
    #: A policy file (TOML: per-tool and per-method timeouts, redaction options and scopes, actions;
    #: docs/policy.md). One that `check-policy` refuses makes the session answer every request
    #: with the configuration error: nothing is relayed without the policy it was given.
    policy: Optional[str]
    #: The environment the policy's `hash_key_env` is read from (name, value).
    policy_env: Optional[Mapping[str, str]]
    #: The environment whose secret-looking values (by name, as `set-environment` keeps them) this
    #: session redacts from everything it writes and logs; none: the one `set-environment` configured.
    environment: Optional[Optional[Mapping[str, str]]]
    #: Values this session redacts from everything it writes and logs whatever they are named: the
    #: credentials the shell itself sends its upstream (its header values, a URL's password and query
    #: values), which an upstream may reflect in an error. Each is kept as an environment's secret
    #: value is (at least 8 bytes, not a word, a host, a number or a path) and matched in the same
    #: encoded forms (base64, percent-encoding), beside the environment's.
    upstream_credentials: Optional[Sequence[str]]
    #: Whether the session's client streams (`client-line-on`) belong to different clients, as an HTTP
    #: front's shared stateless child's do (none or false: one client's, as a legacy session's requests
    #: and GET stream). Then what the upstream sends reaches a stream only when it names an id or a
    #: progress token that stream owns: a request the upstream raises is answered with an error at once
    #: (no client can be asked it, nor answer it), and a notification that answers no request is dropped.
    many_clients: Optional[bool]
    #: Longest upstream line in bytes the shell reads (a longer one it discards as it streams and reports
    #: with `upstream-oversize`). Not given: the policy file's `max_upstream_bytes`, else the largest line the
    #: component takes (64 MiB). The shell reads the resolved value from `settings`.
    max_upstream_bytes: Optional[int]


_OPTIONS = frozenset(("max_bytes", "batch", "timeout_ms", "upstream", "failed_result_bytes", "policy", "policy_env", "environment", "upstream_credentials", "many_clients", "max_upstream_bytes",))


def _options_record(dialect: Optional[str], options: Mapping[str, Any]) -> Record:
    """``guard-options`` for the component: ``dialect`` (already checked) and the options, each checked."""
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ArgumentTypeError(f"GuardSession got an unexpected option {unknown[0]!r}")
    record = Record()
    setattr(record, "dialect", dialect)
    value = options.get("max_bytes")
    if value is not None:
        _u64(value, "max_bytes")
    setattr(record, "max-bytes", value)
    value = options.get("batch")
    if value is not None and value not in ("reject", "allow",):
        raise JsonRpcErrorsValueError(f"batch must be 'reject' or 'allow', not {value!r}")
    setattr(record, "batch", value)
    value = options.get("timeout_ms", ...)
    if value is ...:
        value = None
    elif value is None:
        value = 0
    else:
        _u64(value, "timeout_ms")
    setattr(record, "timeout-ms", value)
    value = options.get("upstream", "upstream")
    _text(value, "upstream")
    setattr(record, "upstream", value)
    value = options.get("failed_result_bytes")
    if value is not None:
        _u64(value, "failed_result_bytes")
    setattr(record, "failed-result-bytes", value)
    value = options.get("policy")
    if value is not None:
        _text(value, "policy")
    setattr(record, "policy", value)
    value = _pairs(options.get("policy_env"), "policy_env")
    setattr(record, "policy-env", value)
    value = options.get("environment")
    if value is not None:
        value = _pairs(value, "environment")
    setattr(record, "environment", value)
    value = options.get("upstream_credentials")
    if value is not None:
        value = _texts(value, "upstream_credentials")
    setattr(record, "upstream-credentials", value)
    value = options.get("many_clients")
    if value is not None:
        _bool(value, "many_clients")
    setattr(record, "many-clients", value)
    value = options.get("max_upstream_bytes")
    if value is not None:
        _u64(value, "max_upstream_bytes")
    setattr(record, "max-upstream-bytes", value)
    return record


class Settings(TypedDict):
    """A session's settings as it resolved them when it opened: each the caller's option, else the policy
    file's `[defaults]`, else the built-in default. A shell takes what its own readers need (its line
    limits) from here, so no shell keeps a default or a merge rule of its own."""

    dialect: str
    #: Largest client message, in bytes.
    max_bytes: int
    batch: Literal["reject", "allow"]
    #: How long a request may wait for the upstream, in milliseconds; none: no limit.
    timeout_ms: Optional[int]
    #: The longest text of a failed tool result passed on.
    failed_result_bytes: int
    #: Longest upstream line, in bytes.
    max_upstream_bytes: int
