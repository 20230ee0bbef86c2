//! Runs the scripted model server: `hailer-scripted-model <script.json>` prints the port it listens
//! on (127.0.0.1), then serves until interrupted. More steps can be posted to `/__scripted/steps`
//! and the recorded requests read from `/__scripted/requests`.

use std::io::Write;

use anyhow::{Context, bail};
use hailer_scripted_model::{Script, ScriptedModel};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        bail!(
            "usage: hailer-scripted-model <script.json>  (use an empty file for an empty script)"
        );
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read the script file {path}"))?;
    let script = if text.trim().is_empty() {
        Script::new()
    } else {
        Script::from_json(&text).with_context(|| format!("{path} is not a valid script"))?
    };
    let server = ScriptedModel::start(script)
        .await
        .context("could not listen on 127.0.0.1")?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{}", server.port())?;
    stdout.flush()?;
    tokio::signal::ctrl_c().await?;
    Ok(())
}
