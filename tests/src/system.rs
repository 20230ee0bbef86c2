//! What the tests read of this machine: a process's resident size, and a system user made for a
//! test that needs one outside every group.

use std::process::Command;

/// The resident size of process `pid` in KiB, from `/proc/<pid>/status` (`VmRSS`); panics when
/// the process is gone.
pub fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|error| panic!("no /proc/{pid}/status: {error}"));
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in {status}"))
}

/// The user and group ids of the system user `name` (no home, no login shell), made when it does
/// not exist yet. Test processes running at once may both try: the second finds it made.
pub fn system_user(name: &str) -> (u32, u32) {
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, name])
            .output()
            .unwrap_or_else(|error| panic!("id: {error}"))
    };
    if !id("-u").status.success() {
        let made = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                name,
            ])
            .output()
            .unwrap_or_else(|error| panic!("useradd: {error}"));
        assert!(id("-u").status.success(), "useradd: {made:?}");
    }
    let number = |flag: &str| -> u32 {
        let said = String::from_utf8_lossy(&id(flag).stdout).trim().to_owned();
        said.parse()
            .unwrap_or_else(|_| panic!("id {flag} {name} said {said:?}"))
    };
    (number("-u"), number("-g"))
}

/// A folder owned by a system user holding what runs Hailer as that user: `bin/` with `hailer`
/// and `hailerd`, `home/`, `hailer-home/` and `workspace/`. A test adds its files, then
/// [`UserArea::hand_over`] gives the whole folder to the user. The daemon it started is stopped
/// when the area goes.
pub struct UserArea {
    root: tempfile::TempDir,
    /// The user's id.
    pub uid: u32,
    /// The user's group.
    pub gid: u32,
}

impl UserArea {
    /// The area of the system user `user` (made when missing), before it is handed over.
    pub fn new(user: &str) -> Self {
        let (uid, gid) = system_user(user);
        let root = tempfile::tempdir().unwrap_or_else(|error| panic!("tempdir: {error}"));
        let area = Self { root, uid, gid };
        for folder in ["bin", "home", "hailer-home", "workspace"] {
            make_folder(&area.path(folder));
        }
        for name in ["hailer", "hailerd"] {
            area.copy_in(&crate::bins::path(name), &format!("bin/{name}"));
        }
        area
    }

    /// [`Self::new`] holding what a first unsafe-local or sandbox start needs offline: `uv` at
    /// `bin/uv` and the test wheelhouse at `wheelhouse/`, then handed over to the user.
    pub fn with_uv_and_wheelhouse(user: &str) -> Self {
        let area = Self::new(user);
        area.copy_in(&crate::prereqs::uv(), "bin/uv");
        let wheelhouse = area.path("wheelhouse");
        std::fs::create_dir_all(&wheelhouse)
            .unwrap_or_else(|error| panic!("{}: {error}", wheelhouse.display()));
        let wheels = std::fs::read_dir(crate::prereqs::wheelhouse())
            .unwrap_or_else(|error| panic!("the test wheelhouse: {error}"));
        for wheel in wheels.flatten() {
            let wheel = wheel.path();
            let name = wheel
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            area.copy_in(&wheel, &format!("wheelhouse/{name}"));
        }
        area.hand_over();
        area
    }

    /// `relative` inside the area.
    pub fn path(&self, relative: &str) -> std::path::PathBuf {
        self.root.path().join(relative)
    }

    /// Copies the file `from` to `relative` inside the area.
    pub fn copy_in(&self, from: &std::path::Path, relative: &str) {
        std::fs::copy(from, self.path(relative))
            .unwrap_or_else(|error| panic!("{}: {error}", from.display()));
    }

    /// Gives the whole area to the user; others may enter its top folder.
    pub fn hand_over(&self) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(self.root.path(), std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|error| panic!("chmod: {error}"));
        let done = Command::new("chown")
            .arg("-R")
            .arg(format!("{}:{}", self.uid, self.gid))
            .arg(self.root.path())
            .status()
            .unwrap_or_else(|error| panic!("chown: {error}"));
        assert!(done.success(), "chown -R failed");
    }

    /// `hailer ARGS` in the workspace as the user, in no supplementary group, with only the
    /// environment a plain login has (`PATH` starting at the area's `bin/`, `HOME`, `LANG`)
    /// and the area's Hailer home.
    pub fn hailer(&self, args: &[&str]) -> Command {
        let mut command = Command::new("setpriv");
        command
            .arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg("--")
            .arg(self.path("bin/hailer"))
            .args(args)
            .current_dir(self.path("workspace"))
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.path("bin").display()),
            )
            .env("HOME", self.path("home"))
            .env("LANG", "C.UTF-8")
            .env("HAILER_HOME", self.path("hailer-home"))
            .env("HAILER_DAEMON_BIN", self.path("bin/hailerd"));
        command
    }
}

impl Drop for UserArea {
    fn drop(&mut self) {
        let _ = self.hailer(&["daemon", "stop"]).output();
    }
}

fn make_folder(path: &std::path::Path) {
    std::fs::create_dir_all(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
}
