//! Which kernel runtime the demo uses: docker when the engine (as hailerd finds it) and the
//! kernel image are here; unsafe-local only when the user asks for it. Without either, the demo
//! says what to do and writes nothing.

use hailer_config::HailerHome;
use hailer_config::Runtime;

use crate::docker_probe::{self, KernelReadiness, kernel_readiness};

/// The runtime, and a line saying why; or what to do instead.
pub(super) async fn choose(
    home: &HailerHome,
    requested: Option<Runtime>,
) -> Result<(Runtime, String), String> {
    if requested == Some(Runtime::UnsafeLocal) {
        return Ok((
            Runtime::UnsafeLocal,
            "unsafe-local, as you asked: notebook code runs as you, with your files and \
             network (not isolated)"
                .to_owned(),
        ));
    }
    if requested == Some(Runtime::Sandbox) {
        return Ok((
            Runtime::Sandbox,
            "sandbox, as you asked: notebook code runs in your Python, in this system's own \
             sandbox (no network, data read-only)"
                .to_owned(),
        ));
    }
    let image = std::env::var("HAILER_KERNEL_IMAGE")
        .ok()
        .filter(|image| !image.trim().is_empty())
        .unwrap_or_else(|| {
            hailer_kernel_bundle::default_image_name(&hailer_kernel_bundle::contract())
        });
    let readiness = match docker_probe::status(home, &image).await {
        Ok(status) => kernel_readiness(&status, &image),
        Err(error) => KernelReadiness::NotReady {
            reason: format!("hailerd could not ask Docker ({error:#})"),
            fix: "Check `hailer daemon logs`.".to_owned(),
        },
    };
    match readiness {
        KernelReadiness::Ready { version } => Ok((
            Runtime::Docker,
            format!("docker: Docker {version} answers and the kernel image {image} is here"),
        )),
        KernelReadiness::NotReady { reason, fix } => {
            let mut text = format!(
                "The demo runs its kernel in Docker, isolated from this machine, and Docker is \
                 not ready: {reason}.\n  {fix}"
            );
            if requested.is_none() {
                text.push_str(
                    "\n  Or run the demo's kernel as you, without isolation (notebook code then \
                     has your files and network): hailer demo --kernel unsafe-local",
                );
            }
            Err(text)
        }
    }
}
