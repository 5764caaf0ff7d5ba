//! `cargo run --release -p rust-axum-server-example -- [ADDR] [DIALECT]` (default 127.0.0.1:8080, vapora),
//! then: curl -s localhost:8080/rpc -d '{"jsonrpc":"2.0","method":"skills/run","params":{"skill":"summarize","text":"x"},"id":1}'

use jsonrpc_errors::Dialect;
use rust_axum_server_example::{router, Agent};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".into());
    let dialect_name = args.next().unwrap_or_else(|| "vapora".into());
    let Some(dialect) = Dialect::from_name(&dialect_name) else {
        eprintln!("unknown dialect '{dialect_name}'");
        std::process::exit(2);
    };
    // The secret values of this process's environment are scrubbed from every response and log line.
    jsonrpc_errors::set_environment(&std::env::vars().collect::<Vec<_>>());
    let store_url = std::env::var("SKILL_STORE_URL")
        .unwrap_or_else(|_| "postgres://agent:agent-pass@127.0.0.1/skills".into());
    let agent = Agent::new(dialect, store_url, Box::new(|line| eprintln!("{line}")));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!(
        "listening on http://{}/rpc ({} dialect)",
        listener.local_addr()?,
        dialect.name()
    );
    axum::serve(listener, router(agent)).await
}
