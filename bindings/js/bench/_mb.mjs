import { mapError, mapErrorJson, setEnvironment } from "jsonrpc-errors";
setEnvironment([]);
const input = { kind: "method-not-found", method: "tools/call", id: 1 };
const text = JSON.stringify(input);
function t(label, f, n = 100000) { for (let i = 0; i < 2000; i++) f(); const s = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); console.log(label, (Number(process.hrtime.bigint() - s) / n / 1000).toFixed(2), "µs"); }
t("mapError", () => mapError(input));
t("mapErrorJson", () => mapErrorJson(text));
const out = mapErrorJson(text);
t("JSON.parse out", () => JSON.parse(out), 1000000);
t("JSON.stringify in", () => JSON.stringify(input), 1000000);
t("mapErrorJson ctx", () => mapErrorJson(text, "canonical", { context: { unixMillis: 1, entropy: 5n } }));
