//! Data the kernel cannot read: `hailer doctor` lists the files the docker kernel's user may
//! not read, with the command that fixes each, and a run that fails on such a file reports one
//! plain line.

use std::os::unix::fs::PermissionsExt as _;

use hailer_tests::TestWorkspace;

#[test]
fn doctor_lists_data_files_the_docker_kernel_cannot_read() {
    let workspace = TestWorkspace::docker();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\n");
    workspace.write("data/q3 secret.csv", "region,amount\nsouth,32\n");
    let secret = workspace.path().join("data/q3 secret.csv");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();

    let output = workspace.hailer(&["doctor"]);
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    let (uid, gid) = hailer_kernel_bundle::IMAGE_USER;
    assert!(
        table.contains(&format!(
            "data         WARN  data: the kernel (user {uid}, group {gid}, in its container) \
             cannot read 1 of its files or folders"
        )),
        "{table}"
    );
    assert!(table.contains("chmod a+r 'data/q3 secret.csv'"), "{table}");
    assert!(!table.contains("sales.csv"), "{table}");

    // Once readable, the row is plain again.
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let output = workspace.hailer(&["doctor"]);
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        table.contains("data         OK    data: read-only in the kernel"),
        "{table}"
    );
}

/// Code that fails on a file and has marimo write the error as it does outside a run of
/// `hailer exec`: highlighted as HTML by marimo's own traceback writer.
const HIGHLIGHTED_FAILURE: &str = "\
import sys, traceback
from marimo._messaging.tracebacks import _highlight_traceback
try:
    open(DATA_DIR / 'missing.csv').read()
except OSError:
    sys.stderr._write_with_mimetype(
        _highlight_traceback(traceback.format_exc()),
        mimetype='application/vnd.marimo+traceback',
    )
";

#[test]
fn an_error_marimo_writes_as_html_reaches_exec_as_one_line() {
    let workspace = TestWorkspace::unsafe_local();
    let failed = workspace.hailer(&["exec", "-c", HIGHLIGHTED_FAILURE]);
    let stderr = String::from_utf8_lossy(&failed.stderr).into_owned();
    assert!(failed.status.success(), "{failed:?}");
    assert!(!stderr.contains("<span"), "{stderr}");
    assert!(!stderr.contains("codehilite"), "{stderr}");
    let missing = workspace.path().join("data/missing.csv");
    let expected = format!(
        "FileNotFoundError: [Errno 2] No such file or directory: '{}'",
        missing.display()
    );
    let canonical = workspace.canonical().join("data/missing.csv");
    let expected_canonical = format!(
        "FileNotFoundError: [Errno 2] No such file or directory: '{}'",
        canonical.display()
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.starts_with("Waiting for the kernel"))
        .collect();
    assert!(
        lines == [expected.as_str()] || lines == [expected_canonical.as_str()],
        "{stderr}"
    );
}
