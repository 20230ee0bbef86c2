//! Building the sandbox's root from the plan, in the new mount namespace.
//!
//! A private memory folder becomes the root, with the host's root reachable at `/oldroot`
//! while the plan's steps bind from it into `/newroot`; `/newroot` then becomes the root, the
//! host's is detached, and the root's own folder is made read-only.

use std::path::{Path, PathBuf};

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sys::statvfs::{FsFlags, statvfs};

use crate::plan::{MountOp, PRIVATE_ENTRIES_UNDER, PathKind, SandboxPlan, SystemEntry};

const STAGE: &str = "/tmp";
const NEW_ROOT: &str = "/newroot";
const OLD_ROOT: &str = "/oldroot";

/// Builds the root of `plan` and makes it this process's root, in the workspace folder.
pub(super) fn build_root(plan: &SandboxPlan) -> Result<(), String> {
    mount_at(None, "/", None, MsFlags::MS_REC | MsFlags::MS_PRIVATE)?;
    mount_at(
        Some(Path::new("tmpfs")),
        STAGE,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
    )?;
    std::env::set_current_dir(STAGE).map_err(|e| format!("cannot enter {STAGE}: {e}"))?;
    for folder in ["newroot", "oldroot"] {
        std::fs::create_dir(folder).map_err(|e| format!("cannot make {folder}: {e}"))?;
    }
    mount_at(
        Some(Path::new("newroot")),
        "newroot",
        None,
        MsFlags::MS_BIND | MsFlags::MS_REC,
    )?;
    nix::unistd::pivot_root(".", "oldroot").map_err(|e| format!("cannot change root: {e}"))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the root: {e}"))?;
    let system = system_entries();
    for op in &plan.mount_ops(&inspect, &system) {
        apply(op)?;
    }
    let workspace = inside_new_root(&plan.workspace);
    let _ = std::fs::create_dir_all(&workspace);
    umount2(OLD_ROOT, MntFlags::MNT_DETACH)
        .map_err(|e| format!("cannot let go of the host's root: {e}"))?;
    std::env::set_current_dir(NEW_ROOT).map_err(|e| format!("cannot enter the new root: {e}"))?;
    nix::unistd::pivot_root(".", ".").map_err(|e| format!("cannot change root: {e}"))?;
    umount2(".", MntFlags::MNT_DETACH).map_err(|e| format!("cannot detach the stage: {e}"))?;
    mount_at(
        None,
        "/",
        None,
        MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY,
    )?;
    std::env::set_current_dir(&plan.workspace)
        .or_else(|_| std::env::set_current_dir("/"))
        .map_err(|e| format!("cannot enter the workspace: {e}"))
}

/// The entries under [`PRIVATE_ENTRIES_UNDER`] on the host, seen through `/oldroot`, paths as
/// the sandbox sees them; links are not followed. A folder others may not list or enter is
/// listed but not walked: it is covered whole.
fn system_entries() -> Vec<SystemEntry> {
    let mut entries = Vec::new();
    let mut folders = vec![PathBuf::from(PRIVATE_ENTRIES_UNDER)];
    while let Some(folder) = folders.pop() {
        let Ok(listing) = std::fs::read_dir(from_host(&folder)) else {
            continue;
        };
        for item in listing.flatten() {
            let Ok(meta) = item.metadata() else { continue };
            if meta.file_type().is_symlink() {
                continue;
            }
            let entry = SystemEntry {
                path: folder.join(item.file_name()),
                dir: meta.is_dir(),
                mode: std::os::unix::fs::PermissionsExt::mode(&meta.permissions()),
            };
            if entry.dir && !crate::plan::is_private(true, entry.mode) {
                folders.push(entry.path.clone());
            }
            entries.push(entry);
        }
    }
    entries
}

/// What the host holds at `path`, seen through `/oldroot`.
fn inspect(path: &Path) -> PathKind {
    let host = from_host(path);
    match std::fs::symlink_metadata(&host) {
        Err(_) => PathKind::Missing,
        Ok(meta) if meta.file_type().is_symlink() => std::fs::read_link(&host)
            .map(PathKind::Symlink)
            .unwrap_or(PathKind::Missing),
        Ok(meta) if meta.is_dir() => PathKind::Dir,
        Ok(_) => PathKind::File,
    }
}

fn apply(op: &MountOp) -> Result<(), String> {
    let target = inside_new_root(op.path());
    match op {
        MountOp::Tmpfs { path } => {
            make_dir(&target)?;
            let mode = if path == Path::new("/tmp") || path == Path::new("/dev/shm") {
                "mode=1777"
            } else {
                "mode=0755"
            };
            mount_with(
                Some(Path::new("tmpfs")),
                &target,
                Some("tmpfs"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
                Some(mode),
            )
        }
        MountOp::Bind {
            source, writable, ..
        } => {
            let source = from_host(source);
            if source.is_dir() {
                make_dir(&target)?;
            } else {
                make_file(&target)?;
            }
            mount_at(
                Some(source.as_path()),
                &target,
                None,
                MsFlags::MS_BIND | MsFlags::MS_REC,
            )?;
            if *writable {
                Ok(())
            } else {
                remount_read_only(&target)
            }
        }
        MountOp::Symlink { target: to, .. } => {
            if let Some(parent) = target.parent() {
                make_dir(parent)?;
            }
            std::os::unix::fs::symlink(to, &target)
                .map_err(|e| format!("cannot link {}: {e}", op.path().display()))
        }
        MountOp::Proc => {
            make_dir(&target)?;
            mount_at(
                Some(Path::new("proc")),
                &target,
                Some("proc"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            )
        }
        MountOp::Hide { dir: true, .. } => mount_with(
            Some(Path::new("tmpfs")),
            &target,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some("mode=0755"),
        ),
        MountOp::Hide { dir: false, .. } => mount_at(
            Some(from_host(Path::new("/dev/null")).as_path()),
            &target,
            None,
            MsFlags::MS_BIND,
        ),
    }
}

/// Makes a bind read-only, keeping the flags the host's mount has (a user namespace may not
/// drop them).
fn remount_read_only(target: &Path) -> Result<(), String> {
    let mut flags = MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY;
    if let Ok(stat) = statvfs(target) {
        let kept = stat.flags();
        for (has, flag) in [
            (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
            (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
            (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
            (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
            (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
            (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
        ] {
            if kept.contains(has) {
                flags |= flag;
            }
        }
    }
    mount_at(None, target, None, flags)
}

fn from_host(path: &Path) -> PathBuf {
    Path::new(OLD_ROOT).join(path.strip_prefix("/").unwrap_or(path))
}

fn inside_new_root(path: &Path) -> PathBuf {
    Path::new(NEW_ROOT).join(path.strip_prefix("/").unwrap_or(path))
}

fn make_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path).map_err(|e| format!("cannot make {}: {e}", path.display()))
}

fn make_file(path: &Path) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        make_dir(parent)?;
    }
    if path.exists() {
        return Ok(());
    }
    std::fs::File::create(path)
        .map(drop)
        .map_err(|e| format!("cannot make {}: {e}", path.display()))
}

fn mount_at(
    source: Option<&Path>,
    target: impl AsRef<Path>,
    fstype: Option<&str>,
    flags: MsFlags,
) -> Result<(), String> {
    mount_with(source, target, fstype, flags, None)
}

fn mount_with(
    source: Option<&Path>,
    target: impl AsRef<Path>,
    fstype: Option<&str>,
    flags: MsFlags,
    data: Option<&str>,
) -> Result<(), String> {
    let target = target.as_ref();
    mount(source, target, fstype, flags, data)
        .map_err(|e| format!("cannot mount {}: {e}", target.display()))
}
