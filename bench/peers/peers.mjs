// The redactors a Node user might pick instead of jsonrpc-errors, each as (text) => redacted text, for the
// benchmarks only (installed by ./scripts/bench.sh js and http into bench/peers/node_modules; never a runtime dependency).
// Each is run with the settings its README shows, on everything it can find.
import { redact as arcjetRedact } from "@arcjet/redact";
import redactPii from "redact-pii";

const { SyncRedactor } = redactPii;

export async function peers() {
  const pii = new SyncRedactor();
  // @arcjet/redact's built-in entities (its README's list); it resolves a promise per call.
  const entities = ["email", "phone-number", "ip-address", "credit-card-number"];
  return [
    { name: "redact-pii 3.4.0", redact: async (text) => pii.redact(text) },
    { name: "@arcjet/redact 1.12.0", redact: async (text) => (await arcjetRedact(text, { entities }))[0] },
  ];
}
