import { mapError, mapErrorJson, setEnvironment } from "jsonrpc-errors";
setEnvironment([]);
function t(label, f, n = 200000) { for (let i = 0; i < 2000; i++) f(); const s = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); console.log(label, (Number(process.hrtime.bigint() - s) / n / 1000).toFixed(2), "µs"); }
const input = { kind: "method-not-found", method: "tools/call", id: 1 };
const txt = JSON.stringify(input);
for (let k = 0; k < 3; k++) {
t("mapErrorJson", () => mapErrorJson(txt));
t("mapError", () => mapError(input));
t("parse+stringify", () => JSON.parse(mapErrorJson(JSON.stringify(input))));
}
