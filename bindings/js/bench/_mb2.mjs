import { lookupKind, redact, mapErrorJson, setEnvironment } from "jsonrpc-errors";
setEnvironment([]);
function t(label, f, n = 100000) { for (let i = 0; i < 2000; i++) f(); const s = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); console.log(label, (Number(process.hrtime.bigint() - s) / n / 1000).toFixed(2), "µs"); }
t("lookupKind", () => lookupKind(-32601, "canonical"));
t("redact short", () => redact("Method not found"));
t("redact 1 char", () => redact("x"));
t("mapErrorJson", () => mapErrorJson('{"kind":"method-not-found","method":"tools/call","id":1}'));
t("mapErrorJson vapora", () => mapErrorJson('{"kind":"method-not-found","method":"tools/call","id":1}', "vapora"));
t("mapErrorJson bad", () => { try { mapErrorJson('{"kind":"nope"}'); } catch {} });
