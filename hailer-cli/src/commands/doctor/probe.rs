//! `hailer doctor --probe`: the workspace's kernel (started, or the running one) tests its own
//! isolation with `hailer_kernel.probes` and reports one line per probe.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use hailer_config::home::HailerHome;
use hailer_protocol::{ExecParams, ExecResponse};
use serde::{Deserialize, Serialize};

use crate::daemon_client;
use crate::session_client::{self, SessionFlags};

/// The probes allocate past the memory limit and fork up to the process limit: give them time.
const PROBE_TIMEOUT_SECS: u64 = 300;
/// How long beyond that the client waits (the kernel may still be starting).
const MARGIN: Duration = Duration::from_secs(960);

/// One probe's result, as the kernel reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ProbeResult {
    pub probe: String,
    pub passed: bool,
    pub observed: String,
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    ok: bool,
    runtime: &'a str,
    kernel: &'a str,
    probes: &'a [ProbeResult],
}

/// The code the kernel runs: the probes, told where the daemon's token file is (to prove the
/// kernel cannot read it) and whether the kernel is contained (an unsafe-local kernel's limits
/// are those of the user's session: read, never tried).
fn probe_code(token_paths: &[String], contained: bool) -> String {
    let paths = serde_json::to_string(token_paths).unwrap_or_else(|_| "[]".to_owned());
    let contained = if contained { "True" } else { "False" };
    format!(
        "from hailer_kernel import probes\nprint(probes.report(token_paths={paths}, contained={contained}))\n"
    )
}

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let connected = daemon_client::find_or_start(home).await?;
    let started = session_client::start(&connected.endpoint, flags).await?;
    let session = &started.session;
    let params = ExecParams {
        code: probe_code(
            &[connected.runtime_path.display().to_string()],
            session.runtime != "unsafe-local",
        ),
        notebook: None,
        timeout_secs: Some(PROBE_TIMEOUT_SECS),
        client: Some("doctor".to_owned()),
    };
    let response: ExecResponse = connected
        .endpoint
        .post(
            &format!("/v1/sessions/{}/exec", session.id),
            &params,
            Duration::from_secs(PROBE_TIMEOUT_SECS) + MARGIN,
        )
        .await?
        .json()?;
    let results = parse(&response)?;
    let ok = results.iter().all(|result| result.passed);
    if json {
        let report = Report {
            ok,
            runtime: &session.runtime,
            kernel: &session.kernel_line,
            probes: &results,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!(
            "{}",
            table(&session.runtime, &session.kernel_line, &results)
        );
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The probes' results from what the run printed.
fn parse(response: &ExecResponse) -> anyhow::Result<Vec<ProbeResult>> {
    if !response.success {
        anyhow::bail!(
            "the probes did not run in the kernel:\n{}",
            response.stderr.trim_end()
        );
    }
    let line = response
        .stdout
        .lines()
        .rev()
        .find(|line| line.trim_start().starts_with('['))
        .context("the kernel printed no probe results")?;
    serde_json::from_str(line).context("the kernel's probe results are not readable")
}

/// One line per probe; under unsafe-local, first a plain statement of what is missing, and under
/// the sandbox, what this machine's sandbox does not give.
pub(crate) fn table(runtime: &str, kernel: &str, results: &[ProbeResult]) -> String {
    let mut out = format!("Hailer doctor --probe: {kernel}\n");
    let failed: Vec<&str> = results
        .iter()
        .filter(|result| !result.passed)
        .map(|result| result.probe.as_str())
        .collect();
    if runtime == "unsafe-local" {
        out.push_str(
            "  unsafe-local runs notebook code as you, on this machine, with your files and \
             network.\n",
        );
        if !failed.is_empty() {
            out.push_str(&format!(
                "  Protections absent here: {}.\n",
                failed.join(", ")
            ));
        }
    } else if runtime == "sandbox" && !failed.is_empty() {
        out.push_str(&format!(
            "  This machine's sandbox does not give: {}.\n",
            failed.join(", ")
        ));
    }
    for result in results {
        out.push_str(&format!(
            "  {:<4}  {:<28}  {}\n",
            if result.passed { "PASS" } else { "FAIL" },
            result.probe,
            result.observed
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn result(probe: &str, passed: bool, observed: &str) -> ProbeResult {
        ProbeResult {
            probe: probe.to_owned(),
            passed,
            observed: observed.to_owned(),
        }
    }

    #[test]
    fn unsafe_local_names_the_absent_protections_first() {
        let results = [
            result("uid not 0", true, "uid 1000"),
            result("data not writable", false, "wrote a file in /d"),
        ];
        let text = table("unsafe-local", "unsafe-local (runs as you)", &results);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "  Protections absent here: data not writable.");
        assert_eq!(
            lines[4],
            "  FAIL  data not writable             wrote a file in /d"
        );
    }

    #[test]
    fn a_failed_run_or_missing_results_are_errors() {
        let mut response = ExecResponse {
            stdout: String::new(),
            stderr: "ModuleNotFoundError: No module named 'hailer_kernel.probes'".to_owned(),
            success: false,
            value: None,
            fresh_kernel: false,
            notebook: "analysis.py".to_owned(),
        };
        let error = parse(&response).unwrap_err().to_string();
        assert!(error.contains("No module named"), "{error}");
        response.success = true;
        response.stderr.clear();
        response.stdout = "hello\n".to_owned();
        assert!(parse(&response).is_err());
        response.stdout =
            r#"[{"probe":"uid not 0","passed":true,"observed":"uid 1000"}]"#.to_owned();
        assert_eq!(
            parse(&response).unwrap(),
            vec![result("uid not 0", true, "uid 1000")]
        );
    }
}
