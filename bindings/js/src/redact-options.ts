// Redaction under caller options (`RedactOptions`, generated from the WIT's `redaction-options`) and JSON-aware
// redaction. These live in the guard module and in the redaction module, not in the base one: parsing options,
// compiling a caller's rules and HMAC-SHA256 cost ~12 KB gzipped, more than the base module's download budget
// holds (measured: 156 KB → 168 KB). Each entry binds them to its own module (`redactionOn`).

import { jsonOf, text } from "./api.js";
import { ArgumentTypeError } from "./errors.js";
import type { RedactGlue } from "./runtime.js";
import { EXTRA_RULE_KEYS, REDACT_OPTION_KEYS, type RedactOptions } from "./redaction-schema.js";
import type { JsonRedaction, JsonValue, Redaction } from "./types.js";

/** The options as the guest reads them (snake_case keys); a key the options do not have is the caller's
 *  mistake, named (a misspelt `hash_key` must not silently mean "no key"). */
function renamed(value: unknown, keys: Readonly<Record<string, string>>, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ArgumentTypeError(`${what} must be an object`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const name = Object.prototype.hasOwnProperty.call(keys, k) ? keys[k] : undefined;
    if (name === undefined) {
      throw new ArgumentTypeError(`${what} has no option '${k}' (known: ${Object.keys(keys).join(", ")})`);
    }
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function optionsJson(options: RedactOptions | undefined): string {
  if (options === undefined) return "{}";
  const out = renamed(options, REDACT_OPTION_KEYS, "options");
  const rules = out["extra_rules"];
  if (rules !== undefined) {
    if (!Array.isArray(rules)) throw new ArgumentTypeError("options.extraRules must be an array");
    out["extra_rules"] = rules.map((r: unknown, i) => renamed(r, EXTRA_RULE_KEYS, `options.extraRules[${i}]`));
  }
  return jsonOf(out, "options");
}

/** Redaction under options, as one entry point offers it. */
export interface RedactionCalls {
  /** `redactWith` as JSON text; `optionsJsonText` uses the guest's snake_case keys (`hash_key`, `extra_rules`, ...). */
  redactWithJson(input: string, optionsJsonText: string): string;
  /** Redacts `input` under options: the method, rules or categories switched off, extra rules, values and
   *  patterns never redacted.
   *  Bad options throw `InvalidInputError` (-32602) naming what is wrong. */
  redactWith(input: string, options?: RedactOptions): Redaction;
  /** `redactJsonValue` on JSON text: `{"value", "findings"}` as JSON text. */
  redactJsonValueJson(json: string, optionsJsonText: string): string;
  /** JSON-aware redaction: values under sensitive keys (password, token, authorization, cookie, api_key, ...)
   *  go whole, every other string is scanned; findings name the JSON Pointer of each secret's string. */
  redactJsonValue(value: JsonValue, options?: RedactOptions): JsonRedaction;
}

/** The calls, run on the module `call` reaches (the guard entry's or the redaction entry's). */
export function redactionOn(call: <T>(f: (glue: RedactGlue) => T) => T): RedactionCalls {
  const redactWithJson = (input: string, optionsJsonText: string): string => {
    const t = text(input, "text");
    const o = text(optionsJsonText, "options");
    return call((g) => g.redactWith(t, o));
  };
  const redactJsonValueJson = (json: string, optionsJsonText: string): string => {
    const j = text(json, "json");
    const o = text(optionsJsonText, "options");
    return call((g) => g.redactJsonValue(j, o));
  };
  return {
    redactWithJson,
    redactWith: (input, options) => JSON.parse(redactWithJson(input, optionsJson(options))) as Redaction,
    redactJsonValueJson,
    redactJsonValue: (value, options) => JSON.parse(redactJsonValueJson(jsonOf(value, "value"), optionsJson(options))) as JsonRedaction,
  };
}
