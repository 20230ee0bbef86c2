//! The names and labels every object of a docker kernel carries.
//!
//! Names are `hailer-<kind>-<workspace id>-<suffix>`; labels say which workspace, which role,
//! which kernel contract and which owner (a session's lock id) an object belongs to, so a later
//! start can tell its own leftovers from another session's live kernel.

use std::collections::HashMap;
use std::path::Path;

use sha2::{Digest, Sha256};

pub use hailer_kernel_bundle::CONTRACT_LABEL;

/// The workspace id (16 hex characters).
pub const WORKSPACE_LABEL: &str = "org.hailer.workspace";
/// The absolute workspace path, for people reading `docker ps`.
pub(crate) const WORKSPACE_PATH_LABEL: &str = "org.hailer.workspace-path";
/// `network`, `kernel`, `forwarder` or `probe`.
pub const ROLE_LABEL: &str = "org.hailer.role";
/// The id of the owner lock of the session that created the object.
pub const OWNER_LABEL: &str = "org.hailer.owner";

/// What an object is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The internal network the kernel sits on when notebook code may not reach the network:
    /// a bridge with no route out and no address on this machine, joined only by the kernel
    /// and the forwarder.
    Network,
    /// The container that runs marimo and the notebook code.
    Kernel,
    /// The small container, on both the internal network and the default one, that publishes
    /// the kernel's port on 127.0.0.1; made only when the kernel has no network.
    Forwarder,
    /// A short-lived container made from the kernel's image and settings that runs
    /// `hailer doctor --probe`'s probes, so nothing run in the kernel before can change them.
    Probe,
}

impl Role {
    /// The value of the [`ROLE_LABEL`] label: `network`, `kernel`, `forwarder` or `probe`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Network => "network",
            Self::Kernel => "kernel",
            Self::Forwarder => "forwarder",
            Self::Probe => "probe",
        }
    }

    fn name_part(self) -> &'static str {
        match self {
            Self::Network => "net",
            Self::Kernel => "kernel",
            Self::Forwarder => "fwd",
            Self::Probe => "probe",
        }
    }
}

/// 16 hex characters naming a workspace: a digest of its absolute path (resolved when it exists).
pub fn workspace_id(workspace: &Path) -> String {
    let resolved = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let digest = Sha256::digest(resolved.to_string_lossy().as_bytes());
    hex::encode(&digest[..8])
}

/// 6 random hex characters, fresh for every start.
pub(crate) fn new_suffix() -> String {
    let mut bytes = [0u8; 3];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

/// `hailer-<kind>-<workspace id>-<suffix>`.
pub(crate) fn object_name(role: Role, workspace_id: &str, suffix: &str) -> String {
    format!("hailer-{}-{workspace_id}-{suffix}", role.name_part())
}

/// Who an object belongs to.
#[derive(Debug, Clone)]
pub(crate) struct Ownership<'a> {
    /// The workspace's 16-hex-character id ([`workspace_id`]); the [`WORKSPACE_LABEL`] that
    /// every lookup and removal filters on.
    pub workspace_id: &'a str,
    /// The workspace folder, written as the [`WORKSPACE_PATH_LABEL`] for people only; no code
    /// selects objects by it.
    pub workspace: &'a Path,
    /// The kernel contract of the image, written as the [`CONTRACT_LABEL`].
    pub contract: &'a str,
    /// The id of the owner lock of the session creating the object, written as the
    /// [`OWNER_LABEL`]; a later cleanup removes the object once that owner is no longer alive.
    pub owner_id: &'a str,
}

impl Ownership<'_> {
    /// Every label of an object with `role`.
    pub(crate) fn labels(&self, role: Role) -> HashMap<String, String> {
        HashMap::from([
            (WORKSPACE_LABEL.to_owned(), self.workspace_id.to_owned()),
            (
                WORKSPACE_PATH_LABEL.to_owned(),
                self.workspace.to_string_lossy().into_owned(),
            ),
            (ROLE_LABEL.to_owned(), role.as_str().to_owned()),
            (CONTRACT_LABEL.to_owned(), self.contract.to_owned()),
            (OWNER_LABEL.to_owned(), self.owner_id.to_owned()),
        ])
    }
}

/// The engine filter that selects a workspace's objects.
pub fn workspace_filter(workspace_id: &str) -> HashMap<String, Vec<String>> {
    HashMap::from([(
        "label".to_owned(),
        vec![format!("{WORKSPACE_LABEL}={workspace_id}")],
    )])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn workspace_ids_are_16_hex_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let id = workspace_id(dir.path());
        assert_eq!(id.len(), 16);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(id, workspace_id(dir.path()));
        let other = tempfile::tempdir().unwrap();
        assert_ne!(id, workspace_id(other.path()));
    }

    #[test]
    fn names_follow_the_documented_pattern() {
        let suffix = new_suffix();
        assert_eq!(suffix.len(), 6);
        assert_eq!(
            object_name(Role::Network, "0123456789abcdef", "a1b2c3"),
            "hailer-net-0123456789abcdef-a1b2c3"
        );
        assert_eq!(
            object_name(Role::Forwarder, "0123456789abcdef", "a1b2c3"),
            "hailer-fwd-0123456789abcdef-a1b2c3"
        );
    }

    #[test]
    fn labels_name_workspace_role_contract_and_owner() {
        let ownership = Ownership {
            workspace_id: "0123456789abcdef",
            workspace: Path::new("/ws"),
            contract: "marimo0.24.2-abc",
            owner_id: "fedcba9876543210",
        };
        let labels = ownership.labels(Role::Kernel);
        assert_eq!(labels[WORKSPACE_LABEL], "0123456789abcdef");
        assert_eq!(labels[ROLE_LABEL], "kernel");
        assert_eq!(labels[CONTRACT_LABEL], "marimo0.24.2-abc");
        assert_eq!(labels[OWNER_LABEL], "fedcba9876543210");
    }
}
