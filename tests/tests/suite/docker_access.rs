//! A user outside the `docker` group is told that, with the fix, and not that Docker is not
//! running: `hailer doctor` run as an ordinary user (made here) who may not open the engine's
//! socket.

use std::path::Path;

use hailer_tests::system::UserArea;

/// The ordinary user, in no group but its own.
const USER: &str = "hailer-nodocker";

/// The binaries, a home and a docker workspace, in a folder the user owns.
fn area() -> UserArea {
    let area = UserArea::new(USER);
    std::fs::write(
        area.path("workspace/hailer.toml"),
        "[kernel]\nruntime = \"docker\"\n",
    )
    .unwrap();
    area.hand_over();
    area
}

#[test]
fn a_user_who_may_not_open_the_docker_socket_is_told_so_with_the_fix() {
    let socket = Path::new("/var/run/docker.sock");
    assert!(
        socket.exists(),
        "the tests need Docker at its usual socket, {}",
        socket.display()
    );
    let area = area();
    let doctor = area.hailer(&["doctor"]).output().unwrap();
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
