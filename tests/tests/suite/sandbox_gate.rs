//! After a docker kernel wrote notebooks into a workspace, an unsafe-local start runs them on this
//! machine: it needs the user's agreement, and refuses without a terminal to ask in.

use hailer_tests::TestWorkspace;

const MARKER: &str = ".hailer/sandbox-wrote-notebooks";

use hailer_tests::output_text as text;

#[test]
fn an_unsafe_local_start_after_docker_wrote_notebooks_needs_agreement() {
    let workspace = TestWorkspace::unsafe_local();
    workspace.write(MARKER, "written by a docker kernel\n");

    let refused = workspace.hailer(&["exec", "-c", "print('ran')"]);
    assert!(!refused.status.success(), "{}", text(&refused));
    let said = text(&refused);
    assert!(said.contains("docker kernel wrote notebooks"), "{said}");
    assert!(said.contains("--run-sandbox-notebooks"), "{said}");
    assert!(!said.contains("ran\n"), "nothing ran: {said}");
    assert!(workspace.path().join(MARKER).exists(), "the marker stays");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sessions: serde_json::Value =
        runtime.block_on(async { workspace.get_json("/v1/sessions").await });
    assert_eq!(
        sessions["sessions"].as_array().map(Vec::len),
        Some(0),
        "{sessions}"
    );

    let agreed = workspace.hailer(&["--run-sandbox-notebooks", "exec", "-c", "print('ran')"]);
    assert!(agreed.status.success(), "{}", text(&agreed));
    assert!(text(&agreed).contains("ran"), "{}", text(&agreed));
    assert!(
        !workspace.path().join(MARKER).exists(),
        "the agreement is kept"
    );

    let _ = workspace.hailer(&["daemon", "stop"]);
}
