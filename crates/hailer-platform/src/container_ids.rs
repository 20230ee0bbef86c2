//! The ids of this process's user as a container sees them: on a Linux host a container's user
//! ids are the host's own, while Docker Desktop (macOS, Windows) maps file ownership through its
//! file sharing, so there the host's ids mean nothing inside.

/// This process's user and group, when they pass into a container unchanged (Linux).
pub fn host_ids_in_containers() -> Option<(u32, u32)> {
    #[cfg(target_os = "linux")]
    {
        Some((
            nix::unistd::getuid().as_raw(),
            nix::unistd::getgid().as_raw(),
        ))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
