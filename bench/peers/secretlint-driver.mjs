// secretlint's recommended preset as a redactor, driven by bench/rust/redaction_peers.rs (a benchmark, never a
// dependency; pinned by bench/peers/package-lock.json). secretlint reports ranges; each is replaced with
// `[REDACTED]`, as a user masking its findings would. The protocol is bench/peers/redaction_peers.py's: one
// JSON document per line on stdin and stdout.
import { lintSource } from "@secretlint/core";
import { creator as preset } from "@secretlint/secretlint-rule-preset-recommend";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const NAME = "secretlint 13.0.7 (preset-recommend)";
const config = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: preset }] };

async function redact(text) {
  const result = await lintSource({
    source: { filePath: "/message.txt", content: text, contentType: "text" },
    options: { config, maskSecrets: false },
  });
  const ranges = result.messages.map((m) => m.range).sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    out += text.slice(at, start) + "[REDACTED]";
    at = end;
  }
  return out + text.slice(at);
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  let reply;
  if (request.op === "peers") {
    reply = { peers: [NAME] };
  } else if (request.op === "redact") {
    const texts = readFileSync(request.in, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).text);
    const start = performance.now();
    const outputs = [];
    for (const t of texts) outputs.push(await redact(t));
    const seconds = (performance.now() - start) / 1000;
    writeFileSync(request.out, outputs.map((o) => JSON.stringify({ text: o })).join("\n") + "\n");
    reply = { seconds };
  } else if (request.op === "time") {
    const text = readFileSync(request.path, "utf8");
    const start = performance.now();
    await redact(text);
    reply = { seconds: (performance.now() - start) / 1000 };
  } else {
    reply = { error: `unknown op ${request.op}` };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
