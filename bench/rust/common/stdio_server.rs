//! The fast MCP-like stdio server the load benchmarks put behind every target (`guard_bench --serve`,
//! `http_bench --serve`): it answers `initialize`, `tools/list`, `ping` and every `tools/call` with a small
//! fixed result, echoing the request's id text, one line per answer, one flush per burst; other methods
//! get -32601 (so `server/discover` tells a front that it needs `initialize`).

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;

/// A realistic small tool result (what a weather or lookup tool returns), the same for every call.
pub const TOOL_RESULT: &str = r#"{"content":[{"type":"text","text":"Berlin: 14 °C, light rain, wind 12 km/h W, humidity 81%. Forecast for the next 3 hours: rain easing after 16:00."}],"isError":false}"#;
pub const INITIALIZE_RESULT: &str = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"guard-bench","version":"0.1.0"}}"#;
pub const TOOLS_LIST_RESULT: &str = r#"{"tools":[{"name":"get_weather","description":"Current weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}"#;

/// Just what the server needs of a message: the id's raw text (echoed byte for byte) and the method.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
}

/// A `tools/call` result whose text is `bytes` long (`--result-bytes`), built once: what a file-reading or
/// search tool returns, for measuring what the relay costs per byte.
pub fn large_result(bytes: usize) -> String {
    let line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ";
    let text: String = line.chars().cycle().take(bytes).collect();
    format!(r#"{{"content":[{{"type":"text","text":"{text}"}}],"isError":false}}"#)
}

/// `result_bytes`: the length of each `tools/call` result's text (`None`: the small fixed result).
pub fn serve(result_bytes: Option<usize>) -> ExitCode {
    let large = result_bytes.map(large_result);
    let tool_result = large.as_deref().unwrap_or(TOOL_RESULT);
    // The raw descriptors, not std's Stdin/Stdout: those buffer (and line-flush) on their own, which would
    // hide whether our own buffer is empty and flush per line instead of per burst.
    let (Ok(stdin), Ok(stdout)) = (
        std::io::stdin().as_fd().try_clone_to_owned(),
        std::io::stdout().as_fd().try_clone_to_owned(),
    ) else {
        eprintln!("--serve: cannot open stdin/stdout");
        return ExitCode::FAILURE;
    };
    let mut input = BufReader::with_capacity(64 * 1024, File::from(stdin));
    let mut out = BufWriter::with_capacity(64 * 1024, File::from(stdout));
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break, // the client closed its side: MCP's shutdown
            Ok(_) => {}
        }
        if answer(&line, tool_result, &mut out).is_err() {
            break;
        }
        // Flush once everything we were given is answered (the next read may block), not per line.
        if input.buffer().is_empty() && out.flush().is_err() {
            break;
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

fn answer(line: &[u8], tool_result: &str, out: &mut impl Write) -> std::io::Result<()> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(());
    }
    let Ok(msg) = serde_json::from_slice::<Incoming>(line) else {
        return out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n");
    };
    let Some(id) = msg.id else {
        return Ok(()); // a notification (notifications/initialized, cancellations): no answer
    };
    let result = match msg.method.as_deref() {
        Some("tools/call") => tool_result,
        Some("initialize") => INITIALIZE_RESULT,
        Some("tools/list") => TOOLS_LIST_RESULT,
        Some("ping") => "{}",
        _ => {
            writeln!(out, "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32601,\"message\":\"Method not found\"}}}}", id.get())?;
            return Ok(());
        }
    };
    writeln!(
        out,
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}",
        id.get()
    )
}
