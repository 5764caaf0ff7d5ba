// The one wasm-bindgen instance behind the API: converts thrown failures into typed errors, and a trap into
// the plain -32603 (re-instantiating the module, since a trapped wasm-bindgen instance is unusable).
// Internal: not part of the package's public API.

import { ArgumentTypeError, InvalidInputError, NotInitializedError, WasmFaultError } from "./errors.js";
import type { CallContext, ErrorObject } from "./types.js";

/** The wasm-bindgen exports (bindings/js/rust/lib.rs), as the entry points hand them over. */
export interface Glue {
  setEnvironment(env: string[]): number;
  mapError(input: string, dialect: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  /** `optionsJson`: `validate-options` as JSON text (validate-schema.ts's `validateRecordJson`). */
  validate(raw: Uint8Array, optionsJson: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  sanitize(raw: Uint8Array, dialect: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  redactJson(text: string): string;
  redact(text: string): string;
  explain(dialect: string, code: number): string;
  lookupKind(dialect: string, code: number, message?: string, dataJson?: string): string | undefined;
  codes(dialect: string | undefined, format: string): string;
  kindsJson(): string;
  refusal(kind: string, name: string, n: number): string;
  maxInputBytes(): number;
  __trapForTests(): void;
  __wbg_reset_state(): void;
}

export interface Platform {
  glue: Glue;
  /** Fills the array with cryptographically random values. */
  randomFill(array: Uint32Array): void;
}

/** A guard session as the guard module's wasm-bindgen glue exposes it (bindings/js/rust/lib.rs). */
export interface GlueGuardSession {
  free(): void;
  clientLine(line: Uint8Array, unixMillis: number, entropyHi: number, entropyLo: number): string;
  setPolicy(text: string, env: string[]): string;
  clientLineOn(stream: number, line: Uint8Array, unixMillis: number, entropyHi: number, entropyLo: number): string;
  streamClosed(stream: number, unixMillis: number, entropyHi: number, entropyLo: number): string;
  clientOversize(length: number, head: Uint8Array, tail: Uint8Array, unixMillis: number, entropyHi: number, entropyLo: number): string;
  upstreamLine(line: Uint8Array, unixMillis: number, entropyHi: number, entropyLo: number): string;
  upstreamOversize(length: number, head: Uint8Array, tail: Uint8Array, unixMillis: number, entropyHi: number, entropyLo: number): string;
  upstreamFailed(failureJson: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  upstreamRequestFailed(id: string, failureJson: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  upstreamExchangeEnded(id: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
  expire(unixMillis: number, entropyHi: number, entropyLo: number): string;
  settings(): string;
  upstreamStderr(bytes: Uint8Array, end: boolean): string;
  upstreamLog(text: string): string;
}

/**
 * The redaction module's glue (the `jsonrpc-errors/redact` entry): redaction under options, and the calls every
 * module has (bindings/js/rust/lib.rs leaves the base API out of it).
 */
export interface RedactGlue extends Pick<Glue, "setEnvironment" | "refusal" | "maxInputBytes" | "__trapForTests" | "__wbg_reset_state"> {
  redactWith(text: string, optionsJson: string): string;
  redactJsonValue(json: string, optionsJson: string): string;
}

/** The guard module's glue: the redaction module's calls and the guard session class. */
export interface GuardGlue extends RedactGlue {
  /** A policy file's defaults as JSON; throws its error object's JSON (`env`: flat `[name, value, …]`). */
  checkPolicy(text: string, env: string[]): string;
  /** `optionsJson`: `guard-options` as JSON (guard-schema.ts); throws the refusal's error object's JSON. */
  GuardSession: new (optionsJson: string) => GlueGuardSession;
}

let platform: Platform | undefined;
/** The guard module (loaded by the `jsonrpc-errors/guard` entry only), and how many times it was re-instantiated. */
let guardGlue: GuardGlue | undefined;
let guardGeneration = 0;
/** The redaction module (loaded by the `jsonrpc-errors/redact` entry only). */
let redactGlue: RedactGlue | undefined;
let randomFill: ((array: Uint32Array) => void) | undefined;
/** The environment last handed to the module, flattened: re-applied after a re-instantiation. */
let environment: string[] | undefined;
let faults = 0;

export const INTERNAL_ERROR: ErrorObject = Object.freeze({ code: -32603, message: "Internal error" }) as ErrorObject;

export function install(p: Platform): void {
  platform = p;
  randomFill ??= p.randomFill;
}

/**
 * Installs the guard module (and applies the environment already handed to the library). `servesBase`: the
 * module also holds the main entry's calls (bindings/js/rust/lib.rs) and serves them when no base module is
 * loaded, so a browser page that uses both entries downloads one module.
 */
export function installGuard(glue: GuardGlue, fill: (array: Uint32Array) => void, servesBase = false): void {
  guardGlue = glue;
  randomFill ??= fill;
  if (environment !== undefined) glue.setEnvironment(environment);
  if (servesBase && platform === undefined) platform = { glue: glue as unknown as Glue, randomFill: fill };
}

/** Installs the redaction module (and applies the environment already handed to the library). */
export function installRedact(glue: RedactGlue, fill: (array: Uint32Array) => void): void {
  redactGlue = glue;
  randomFill ??= fill;
  if (environment !== undefined) glue.setEnvironment(environment);
}

function currentGuard(): GuardGlue {
  if (guardGlue === undefined) {
    throw new NotInitializedError(
      "jsonrpc-errors: the guard module is not loaded: import jsonrpc-errors/guard or jsonrpc-errors/mcp, and in a browser `await init()` from it first",
    );
  }
  return guardGlue;
}

/** The guard module's instance generation: a session made before a re-instantiation is gone with it. */
export function guardGenerationNow(): number {
  return guardGeneration;
}

/** Runs one call on the guard module; failures become typed errors, a trap re-instantiates the module. */
export function callGuard<T>(f: (glue: GuardGlue) => T): T {
  return callModule(currentGuard(), f, () => guardGeneration++);
}

/** Runs one call on the redaction module, as `callGuard` does on the guard module. */
export function callRedact<T>(f: (glue: RedactGlue) => T): T {
  if (redactGlue === undefined) {
    throw new NotInitializedError(
      "jsonrpc-errors: the redaction module is not loaded: import jsonrpc-errors/redact, and in a browser `await init()` from it first",
    );
  }
  return callModule(redactGlue, f, () => {});
}

function callModule<G extends RedactGlue, T>(g: G, f: (glue: G) => T, reinstantiated: () => void): T {
  try {
    return f(g);
  } catch (e) {
    if (isTrap(e)) {
      faults++;
      reinstantiated();
      g.__wbg_reset_state();
      if (environment !== undefined) g.setEnvironment(environment);
    }
    throw typedError(e);
  }
}

const NOT_LOADED =
  "jsonrpc-errors: the WebAssembly module is not loaded yet: in a browser, `await init()` (exported by the entry you import) before the first call";

function current(): Platform {
  if (platform === undefined) throw new NotInitializedError(NOT_LOADED);
  return platform;
}

function isTrap(e: unknown): boolean {
  return typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
}

/** The typed error for what a call threw: the guest's refusal, a trap's plain -32603, or the value itself. */
function typedError(e: unknown): unknown {
  if (typeof e === "string") {
    let error: ErrorObject;
    try {
      error = JSON.parse(e) as ErrorObject;
    } catch {
      return new WasmFaultError(INTERNAL_ERROR, { cause: e });
    }
    return new InvalidInputError(error);
  }
  if (isTrap(e)) return new WasmFaultError({ ...INTERNAL_ERROR }, { cause: e });
  return e;
}

/** Runs one call on the instance; failures become typed errors. */
export function call<T>(f: (glue: Glue) => T): T {
  const p = current();
  try {
    return f(p.glue);
  } catch (e) {
    if (typeof e === "string") {
      // The guest threw its JSON-RPC error object (as JSON text): the caller's input was refused.
      let error: ErrorObject;
      try {
        error = JSON.parse(e) as ErrorObject;
      } catch {
        throw new WasmFaultError(INTERNAL_ERROR, { cause: e });
      }
      throw new InvalidInputError(error);
    }
    if (isTrap(e)) {
      faults++;
      reinstantiate(p);
      throw new WasmFaultError({ ...INTERNAL_ERROR }, { cause: e });
    }
    throw e;
  }
}

function reinstantiate(p: Platform): void {
  // The guard module serving the main entry: its sessions are gone with the instance.
  if ((p.glue as unknown) === guardGlue) guardGeneration++;
  p.glue.__wbg_reset_state();
  if (environment !== undefined) {
    p.glue.setEnvironment(environment);
  }
}

let maxInput: number | undefined;

/** The glue of whichever module is loaded (every one holds these calls). */
function anyGlue(): Pick<Glue, "refusal" | "maxInputBytes"> {
  if (platform !== undefined) return platform.glue;
  const loaded = redactGlue ?? guardGlue;
  if (loaded === undefined) throw new NotInitializedError(NOT_LOADED);
  return loaded;
}

/** The guest's refusal of an input before the call it was meant for, as the package's error. */
export function refused(kind: "unknown-dialect" | "unknown-format" | "not-unicode" | "too-large", name: string, n: number): InvalidInputError {
  return new InvalidInputError(JSON.parse(anyGlue().refusal(kind, name, n)) as ErrorObject);
}

/** The largest input any function takes (the guest's limit, asked once). */
export function maxInputBytes(): number {
  maxInput ??= anyGlue().maxInputBytes();
  return maxInput;
}

const sizer = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
type MaybeWellFormed = { isWellFormed?: () => boolean };

/**
 * Refuses, as the guest words it, text the guest would not take: a lone surrogate (which TextEncoder would
 * silently replace; Python and the CLI refuse it too, at the same UTF-8 offset) or more bytes than its limit.
 * `isWellFormed` (Node >= 20, current browsers) says whether there is one, 3-7x faster than the regex on text
 * with non-ASCII characters (bench/js/bench-lines.mjs); the regex then finds it, and is the whole check where
 * `isWellFormed` is missing (Node 18). Looked up per call, so that a test can take it away.
 */
export function checkedText(value: string): string {
  const wellFormed = (value as MaybeWellFormed).isWellFormed;
  const found = wellFormed !== undefined && wellFormed.call(value) ? null : LONE_SURROGATE.exec(value);
  if (found !== null) {
    throw refused("not-unicode", "", sizer.encode(value.slice(0, found.index)).length);
  }
  const max = maxInputBytes();
  if (value.length * 3 > max) {
    const n = sizer.encode(value).length;
    if (n > max) throw refused("too-large", "", n);
  }
  return value;
}

/** Refuses a byte input over the guest's limit (before it is copied in). */
export function checkedBytes(value: Uint8Array): Uint8Array {
  if (value.length > maxInputBytes()) throw refused("too-large", "", value.length);
  return value;
}

/** Hands the environment to every loaded module (the base one, the guard one, the redaction one). */
export function setEnvironmentFlat(flat: string[]): number {
  let kept: number | undefined;
  if (platform !== undefined) kept = call((g) => g.setEnvironment(flat));
  if (guardGlue !== undefined && (guardGlue as unknown) !== platform?.glue) kept = callGuard((g) => g.setEnvironment(flat));
  if (redactGlue !== undefined) kept = callRedact((g) => g.setEnvironment(flat));
  // Node entries install their module at import; in a browser none is loaded before `init`.
  if (kept === undefined) throw new NotInitializedError(NOT_LOADED);
  environment = flat.length === 0 ? undefined : flat;
  return kept;
}

/** How many traps the instance recovered from (for tests). */
export function faultCount(): number {
  return faults;
}

/** Traps the module on purpose (for tests): throws the WasmFaultError a real trap gives. */
export function trapForTests(): void {
  call((g) => g.__trapForTests());
}

/** Traps the guard module on purpose (for tests). */
export function trapGuardForTests(): void {
  callGuard((g) => g.__trapForTests());
}

/** Traps the redaction module on purpose (for tests). */
export function trapRedactForTests(): void {
  callRedact((g) => g.__trapForTests());
}

// ------------------------------------------------------------------------------------------ call context

const pool = new Uint32Array(256);
let poolNext = pool.length;
const TWO_32 = 2 ** 32;

/** `[unixMillis, entropyHi, entropyLo]` for one call. */
export function contextArgs(context: CallContext | undefined): [number, number, number] {
  if (context === undefined) {
    if (poolNext + 2 > pool.length) {
      if (randomFill === undefined) throw new NotInitializedError(NOT_LOADED);
      randomFill(pool);
      poolNext = 0;
    }
    const hi = pool[poolNext++]!;
    const lo = pool[poolNext++]!;
    return [Date.now(), hi, lo];
  }
  const { unixMillis, entropy } = context;
  if (typeof unixMillis !== "number" || !Number.isSafeInteger(unixMillis) || unixMillis < 0) {
    throw new ArgumentTypeError("context.unixMillis must be a non-negative safe integer");
  }
  if (typeof entropy === "bigint") {
    if (entropy < 0n || entropy >= 1n << 64n) {
      throw new ArgumentTypeError("context.entropy must be a u64");
    }
    return [unixMillis, Number(entropy >> 32n), Number(entropy & 0xffffffffn)];
  }
  if (typeof entropy !== "number" || !Number.isSafeInteger(entropy) || entropy < 0) {
    throw new ArgumentTypeError("context.entropy must be a bigint or a non-negative safe integer");
  }
  return [unixMillis, Math.floor(entropy / TWO_32), entropy % TWO_32];
}
