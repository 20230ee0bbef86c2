//! The kernel image build through the engine's BuildKit: the context is uploaded over a BuildKit
//! session, and the package index settings are served to the build as secrets, which BuildKit
//! mounts for the one step that reads them and keeps out of every layer, the history and the
//! build cache.
//!
//! The solve runs over the engine's `/grpc` and `/session` endpoints. While it runs, the build's
//! steps and output lines come from BuildKit's status stream ([`super::buildkit_status`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bollard::grpc::BuildRef;
use bollard::grpc::build::{ImageBuildFrontendOptions, ImageBuildLoadInput, SecretSource};
use bollard::grpc::driver::Build as _;
use bollard::grpc::driver::moby::Moby;
use bollard::grpc::error::GrpcError;
use secrecy::ExposeSecret as _;

use super::buildkit_status;
use super::context::BuildSecret;
use super::redact;
use super::{Progress, Report};
use crate::engine::Engine;
use crate::error::{Error, Result};

/// How often a build that says nothing new is reported as still running.
const HEARTBEAT: Duration = Duration::from_secs(20);
/// How long opening the build's status stream may take before the build goes on without it.
const STATUS_OPEN_TIMEOUT: Duration = Duration::from_secs(20);

/// What one BuildKit solve builds.
pub(super) struct Solve {
    /// The image name the result is stored under.
    pub tag: String,
    /// The build context, an uncompressed tar archive.
    pub context: bytes::Bytes,
    /// The Dockerfile's build arguments.
    pub build_args: Vec<(String, String)>,
    /// Run every step again instead of reusing the build cache.
    pub no_cache: bool,
    /// The package index settings, served as build secrets.
    pub secrets: Vec<BuildSecret>,
}

/// Builds `solve` through the engine's BuildKit, reporting its steps and output, and returns
/// the last output lines when it fails.
pub(super) async fn run(engine: &Engine, solve: Solve, progress: Progress<'_>) -> Result<()> {
    // Served from files only the build's owner can read, in a private folder removed when the
    // build ends (the BuildKit session reads secrets from files or variables).
    let files = SecretFiles::write(&solve.secrets)?;
    let mut frontend = ImageBuildFrontendOptions::builder()
        .pull(false)
        .nocache(solve.no_cache);
    for (name, value) in &solve.build_args {
        frontend = frontend.buildarg(name, value);
    }
    for (id, path) in &files.files {
        frontend = frontend.set_secret(id, &SecretSource::File(path.clone()));
    }
    let frontend = frontend.build();
    let build_ref = BuildRef::random();
    let (done_tx, mut done) = tokio::sync::oneshot::channel();
    // Dropped with this future (a build given up on): the solve's connections close with it,
    // which ends the build in the engine.
    let (_give_up, given_up) = tokio::sync::oneshot::channel::<()>();
    {
        let docker = engine.docker().clone();
        let tag = solve.tag.clone();
        let context = solve.context.clone();
        let build_ref = build_ref.clone();
        // The solve's future cannot move between threads (bollard's driver holds a tear-down
        // handle that is not `Send`), so it runs on a thread of its own.
        std::thread::Builder::new()
            .name("hailer-buildkit".to_owned())
            .spawn(move || {
                let outcome = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| Failed {
                        said: format!("cannot start the build's runtime: {error}"),
                        no_buildkit: false,
                    })
                    .and_then(|runtime| {
                        runtime.block_on(async {
                            let solve = Moby::new(&docker).docker_build(
                                &tag,
                                frontend,
                                ImageBuildLoadInput::Upload(context),
                                None,
                                Some(build_ref),
                            );
                            tokio::select! {
                                outcome = solve => outcome.map_err(|error| Failed::of(&error)),
                                _ = given_up => Err(Failed {
                                    said: "the build was stopped".to_owned(),
                                    no_buildkit: false,
                                }),
                            }
                        })
                    });
                let _ = done_tx.send(outcome);
            })
            .map_err(|error| {
                Error::InvalidSetting(format!("cannot start the image build: {error}"))
            })?;
    }
    let mut lines = buildkit_status::Lines::default();
    let opened = tokio::time::timeout(
        STATUS_OPEN_TIMEOUT,
        buildkit_status::open(engine.endpoint(), build_ref.as_ref()),
    )
    .await
    .unwrap_or_else(|_| Err("the engine did not answer in time".to_owned()));
    let mut status = match opened {
        Ok(stream) => Some(stream),
        Err(why) => {
            tracing::debug!("the build's steps cannot be followed: {why}");
            progress(Report::Output(
                "The build's steps cannot be followed on this connection; it goes on quietly",
            ));
            None
        }
    };
    let started = Instant::now();
    let mut heartbeat =
        tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    let outcome = loop {
        tokio::select! {
            outcome = &mut done => {
                break outcome.unwrap_or_else(|_| Err(Failed {
                    said: "the build stopped".to_owned(),
                    no_buildkit: false,
                }));
            }
            message = next_status(&mut status) => match message {
                Some(message) => {
                    lines.observe(&message, progress);
                    heartbeat.reset();
                }
                None => status = None,
            },
            _ = heartbeat.tick() => {
                progress(Report::Output(&format!(
                    "Still building ({} s)",
                    started.elapsed().as_secs()
                )));
            }
        }
    };
    // What the build said last (a failed step's output) may arrive after the solve returned.
    if let Some(stream) = status.as_mut() {
        let drain = async {
            while let Ok(Some(message)) = stream.message().await {
                lines.observe(&message, progress);
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
    }
    lines.finish(progress);
    drop(files);
    outcome.map_err(|failed| failed.into_error(lines.tail()))
}

/// The next status message; pending for ever when there is no stream, `None` when it ended.
async fn next_status(
    status: &mut Option<tonic::Streaming<bollard::moby::buildkit::v1::StatusResponse>>,
) -> Option<bollard::moby::buildkit::v1::StatusResponse> {
    match status {
        Some(stream) => stream.message().await.ok().flatten(),
        None => std::future::pending().await,
    }
}

/// Why a solve failed.
struct Failed {
    /// What BuildKit or the engine said.
    said: String,
    /// The engine refused the BuildKit endpoints themselves: it has no BuildKit.
    no_buildkit: bool,
}

impl Failed {
    fn of(error: &GrpcError) -> Self {
        use bollard::errors::Error as Engine;
        let (said, no_buildkit) = match error {
            GrpcError::TonicStatus { err } => (
                err.message().to_owned(),
                err.code() == tonic::Code::Unimplemented,
            ),
            // The upgrade of `/grpc` or `/session` was refused: no such endpoint, or one that
            // does not serve BuildKit.
            GrpcError::DockerError {
                err:
                    Engine::DockerResponseServerError {
                        status_code,
                        message,
                    },
            } => (
                format!("{message} (HTTP {status_code})"),
                matches!(status_code, 400 | 404 | 405 | 501),
            ),
            other => (other.to_string(), false),
        };
        Self { said, no_buildkit }
    }

    /// The error a user reads, with URL credentials masked; `tail` is the build's last output.
    fn into_error(self, tail: String) -> Error {
        let said = redact::mask_userinfo(&self.said);
        if self.no_buildkit {
            Error::BuildKitUnavailable { said }
        } else {
            Error::BuildFailed { detail: said, tail }
        }
    }
}

/// The build secrets as files in a private folder (0700 on Unix, each file 0600), removed when
/// dropped.
struct SecretFiles {
    /// Removes the folder and its files when dropped.
    _folder: Option<tempfile::TempDir>,
    /// Each secret's id and file.
    files: Vec<(&'static str, PathBuf)>,
}

impl SecretFiles {
    fn write(secrets: &[BuildSecret]) -> Result<Self> {
        if secrets.is_empty() {
            return Ok(Self {
                _folder: None,
                files: Vec::new(),
            });
        }
        let folder = tempfile::Builder::new()
            .prefix("hailer-build-secrets-")
            .tempdir()
            .map_err(Error::file(
                "cannot create a private folder for the build's secrets",
                std::env::temp_dir(),
            ))?;
        hailer_platform::restrict_dir(folder.path()).map_err(Error::file(
            "cannot make the build's secret folder private",
            folder.path(),
        ))?;
        let mut files = Vec::new();
        for secret in secrets {
            let path = folder.path().join(secret.id);
            write_private(&path, secret.bytes.expose_secret())?;
            files.push((secret.id, path));
        }
        Ok(Self {
            _folder: Some(folder),
            files,
        })
    }
}

/// Writes `bytes` to a new file only its owner can read.
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let failed = || Error::file("cannot write a secret of the build", path);
    let mut file = hailer_platform::private_open_options()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(failed())?;
    file.write_all(bytes).map_err(failed())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_engine_that_refuses_the_buildkit_endpoints_is_told_apart_from_a_failed_build() {
        let refused = GrpcError::DockerError {
            err: bollard::errors::Error::DockerResponseServerError {
                status_code: 404,
                message: "page not found".to_owned(),
            },
        };
        let error = Failed::of(&refused).into_error(String::new());
        assert!(
            matches!(error, Error::BuildKitUnavailable { .. }),
            "{error}"
        );
        let text = error.to_string();
        assert!(
            text.contains("BuildKit") && text.contains("page not found (HTTP 404)"),
            "{text}"
        );

        let failed = GrpcError::TonicStatus {
            err: tonic::Status::unknown(
                "failed to fetch https://ana:pw@mirror.example/simple: exit code: 1",
            ),
        };
        let error = Failed::of(&failed).into_error("pip said no".to_owned());
        let text = error.to_string();
        assert!(matches!(error, Error::BuildFailed { .. }), "{text}");
        assert!(
            text.contains("https://****@mirror.example") && !text.contains("pw@"),
            "{text}"
        );
        assert!(text.contains("pip said no"), "{text}");
    }

    // It reads Unix modes.
    #[cfg(unix)]
    #[test]
    fn secrets_are_private_files_removed_when_the_build_ends() {
        use std::os::unix::fs::PermissionsExt as _;
        let secrets = [BuildSecret {
            id: "pip.conf",
            bytes: secrecy::SecretSlice::from(b"index-url = https://u:p@h/simple\n".to_vec()),
        }];
        let files = SecretFiles::write(&secrets).unwrap();
        let (id, path) = files.files[0].clone();
        assert_eq!(id, "pip.conf");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"index-url = https://u:p@h/simple\n"
        );
        let mode = |path: &Path| path.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        let folder = path.parent().unwrap().to_path_buf();
        assert_eq!(mode(&folder), 0o700);
        drop(files);
        assert!(!folder.exists());
        assert!(SecretFiles::write(&[]).unwrap().files.is_empty());
    }
}
