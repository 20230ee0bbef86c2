//! A user outside the `docker` group is told that, with the fix, and not that Docker is not
//! running: `hailer doctor` run as an ordinary user (made here) who may not open the engine's
//! socket.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The ordinary user, in no group but its own.
const USER: &str = "hailer-nodocker";

/// The binaries, a home and a workspace in a folder the user owns.
struct Area {
    root: tempfile::TempDir,
    uid: u32,
    gid: u32,
}

impl Area {
    fn new() -> Self {
        let (uid, gid) = hailer_tests::system::system_user(USER);
        let area = Self {
            root: tempfile::tempdir().unwrap(),
            uid,
            gid,
        };
        std::fs::create_dir_all(area.path("bin")).unwrap();
        for name in ["hailer", "hailerd"] {
            let from = hailer_tests::bins::path(name);
            std::fs::copy(&from, area.path("bin").join(name)).unwrap();
        }
        for folder in ["home", "hailer-home", "workspace"] {
            std::fs::create_dir_all(area.path(folder)).unwrap();
        }
        std::fs::write(
            area.path("workspace/hailer.toml"),
            "[kernel]\nruntime = \"docker\"\n",
        )
        .unwrap();
        std::fs::set_permissions(area.root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let owned = Command::new("chown")
            .arg("-R")
            .arg(format!("{uid}:{gid}"))
            .arg(area.root.path())
            .status()
            .unwrap();
        assert!(owned.success());
        area
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// `hailer ARGS` in the workspace as the user, in no supplementary group.
    fn hailer(&self, args: &[&str]) -> Output {
        Command::new("setpriv")
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
            .env("HAILER_DAEMON_BIN", self.path("bin/hailerd"))
            .output()
            .unwrap()
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        let _ = self.hailer(&["daemon", "stop"]);
    }
}

#[test]
fn a_user_who_may_not_open_the_docker_socket_is_told_so_with_the_fix() {
    let socket = Path::new("/var/run/docker.sock");
    assert!(
        socket.exists(),
        "the tests need Docker at its usual socket, {}",
        socket.display()
    );
    let area = Area::new();
    let doctor = area.hailer(&["doctor"]);
    let table = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert_eq!(doctor.status.code(), Some(1), "{doctor:?}");
    let docker_row = table
        .lines()
        .find(|line| line.trim_start().starts_with("docker "))
        .unwrap_or_else(|| panic!("no docker row: {table}"));
    assert!(
        docker_row.contains(
            "Docker is running, but you may not use it: permission denied on its socket \
             /var/run/docker.sock."
        ),
        "{table}"
    );
    assert!(
        docker_row.contains("add yourself to the docker group")
            && docker_row.contains("log out and in again"),
        "{table}"
    );
    assert!(!table.contains("not running"), "{table}");
    assert!(
        table.contains("run `hailer daemon stop` so that hailerd starts again"),
        "{table}"
    );
}
