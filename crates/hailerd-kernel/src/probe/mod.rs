//! `hailer doctor --probe`, graded from outside the kernel it tests.
//!
//! The probes (`hailer_kernel/probes.py` as embedded in this program, never the copy the
//! kernel could reach) run in a fresh process that each runtime starts like its kernel: a new
//! container from the kernel container's image and settings, or a fresh `python -I -S` of the
//! managed environment with the kernel's environment. The process prints its raw observations
//! after a nonce made for this run; the daemon grades them itself ([`grading`]), and for a
//! docker kernel also checks what the engine says the kernel container has. Nothing that ran in
//! the kernel earlier can change the verdicts.

mod grading;

use std::path::Path;
use std::time::Duration;

use hailer_docker::{ImageFacts, KernelFacts};
use hailer_protocol::{ProbeImage, ProbeReport};

use super::{Kernel, KernelError, Server};

/// The probes allocate past the memory limit and fork up to the process limit: give them time.
const PROBE_TIMEOUT: Duration = Duration::from_secs(300);
/// The probe module's path among the embedded package files.
const PROBES_FILE: &str = "hailer_kernel/probes.py";

/// What a docker runtime's probe run gathered.
#[derive(Debug)]
pub(crate) struct DockerProbe {
    /// What the fresh container printed.
    pub output: String,
    /// The engine's view of the kernel container.
    pub facts: KernelFacts,
    /// The engine's view of its image.
    pub image: ImageFacts,
    /// This program's kernel contract.
    pub contract: String,
}

/// The program the fresh process runs: the embedded probe module, then its `main` told this
/// run's nonce, the data folder as the kernel sees it, the token files and whether the kernel
/// is contained.
fn program(nonce: &str, data_dir: &Path, token_paths: &[String], contained: bool) -> String {
    let source = hailer_kernel_bundle::PACKAGE_FILES
        .iter()
        .find(|(name, _)| *name == PROBES_FILE)
        .map_or("", |(_, text)| text);
    // JSON strings are Python string literals.
    let text = |value: &str| serde_json::Value::from(value).to_string();
    let paths = serde_json::Value::from(token_paths.to_vec()).to_string();
    format!(
        "{source}\n\nmain({}, {}, {paths}, {})\n",
        text(nonce),
        text(&data_dir.to_string_lossy()),
        if contained { "True" } else { "False" }
    )
}

/// `python -I -S -c <program>`: isolated from the environment's variables and user site, and
/// without `site` (no `.pth` or `sitecustomize` of the environment runs first).
fn command(python: &str, program: String) -> Vec<String> {
    vec![
        python.to_owned(),
        "-I".to_owned(),
        "-S".to_owned(),
        "-c".to_owned(),
        program,
    ]
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    format!("hailer-probe-{}:", hex::encode(bytes))
}

impl Kernel {
    /// Runs the probes in a fresh process started like this kernel and grades what they saw.
    pub async fn probe(&self, token_paths: &[String]) -> Result<ProbeReport, KernelError> {
        let nonce = nonce();
        let server = self.server.lock().await;
        match server.as_ref() {
            Some(Server::Docker(docker)) => {
                let program = program(
                    &nonce,
                    Path::new(hailer_kernel_bundle::DATA_IN_KERNEL),
                    token_paths,
                    true,
                );
                let ran = docker
                    .probe(command("python", program), PROBE_TIMEOUT)
                    .await?;
                let observations = grading::observations(&ran.output, &nonce)?;
                let mut probes = grading::grade(&observations, Some(&ran.facts));
                probes.push(grading::image_verdict(&ran.image, &ran.contract));
                Ok(ProbeReport {
                    ok: probes.iter().all(|probe| probe.passed),
                    image: Some(ProbeImage {
                        name: ran.image.name,
                        id: ran.image.id,
                        contract: ran.image.contract,
                        ours: ran.image.ours,
                    }),
                    probes,
                })
            }
            Some(Server::Local(local)) => {
                let data_dir = local
                    .env
                    .get(super::local::DATA_DIR_VARIABLE)
                    .map_or_else(|| local.workspace.join("data"), Into::into);
                let program = program(&nonce, &data_dir, token_paths, false);
                let mut argv = command(&local.python.to_string_lossy(), program);
                if let Some(wrapper) = &local.wrapper {
                    argv = wrapped(wrapper, argv)?;
                }
                let output = run_local(&argv, &local.env, &local.workspace).await?;
                let observations = grading::observations(&output, &nonce)?;
                let probes = grading::grade(&observations, None);
                Ok(ProbeReport {
                    ok: probes.iter().all(|probe| probe.passed),
                    image: None,
                    probes,
                })
            }
            None => Err(KernelError::Invalid("the kernel has stopped".to_owned())),
        }
    }
}

/// `argv` under the sandbox launcher the kernel runs under, with a port of its own for the
/// launcher's relay (nothing connects to it: the probes only print).
fn wrapped(
    wrapper: &hailer_marimo::Wrapper,
    argv: Vec<String>,
) -> Result<Vec<String>, KernelError> {
    let port = std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map_err(|error| KernelError::Invalid(format!("cannot find a free port: {error}")))?
        .port()
        .to_string();
    let mut wrapped = vec![wrapper.program.to_string_lossy().into_owned()];
    wrapped.extend(
        wrapper
            .args
            .iter()
            .map(|arg| arg.replace(hailer_marimo::PORT_PLACEHOLDER, &port)),
    );
    wrapped.extend(argv);
    Ok(wrapped)
}

/// Runs `argv` as a fresh process with exactly `env`, in `folder`; its standard output.
async fn run_local(
    argv: &[String],
    env: &std::collections::BTreeMap<String, String>,
    folder: &Path,
) -> Result<String, KernelError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| KernelError::Invalid("no probe command".to_owned()))?;
    let child = tokio::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(env)
        .current_dir(folder)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| KernelError::Invalid(format!("cannot start the probes: {error}")))?;
    let output = tokio::time::timeout(PROBE_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            KernelError::Invalid(format!(
                "the probes did not end within {} s",
                PROBE_TIMEOUT.as_secs()
            ))
        })?
        .map_err(|error| KernelError::Invalid(format!("the probes failed: {error}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(KernelError::Invalid(format!(
            "the probes failed ({}): {}",
            output.status,
            stderr.trim_end()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_program_is_the_embedded_module_then_its_main_with_literal_arguments() {
        let text = program(
            "hailer-probe-ab:",
            Path::new("/work/da\"ta"),
            &["/home/a/run/hailerd.json".to_owned()],
            true,
        );
        assert!(text.starts_with("\"\"\"Containment probes"), "{text}");
        assert!(text.ends_with(
            "main(\"hailer-probe-ab:\", \"/work/da\\\"ta\", [\"/home/a/run/hailerd.json\"], True)\n"
        ));
        let first = nonce();
        assert_ne!(first, nonce());
        assert!(first.starts_with("hailer-probe-") && first.ends_with(':'));
    }
}
