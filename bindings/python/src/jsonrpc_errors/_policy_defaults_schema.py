# Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.
"""A policy file's defaults, as ``policy-defaults`` in wit/world.wit states them."""

from __future__ import annotations

from typing import Literal, Optional, TypedDict


class PolicyDefaults(TypedDict):
    """What ``check_policy`` returns.

    A policy file's `[defaults]` as `check-policy` reports them: each none when the file says nothing. A
    session under the file fills what its options leave unset from them itself (`settings`); a shell reads
    them only for what no session decides."""

    #: The dialect the file names.
    dialect: Optional[str]
    #: `timeout` (how long a request may wait for the upstream), in milliseconds rounded up; 0: no limit.
    timeout_ms: Optional[int]
    #: `max_wait` (how long a request may wait whatever its progress), in milliseconds rounded up; none
    #: also when it is 0.
    max_wait_ms: Optional[int]
    #: `max_bytes`: the largest client message, in bytes.
    max_bytes: Optional[int]
    #: `max_upstream_bytes`: the longest upstream line, in bytes.
    max_upstream_bytes: Optional[int]
    #: `batch`: whether a client's batch is refused or relayed.
    batch: Optional[Literal["reject", "allow"]]
    #: `failed_result_bytes`: the longest text of a failed tool result passed on, in bytes.
    failed_result_bytes: Optional[int]
