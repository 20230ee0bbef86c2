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
