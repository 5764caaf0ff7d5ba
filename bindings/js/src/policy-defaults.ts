// Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.

import type { Dialect } from "./taxonomy.js";

/**
 * A policy file's `[defaults]` as `check-policy` reports them: each none when the file says nothing. A
 * session under the file fills what its options leave unset from them itself (`settings`); a shell reads
 * them only for what no session decides.
 *
 * What `checkPolicy` returns (snake_case keys, as the component writes them).
 */
export interface PolicyDefaults {
  /** The dialect the file names. */
  dialect: Dialect | null;
  /** `timeout` (how long a request may wait for the upstream), in milliseconds rounded up; 0: no limit. */
  timeout_ms: number | null;
  /**
   * `max_wait` (how long a request may wait whatever its progress), in milliseconds rounded up; none
   * also when it is 0.
   */
  max_wait_ms: number | null;
  /** `max_bytes`: the largest client message, in bytes. */
  max_bytes: number | null;
  /** `max_upstream_bytes`: the longest upstream line, in bytes. */
  max_upstream_bytes: number | null;
  /** `batch`: whether a client's batch is refused or relayed. */
  batch: "reject" | "allow" | null;
  /** `failed_result_bytes`: the longest text of a failed tool result passed on, in bytes. */
  failed_result_bytes: number | null;
}
