// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

import { ArgumentTypeError } from "./errors.js";
import { checkedText } from "./runtime.js";
import { DEFAULT_MAX_BYTES } from "./taxonomy.js";
import type { ValidateFields } from "./validate-schema.js";

function u64(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ArgumentTypeError(`${what} must be a non-negative safe integer`);
  }
  return value;
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new ArgumentTypeError(`${what} must be a string, not ${typeof value}`);
  return checkedText(value);
}

/**
 * `options` as the component's record, JSON text with snake_case keys: each option checked (undefined or null:
 * not given, or its default). A body of `length` bytes over its limit (`maxBytes`, else `DEFAULT_MAX_BYTES`; never
 * over `maxInput`) is `withheld`: it does not enter wasm, and `contentLength` says its length, so that the component
 * answers it unread.
 */
export function validateRecordJson(options: ValidateFields, length: number, maxInput: number): { json: string; withheld: boolean } {
  const record: Record<string, unknown> = {};
  if (options.maxBytes !== undefined && options.maxBytes !== null) record.max_bytes = u64(options.maxBytes, "maxBytes");
  if (options.batch !== undefined && options.batch !== null) record.batch = text(options.batch, "batch");
  if (options.contentType !== undefined && options.contentType !== null) record.content_type = text(options.contentType, "contentType");
  if (options.contentLength !== undefined && options.contentLength !== null) record.content_length = u64(options.contentLength, "contentLength");
  if (options.dialect !== undefined && options.dialect !== null) record.dialect = text(options.dialect, "dialect");
  const withheld = length > Math.min((record.max_bytes as number | undefined) ?? DEFAULT_MAX_BYTES, maxInput);
  if (withheld) record.content_length = length;
  return { json: JSON.stringify(record), withheld };
}
