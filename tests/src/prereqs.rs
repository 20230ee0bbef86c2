//! What the tests need from the machine, as `scripts/test-prereqs.sh` prepared it.
//!
//! A missing prerequisite fails the test that needs it, with the command that provides it.

use std::path::PathBuf;

fn required(name: &str) -> PathBuf {
    match std::env::var_os(name).filter(|value| !value.is_empty()) {
        Some(value) => PathBuf::from(value),
        None => panic!(
            "{name} is not set: run `bash scripts/test-prereqs.sh` and `source .cache/test-env.sh` \
             (scripts/test.sh does both)"
        ),
    }
}

/// The folder the test prerequisites and caches live in.
pub fn cache() -> PathBuf {
    required("HAILER_TEST_CACHE")
}

/// A virtual environment with marimo and the kernel's packages: the tests' own tools, and the
/// Python the shared managed environment ([`crate::kernel_envs`]) is made from.
pub fn kernel_venv() -> PathBuf {
    let venv = required("HAILER_TEST_VENV");
    assert!(
        venv.join("bin/python").exists(),
        "{} has no bin/python: run `bash scripts/test-prereqs.sh` again",
        venv.display()
    );
    venv
}

/// The folder of wheels the kernel's packages install from offline.
pub fn wheelhouse() -> PathBuf {
    required("HAILER_TEST_WHEELHOUSE")
}

/// The folder of wheels the kernel image installs from offline: the kernel's packages for the
/// base image's Python (3.13) on this machine's architecture.
pub fn image_wheelhouse() -> PathBuf {
    required("HAILER_TEST_IMAGE_WHEELHOUSE")
}

/// The base image the tests build the kernel image from: Python 3.12+ made without a registry,
/// since the tests reach none (users build from the official Python image).
pub fn base_image() -> String {
    required("HAILER_TEST_BASE_IMAGE")
        .to_string_lossy()
        .into_owned()
}

/// The pinned uv of the test tools.
pub fn uv() -> PathBuf {
    let uv = required("HAILER_TEST_UV");
    assert!(
        uv.is_file(),
        "{} is missing: run `bash scripts/test-prereqs.sh` again",
        uv.display()
    );
    uv
}

/// Debian's Chromium.
pub fn chromium() -> PathBuf {
    let path = required("HAILER_TEST_CHROMIUM");
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/test-prereqs.sh` (it installs Debian's chromium)",
        path.display()
    );
    path
}

/// Debian's chromedriver, matching [`chromium`].
pub fn chromedriver() -> PathBuf {
    let path = required("HAILER_TEST_CHROMEDRIVER");
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/test-prereqs.sh` (it installs Debian's chromium-driver)",
        path.display()
    );
    path
}

/// tmux, which runs the terminal client in a pane the tests type into and read.
pub fn tmux() -> PathBuf {
    let tmux = required("HAILER_TEST_TMUX");
    assert!(
        tmux.is_file(),
        "{} does not exist: run `bash scripts/test-prereqs.sh` again",
        tmux.display()
    );
    tmux
}

/// A private image registry on loopback (`HOST:PORT`) that the engine may push to and pull from.
pub fn registry() -> String {
    let address = required("HAILER_TEST_REGISTRY");
    address.to_string_lossy().into_owned()
}

/// The Python that has the official MCP client (`scripts/install-pinned-venv.sh`).
pub fn mcp_python() -> PathBuf {
    let path = required("HAILER_TEST_MCP_PYTHON");
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/test-prereqs.sh` again (it installs the MCP client)",
        path.display()
    );
    path
}

/// The `litellm` program of the LiteLLM proxy (`scripts/install-pinned-venv.sh`).
pub fn litellm() -> PathBuf {
    let path = required("HAILER_TEST_LITELLM");
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/test-prereqs.sh` again (it installs the LiteLLM proxy)",
        path.display()
    );
    path
}

/// The virtual environment of the API's testers (`scripts/requirements-api-tools.txt`):
/// schemathesis, openapi-spec-validator and the websockets client.
pub fn api_venv() -> PathBuf {
    let venv = required("HAILER_TEST_API_VENV");
    assert!(
        venv.join("bin/st").is_file(),
        "{} has no schemathesis: run `bash scripts/test-prereqs.sh` again",
        venv.display()
    );
    venv
}
