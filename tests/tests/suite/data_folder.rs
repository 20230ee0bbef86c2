//! `[hailer] data_dir` is the folder the kernel's `DATA_DIR` and `data_files` use, under both
//! runtimes, so what the agent is told and what its code finds agree.

use hailer_tests::TestWorkspace;

/// Points the workspace's data folder at `my-data/` holding one file, and asks the kernel what
/// its starter notebook found.
fn data_files_seen(workspace: &TestWorkspace) -> String {
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let toml = if toml.contains("# data_dir = \"data\"") {
        toml.replacen("# data_dir = \"data\"", "data_dir = \"my-data\"", 1)
    } else {
        format!("[hailer]\ndata_dir = \"my-data\"\n{toml}")
    };
    workspace.write("hailer.toml", &toml);
    workspace.write("my-data/regions.csv", "region,amount\nnorth,1\n");
    workspace.write("data/decoy.csv", "not,this\n");
    let ran = workspace.hailer(&[
        "exec",
        "-c",
        "print(DATA_DIR.name, sorted(p.name for p in data_files))",
    ]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
    assert!(ran.status.success(), "{said}");
    said
}

#[test]
fn the_unsafe_local_kernel_reads_the_configured_data_folder() {
    let said = data_files_seen(&TestWorkspace::unsafe_local());
    assert!(said.contains("my-data ['regions.csv']"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docker_kernel_reads_the_configured_data_folder() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let said = tokio::task::block_in_place(|| data_files_seen(&workspace));
    // Mounted read-only at /work/data, whatever its name on this machine.
    assert!(said.contains("data ['regions.csv']"), "{said}");
}
