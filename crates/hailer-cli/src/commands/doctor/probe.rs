//! `hailer doctor --probe`: the daemon tests the workspace kernel's isolation from outside it
//! (`POST /v1/sessions/{id}/probe`) and this prints its verdicts, one line per probe.

use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_protocol::{ProbeImage, ProbeParams, ProbeReport, ProbeVerdict};
use serde::Serialize;

use crate::daemon_client;
use crate::output::{out, outln};
use crate::session_client::{self, SessionFlags};

/// How long the client waits: the kernel may still be starting, and the probes allocate past
/// the memory limit and fork up to the process limit.
const WAIT: Duration = Duration::from_secs(1260);

#[derive(Debug, Serialize)]
struct Report<'a> {
    ok: bool,
    runtime: &'a str,
    kernel: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<&'a ProbeImage>,
    probes: &'a [ProbeVerdict],
}

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let connected = daemon_client::find_or_start(home).await?;
    let started = session_client::start(&connected.endpoint, flags).await?;
    let session = &started.session;
    // The daemon's runtime file holds its token: the kernel must not be able to read it.
    let params = ProbeParams {
        token_paths: vec![connected.runtime_path.display().to_string()],
    };
    let report: ProbeReport = connected
        .endpoint
        .post(&format!("/v1/sessions/{}/probe", session.id), &params, WAIT)
        .await?
        .json()?;
    if json {
        let shown = Report {
            ok: report.ok,
            runtime: &session.runtime,
            kernel: &session.kernel_line,
            image: report.image.as_ref(),
            probes: &report.probes,
        };
        outln!("{}", serde_json::to_string_pretty(&shown)?)?;
    } else {
        out!("{}", table(&session.runtime, &session.kernel_line, &report))?;
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One line per probe; first the image a docker kernel runs, under unsafe-local a plain
/// statement of what is missing, and under the sandbox what this machine's sandbox does not
/// give.
pub(crate) fn table(runtime: &str, kernel: &str, report: &ProbeReport) -> String {
    let mut out = format!("Hailer doctor --probe: {kernel}\n");
    if let Some(image) = &report.image {
        out.push_str(&format!(
            "  Image: {} ({}){}\n",
            image.name,
            image.id,
            if image.ours { "" } else { ", foreign" }
        ));
    }
    let failed: Vec<&str> = report
        .probes
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
    for result in &report.probes {
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

    fn result(probe: &str, passed: bool, observed: &str) -> ProbeVerdict {
        ProbeVerdict {
            probe: probe.to_owned(),
            passed,
            observed: observed.to_owned(),
        }
    }

    #[test]
    fn unsafe_local_names_the_absent_protections_first() {
        let report = ProbeReport {
            ok: false,
            image: None,
            probes: vec![
                result("uid not 0", true, "uid 1000"),
                result("data not writable", false, "wrote a file in /d"),
            ],
        };
        let text = table("unsafe-local", "unsafe-local (runs as you)", &report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "  Protections absent here: data not writable.");
        assert_eq!(
            lines[4],
            "  FAIL  data not writable             wrote a file in /d"
        );
    }

    #[test]
    fn a_docker_report_names_its_image_and_a_foreign_one_says_so() {
        let report = ProbeReport {
            ok: false,
            image: Some(ProbeImage {
                name: "derived:1".to_owned(),
                id: "sha256:ab".to_owned(),
                contract: None,
                ours: false,
            }),
            probes: vec![result("uid not 0", true, "uid 1000")],
        };
        let text = table("docker", "docker", &report);
        assert_eq!(
            text.lines().nth(1),
            Some("  Image: derived:1 (sha256:ab), foreign")
        );
    }
}
