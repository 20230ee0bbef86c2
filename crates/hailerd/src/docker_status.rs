//! What the daemon finds of the Docker engine and of a kernel image, asked fresh
//! ([`probe`]) or as last found ([`DockerStatusCache`]), so `hailer status` is answered without
//! waiting for the engine.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hailer_docker::Engine;
use hailer_docker::{Endpoint, EndpointSource};
use hailer_protocol::{DockerEngine, DockerStatus, KernelImageStatus};
use tokio_util::sync::CancellationToken;

/// A finding older than this is not answered from the cache: it is asked for again.
const FRESH_FOR: Duration = Duration::from_secs(3);
/// How often the findings asked for lately are refreshed in the background.
const REFRESH_EVERY: Duration = Duration::from_secs(1);
/// A finding nobody asked for this long is no longer refreshed, and is forgotten.
const KEEP_FOR: Duration = Duration::from_secs(60);

/// Whether the Docker engine answers and runs Linux containers, and whether it has `image`
/// (with its contract and base image labels), asked of the engine now.
pub(crate) async fn probe(image: &str) -> DockerStatus {
    let endpoint = match hailer_docker::resolve_endpoint() {
        Ok(endpoint) => endpoint,
        Err(error) => {
            return DockerStatus {
                endpoint: String::new(),
                engine: DockerEngine::NotRunning {
                    message: error.without_runtime_alternative(),
                },
                image: None,
            };
        }
    };
    let described = describe(&endpoint);
    let engine = match Engine::connect_to(endpoint).await {
        Ok(engine) => engine,
        Err(error) => {
            let message = error.without_runtime_alternative();
            let engine = match error {
                hailer_docker::Error::NotLinux { os } => DockerEngine::NotLinux { os },
                hailer_docker::Error::NotInstalled { .. } => DockerEngine::NotInstalled { message },
                hailer_docker::Error::SocketDenied { .. } => DockerEngine::NoAccess { message },
                _ => DockerEngine::NotRunning { message },
            };
            return DockerStatus {
                endpoint: described,
                engine,
                image: None,
            };
        }
    };
    let image = match hailer_docker::image_labels(&engine, image).await {
        Ok(Some(labels)) => {
            let label = |name: &str| {
                labels
                    .get(name)
                    .filter(|value| !value.is_empty() && value.as_str() != "unknown")
                    .cloned()
            };
            KernelImageStatus::Present {
                contract: label(hailer_kernel_bundle::CONTRACT_LABEL).unwrap_or_default(),
                base: label(hailer_kernel_bundle::BASE_IMAGE_LABEL),
                base_digest: label(hailer_kernel_bundle::BASE_DIGEST_LABEL),
            }
        }
        Ok(None) => KernelImageStatus::Missing,
        Err(error) => KernelImageStatus::Unknown {
            message: error.without_runtime_alternative(),
        },
    };
    DockerStatus {
        endpoint: described,
        engine: DockerEngine::Ready {
            version: engine.version().to_owned(),
        },
        image: Some(image),
    }
}

/// The endpoint for messages: its address, and the docker context it came from.
fn describe(endpoint: &Endpoint) -> String {
    match &endpoint.source {
        EndpointSource::Context(name) => format!("{} (docker context {name})", endpoint.host),
        _ => endpoint.host.clone(),
    }
}

#[derive(Debug)]
struct Finding {
    status: DockerStatus,
    found: Instant,
    asked: Instant,
}

/// The engine's status per image, as last found; a background task
/// ([`DockerStatusCache::refresh_until`]) asks the engine again every second for the images
/// asked about in the last minute, so a reader rarely waits for the engine.
#[derive(Debug, Clone, Default)]
pub(crate) struct DockerStatusCache {
    findings: Arc<Mutex<HashMap<String, Finding>>>,
}

impl DockerStatusCache {
    /// The status of the engine and `image`: as last found when that is recent, else asked now.
    pub(crate) async fn get(&self, image: &str) -> DockerStatus {
        let now = Instant::now();
        if let Ok(mut findings) = self.findings.lock()
            && let Some(finding) = findings.get_mut(image)
            && now.duration_since(finding.found) < FRESH_FOR
        {
            finding.asked = now;
            return finding.status.clone();
        }
        let status = probe(image).await;
        self.store(image, status.clone(), now);
        status
    }

    /// Keeps `status` as what was found of `image` at `found`.
    pub(crate) fn store(&self, image: &str, status: DockerStatus, found: Instant) {
        if let Ok(mut findings) = self.findings.lock() {
            let asked = findings
                .get(image)
                .map_or(found, |old| old.asked.max(found));
            findings.insert(
                image.to_owned(),
                Finding {
                    status,
                    found,
                    asked,
                },
            );
        }
    }

    /// Forgets every finding: images were built, downloaded or removed through the daemon.
    pub(crate) fn forget(&self) {
        if let Ok(mut findings) = self.findings.lock() {
            findings.clear();
        }
    }

    /// Refreshes the findings asked for lately, every second, until `stop`; `first` is looked
    /// at once at the start, so the first `hailer status` finds it ready.
    pub(crate) async fn refresh_until(self, first: String, stop: CancellationToken) {
        let started = Instant::now();
        let status = probe(&first).await;
        self.store(&first, status, started);
        loop {
            tokio::select! {
                () = tokio::time::sleep(REFRESH_EVERY) => {}
                () = stop.cancelled() => return,
            }
            for image in self.due(Instant::now()) {
                let started = Instant::now();
                let status = probe(&image).await;
                self.store(&image, status, started);
            }
        }
    }

    /// The images to look at again now; those nobody asked for lately are forgotten.
    fn due(&self, now: Instant) -> Vec<String> {
        let Ok(mut findings) = self.findings.lock() else {
            return Vec::new();
        };
        findings.retain(|_, finding| now.duration_since(finding.asked) < KEEP_FOR);
        findings
            .iter()
            .filter(|(_, finding)| now.duration_since(finding.found) >= REFRESH_EVERY)
            .map(|(image, _)| image.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(version: &str) -> DockerStatus {
        DockerStatus {
            endpoint: "unix:///var/run/docker.sock".to_owned(),
            engine: DockerEngine::Ready {
                version: version.to_owned(),
            },
            image: Some(KernelImageStatus::Missing),
        }
    }

    #[tokio::test]
    async fn a_recent_finding_is_answered_without_asking_the_engine() {
        let cache = DockerStatusCache::default();
        cache.store("img", status("29.1"), Instant::now());
        assert_eq!(cache.get("img").await, status("29.1"));
    }

    #[test]
    fn findings_nobody_asks_for_are_forgotten_and_others_refreshed() {
        let cache = DockerStatusCache::default();
        let long_ago = Instant::now();
        cache.store("old", status("1"), long_ago);
        cache.store("new", status("2"), long_ago);
        let later = long_ago + KEEP_FOR + Duration::from_secs(1);
        if let Ok(mut findings) = cache.findings.lock()
            && let Some(finding) = findings.get_mut("new")
        {
            finding.asked = later;
        }
        assert_eq!(cache.due(later), vec!["new".to_owned()]);
        assert_eq!(cache.due(later), vec!["new".to_owned()]);
        cache.forget();
        assert!(cache.due(later).is_empty());
    }
}
