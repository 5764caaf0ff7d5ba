// Generated from wit/world.wit (interface `types`: `redaction-options`) by `cargo xtask gen`; do not edit.

/** How a found secret is replaced. */
export type RedactionMethod = "replace" | "mask" | "hash" | "remove";

/**
 * A caller's own redaction rule, with the keys of a rule of `redaction/rules.toml` (whose header documents
 * each): `id`, `category` and `pattern` are required.
 */
export interface ExtraRule {
  /** kebab-case ASCII (`[a-z0-9-]`, 1 to 64 characters). */
  id: string;
  /** kebab-case ASCII, as `id`: what `disable` names to switch the rule off with others of its kind. */
  category: string;
  description?: string;
  /**
   * The literals that open a window for the pattern (none: the rule always runs, or its `trigger` opens
   * them); none may be empty.
   */
  keywords?: string[];
  /** A regex (regex-lite syntax), at most 2048 characters. */
  pattern: string;
  /** The capture groups that are the secret (none: the whole match). */
  secretGroups?: number[];
  /** A check a match must pass (a validator of rules.toml: `assignment`, `luhn`, `entropy`, ...). */
  validator?: string;
  /** Bytes after the keyword's line that a match may reach (multi-line secrets). */
  span?: number;
  /** A keyword counts only when an assignment operator follows it. */
  assignmentAfterKeyword?: boolean;
  /** What opens the rule's windows: `keywords` (default), or a structural scan (`digit-run`, ...). */
  trigger?: string;
  /**
   * How much text around a hit the pattern sees: `line` (default), `word`, `assignment`, `column`,
   * `sql-values`.
   */
  window?: string;
  /** For `window` `word`: how many following words the window takes too. */
  wordsAfter?: number;
  /** Literals of which every match holds one: a window holding none is refused unread. */
  requires?: string[];
  /** The match ends at a delimiter of the text's structure (URL userinfo at its `@`). */
  delimits?: boolean;
  /** For `window` `column`: the byte that separates a table's cells (default `,`). */
  separator?: string;
  /** The match must sit in a flat JSON object that holds this literal too. */
  objectHolds?: string;
}

/**
 * Adding a redaction option: a field of `redaction-options` (an `option` or a `list`: "not given" is every
 * shell's default), read where the guest uses it (`guest/src/redact/redactor.rs`), then `cargo xtask gen`
 * writes the guest's reader and every shell's type and builder (docs/where-to-change.md).
 * What a caller may change about redaction (`redact-with`, `redact-json-value`, a guard's error handler),
 * as JSON text with these fields in snake_case; every field may be left out. Bad options fail with -32602
 * naming what is wrong.
 */
export interface RedactOptions {
  /** How a found secret is replaced. Default: `replace`. */
  method?: RedactionMethod;
  /** The HMAC key `method` `hash` needs: at least 16 bytes. */
  hashKey?: string;
  /** Rule ids or categories to switch off. */
  disable?: string[];
  /** The caller's own rules, run beside the catalogue's (at most 64). */
  extraRules?: ExtraRule[];
  /** Exact values never redacted. */
  allowlist?: string[];
  /**
   * Patterns (regex-lite) of values never redacted, each matched against a whole value (at most 64, each
   * at most 2048 characters).
   */
  allowPatterns?: string[];
  /** `redact-json-value` only: more JSON keys whose values are secrets whole. */
  sensitiveKeys?: string[];
}

/** RedactOptions's keys, each as the JSON the guest reads spells it. */
export const REDACT_OPTION_KEYS: Readonly<Record<keyof RedactOptions, string>> = {
  method: "method",
  hashKey: "hash_key",
  disable: "disable",
  extraRules: "extra_rules",
  allowlist: "allowlist",
  allowPatterns: "allow_patterns",
  sensitiveKeys: "sensitive_keys",
};

/** ExtraRule's keys, each as the JSON the guest reads spells it. */
export const EXTRA_RULE_KEYS: Readonly<Record<keyof ExtraRule, string>> = {
  id: "id",
  category: "category",
  description: "description",
  keywords: "keywords",
  pattern: "pattern",
  secretGroups: "secret_groups",
  validator: "validator",
  span: "span",
  assignmentAfterKeyword: "assignment_after_keyword",
  trigger: "trigger",
  window: "window",
  wordsAfter: "words_after",
  requires: "requires",
  delimits: "delimits",
  separator: "separator",
  objectHolds: "object_holds",
};
