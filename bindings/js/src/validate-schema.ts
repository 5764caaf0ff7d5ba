// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

import type { Dialect } from "./taxonomy.js";

export type BatchPolicy = "reject" | "allow";

/**
 * What `validate` checks a request's bytes against. Every shell's mirror is generated from this record
 * (`cargo xtask gen`); a field that is not an `option` states its default.
 * `validate`'s options but the call context.
 */
export interface ValidateFields {
  /** Default: 10 MiB. */
  maxBytes?: number;
  /** Default: `reject`. */
  batch?: BatchPolicy;
  /** The transport's Content-Type header, checked when present. */
  contentType?: string;
  /** The transport's declared length: lets an oversize body be refused unread. */
  contentLength?: number;
  /** Default: `canonical`. */
  dialect?: Dialect;
}

/** ValidateFields' keys, each as the WIT's record spells it (snake_case). */
export const VALIDATE_OPTION_KEYS: Readonly<Record<keyof ValidateFields, string>> = {
  maxBytes: "max_bytes",
  batch: "batch",
  contentType: "content_type",
  contentLength: "content_length",
  dialect: "dialect",
};
