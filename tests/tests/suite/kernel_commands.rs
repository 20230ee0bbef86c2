//! `hailer kernel build`, `pull` and `stop` as a user runs them, against the real engine.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use hailer_tests::TestWorkspace;

/// The password planted in the host's pip configuration; it must never be printed or logged.
const SECRET: &str = "s3cr3t-mirror-pw";

use hailer_tests::output_text as text;

/// A `hailer` command whose package settings come only from what the test sets: the host's
/// pip, uv and CA variables are removed and `HOME` is `home`.
fn hermetic(workspace: &TestWorkspace, home: &Path, args: &[&str]) -> Command {
    let mut command = workspace.command(args);
    for (name, _) in std::env::vars() {
        if hailer_protocol::is_build_discovery_variable(&name) {
            command.env_remove(name);
        }
    }
    command.env("HOME", home);
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_stop_removes_this_workspaces_kernel_and_nothing_else() {
    hailer_tests::docker_image::kernel_image().await;
    let first = TestWorkspace::docker();
    let second = TestWorkspace::docker();
    for workspace in [&first, &second] {
        let ran = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
        assert!(ran.status.success(), "{ran:?}");
    }
    let containers = first.docker_containers();
    let networks = first.docker_networks();
    assert_eq!(containers.len(), 2, "kernel and forwarder: {containers:?}");
    assert_eq!(networks.len(), 1, "{networks:?}");
    let second_before = second.docker_containers();
    assert_eq!(second_before.len(), 2);

    let stop = tokio::task::block_in_place(|| first.hailer(&["kernel", "stop"]));
    let said = text(&stop);
    assert!(stop.status.success(), "{said}");
    assert!(said.contains("Ended this workspace's session"), "{said}");
    for name in containers.iter().chain(&networks) {
        assert!(
            said.contains(name.as_str()),
            "{name} is not among the removed: {said}"
        );
    }
    assert!(first.docker_containers().is_empty());
    assert!(first.docker_networks().is_empty());
    assert_eq!(second.docker_containers(), second_before);
    let other = tokio::task::block_in_place(|| second.hailer(&["exec", "-c", "print(2)"]));
    assert!(
        other.status.success(),
        "the other workspace's kernel broke: {other:?}"
    );
    assert_eq!(String::from_utf8_lossy(&other.stdout).trim(), "2");

    // Nothing left: it says so and succeeds.
    let again = tokio::task::block_in_place(|| first.hailer(&["kernel", "stop"]));
    assert!(again.status.success(), "{again:?}");
    assert_eq!(
        text(&again).trim(),
        "No kernel is running for this workspace."
    );
    for workspace in [&first, &second] {
        let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_stop_removes_a_kernel_another_daemon_started() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let ran = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(workspace.docker_containers().len(), 2);

    // Another Hailer home: another daemon, which has no session of this workspace.
    let other_home = tempfile::tempdir().unwrap();
    let stop = tokio::task::block_in_place(|| {
        workspace
            .command(&["kernel", "stop"])
            .env("HAILER_HOME", other_home.path())
            .output()
            .unwrap()
    });
    let said = text(&stop);
    assert!(stop.status.success(), "{said}");
    assert!(said.starts_with("Removed hailer-"), "{said}");
    assert!(!said.contains("Ended"), "{said}");
    assert!(workspace.docker_containers().is_empty());
    assert!(workspace.docker_networks().is_empty());
    let _ = tokio::task::block_in_place(|| {
        workspace
            .command(&["daemon", "stop"])
            .env("HAILER_HOME", other_home.path())
            .output()
    });
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[test]
fn a_dry_run_writes_the_context_with_the_host_mirror_and_prints_no_secret() {
    let workspace = TestWorkspace::docker();
    // The user's pip file, as pip reads it: over the machine's /etc/pip.conf, if any.
    let home = tempfile::tempdir().unwrap();
    let ca = home.path().join("company-ca.pem");
    std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\n").unwrap();
    let pip_dir = home.path().join(".config/pip");
    std::fs::create_dir_all(&pip_dir).unwrap();
    std::fs::write(
        pip_dir.join("pip.conf"),
        format!(
            "[global]\nindex-url = https://user:{SECRET}@mirror.example/simple\n\
             trusted-host = mirror.example\nkeyring-provider = subprocess\ncert = {}\n",
            ca.display()
        ),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let context = out.path().join("context");
    let context_arg = context.display().to_string();

    let dry = hermetic(
        &workspace,
        home.path(),
        &["kernel", "build", "--context", &context_arg, "--dry-run"],
    )
    .output()
    .unwrap();
    let said = text(&dry);
    assert!(dry.status.success(), "{said}");
    let summary = said
        .lines()
        .find(|line| line.starts_with("Using the host's package index settings (pip: "))
        .unwrap_or_else(|| panic!("no summary of the host's settings: {said}"));
    assert!(
        summary.ends_with(" settings, a CA certificate)"),
        "{summary}"
    );
    for leak in [SECRET, "user:", "mirror.example"] {
        assert!(!said.contains(leak), "{leak} was printed: {said}");
    }
    assert!(
        !workspace.daemon_log().contains(SECRET),
        "the daemon logged the secret"
    );

    // The files: the recipe and package, the build stage's folders, the settings.
    assert_eq!(
        std::fs::read_to_string(context.join("Dockerfile")).unwrap(),
        hailer_kernel_bundle::DOCKERFILE
    );
    for file in [
        "requirements.txt",
        "pyproject.toml",
        "hailer_kernel/forward.py",
        "build-command.txt",
    ] {
        assert!(context.join(file).is_file(), "{file} missing");
    }
    assert!(context.join("wheels").is_dir());
    assert!(!context.join("pip").exists(), "pip settings in the context");
    let conf = context.join("secrets/pip.conf");
    let meta = std::fs::symlink_metadata(&conf).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let conf_text = std::fs::read_to_string(&conf).unwrap();
    assert!(conf_text.contains("[install]"), "{conf_text}");
    assert!(
        conf_text.contains(&format!(
            "index-url = https://user:{SECRET}@mirror.example/simple"
        )),
        "{conf_text}"
    );
    assert!(conf_text.contains("trusted-host = mirror.example"));
    assert!(
        !conf_text.contains("keyring"),
        "only index settings are carried over"
    );
    // The settings and the CA file reach the build as BuildKit secrets, never the context.
    assert_eq!(
        std::fs::read_to_string(context.join(".dockerignore")).unwrap(),
        "secrets\n"
    );
    let command = std::fs::read_to_string(context.join("build-command.txt")).unwrap();
    let contract = hailer_kernel_bundle::contract();
    assert!(
        command.starts_with(&format!(
            "docker build --secret id=pip.conf,src={} --secret id=ca.pem,src={} --tag {} ",
            conf.display(),
            ca.display(),
            hailer_kernel_bundle::default_image_name(&contract)
        )),
        "{command}"
    );
    assert!(command.ends_with(&format!(" {context_arg}\n")), "{command}");
    assert!(
        command.contains(&format!(
            "--build-arg BASE_IMAGE={}",
            hailer_kernel_bundle::DEFAULT_BASE_IMAGE
        )),
        "{command}"
    );
    assert!(
        said.contains(command.trim()),
        "the command is not printed: {said}"
    );

    // A folder that holds files is left alone.
    let again = hermetic(
        &workspace,
        home.path(),
        &["kernel", "build", "--context", &context_arg, "--dry-run"],
    )
    .output()
    .unwrap();
    assert!(!again.status.success());
    assert!(text(&again).contains("not empty"), "{}", text(&again));

    // Without the host's settings: no pip.conf, a plain docker build command.
    let plain_dir = out.path().join("plain");
    let plain_arg = plain_dir.display().to_string();
    let plain = hermetic(
        &workspace,
        home.path(),
        &[
            "kernel",
            "build",
            "--no-host-config",
            "--tag",
            "hailer-kernel:mine",
            "--context",
            &plain_arg,
            "--dry-run",
        ],
    )
    .output()
    .unwrap();
    let plain_said = text(&plain);
    assert!(plain.status.success(), "{plain_said}");
    assert!(plain_said.contains("--no-host-config"), "{plain_said}");
    assert!(!plain_dir.join("secrets").exists());
    assert!(
        plain_said.contains(&format!(
            "docker build --tag hailer-kernel:mine --build-arg KERNEL_CONTRACT={contract} --build-arg BASE_IMAGE={} {plain_arg}",
            hailer_kernel_bundle::DEFAULT_BASE_IMAGE
        )),
        "{plain_said}"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn a_broken_host_pip_file_stops_the_build_naming_the_file_only() {
    let workspace = TestWorkspace::docker();
    let home = tempfile::tempdir().unwrap();
    let broken = home.path().join("company.ini");
    std::fs::write(
        &broken,
        format!("index-url = https://user:{SECRET}@mirror.example/simple\n"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let context = out.path().join("context").display().to_string();
    let build = hermetic(
        &workspace,
        home.path(),
        &["kernel", "build", "--context", &context, "--dry-run"],
    )
    .env("PIP_CONFIG_FILE", &broken)
    .output()
    .unwrap();
    let said = text(&build);
    assert!(!build.status.success(), "{said}");
    assert!(said.contains(&broken.display().to_string()), "{said}");
    assert!(said.contains("line 1"), "{said}");
    assert!(said.contains("--no-host-config"), "{said}");
    assert!(!said.contains(SECRET), "{said}");
    assert!(!workspace.daemon_log().contains(SECRET));
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_build_builds_under_another_tag_and_says_how_to_use_it() {
    let image = hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let tag = format!("hailer-kernel:e2e-{}", std::process::id());
    let base = hailer_tests::prereqs::base_image();
    let wheelhouse = hailer_tests::prereqs::image_wheelhouse()
        .display()
        .to_string();
    let built = tokio::task::block_in_place(|| {
        workspace.hailer(&[
            "kernel",
            "build",
            "--tag",
            &tag,
            "--base-image",
            &base,
            "--wheelhouse",
            &wheelhouse,
        ])
    });
    let said = text(&built);
    // The tag goes; its layers stay as the build cache of the next run.
    let _ = Command::new("docker")
        .args(["rmi", "--no-prune", &tag])
        .output();
    assert!(built.status.success(), "{said}");
    let contract = hailer_kernel_bundle::contract();
    assert!(said.contains("offline from the wheelhouse"), "{said}");
    assert!(
        said.contains(&format!("{tag} is ready (kernel contract {contract})")),
        "{said}"
    );
    assert!(
        said.contains(&format!("Sessions of this workspace use {image}"))
            && said.contains(&format!("image = \"{tag}\" under [kernel]")),
        "{said}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[test]
fn kernel_pull_that_finds_nothing_says_to_build() {
    let workspace = TestWorkspace::docker();
    let pull = workspace
        .command(&["kernel", "pull"])
        .env("HAILER_KERNEL_IMAGE", "127.0.0.1:9/hailer/kernel:nowhere")
        .output()
        .unwrap();
    let said = text(&pull);
    assert_eq!(pull.status.code(), Some(1), "{said}");
    assert!(
        said.contains("Downloading 127.0.0.1:9/hailer/kernel:nowhere"),
        "{said}"
    );
    assert!(said.contains("hailer kernel build"), "{said}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kernel_routes_stream_json_lines_and_refuse_hostile_requests() {
    let workspace = TestWorkspace::docker();
    let out = tempfile::tempdir().unwrap();
    let started = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "start"]));
    assert!(started.status.success(), "{started:?}");
    let (client, base, token) = workspace.api();
    let post = |path: &str, body: serde_json::Value| {
        client
            .post(format!("{base}{path}"))
            .bearer_auth(&token)
            .json(&body)
            .send()
    };
    let last_line = |body: &str| -> serde_json::Value {
        let lines: Vec<&str> = body.lines().collect();
        for line in &lines {
            serde_json::from_str::<serde_json::Value>(line)
                .unwrap_or_else(|error| panic!("not a JSON line ({error}): {line}"));
        }
        serde_json::from_str(lines.last().unwrap_or(&"{}")).unwrap()
    };

    let cases = [
        (
            serde_json::json!({"tag": "t", "cwd": "/", "wheelhouse": "relative/wheels"}),
            "must be an absolute path",
        ),
        (
            serde_json::json!({"tag": "two words", "cwd": "/"}),
            "one word",
        ),
        (
            serde_json::json!({"tag": "t", "cwd": "relative", "hostConfig": true}),
            "absolute working folder",
        ),
        (
            serde_json::json!({
                "tag": "t",
                "cwd": "/",
                "pipConfig": "/nonexistent/company.ini",
                "exportTo": out.path().join("ctx"),
            }),
            "/nonexistent/company.ini",
        ),
    ];
    for (body, needle) in cases {
        let response = post("/v1/kernel/build", body.clone()).await.unwrap();
        assert_eq!(response.status(), 200, "{body}");
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "application/x-ndjson"
        );
        let text = response.text().await.unwrap();
        let last = last_line(&text);
        assert_eq!(last["kind"], "failed", "{text}");
        assert!(
            last["message"]
                .as_str()
                .unwrap_or_default()
                .contains(needle),
            "{needle:?} missing: {text}"
        );
    }

    // Not a build request at all, and a stop of a relative folder: refused before any work.
    let wrong = post("/v1/kernel/build", serde_json::json!({"tag": 5}))
        .await
        .unwrap();
    assert_eq!(wrong.status(), 400);
    let relative = post("/v1/kernel/stop", serde_json::json!({"workspace": "ws"}))
        .await
        .unwrap();
    assert_eq!(relative.status(), 400);
    let unauthenticated = client
        .post(format!("{base}/v1/kernel/stop"))
        .json(&serde_json::json!({"workspace": "/"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthenticated.status(), 401);
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

/// Runs `docker ARGS`, failing the test with docker's words when it fails.
fn docker(args: &[&str]) -> String {
    let output = Command::new("docker").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "docker {args:?}: {}",
        text(&output)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Publishes `local` in the test registry as `remote`, then forgets the name `remote` here, so
/// that only a pull brings it back.
fn publish(local: &str, remote: &str) {
    docker(&["tag", local, remote]);
    docker(&["push", "--quiet", remote]);
    docker(&["image", "rm", remote]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_pull_downloads_a_published_image_and_sessions_use_it() {
    let local = hailer_tests::docker_image::kernel_image().await;
    let contract = hailer_kernel_bundle::contract();
    let registry = hailer_tests::prereqs::registry();
    let remote = format!("{registry}/hailer/kernel:{contract}");
    tokio::task::block_in_place(|| publish(&local, &remote));

    let workspace = TestWorkspace::docker();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let configured = toml.replacen("# image = \"\"", &format!("image = \"{remote}\""), 1);
    assert_ne!(
        toml, configured,
        "the [kernel] section has no image line to set"
    );
    workspace.write("hailer.toml", &configured);
    // An image the workspace's file names is the user's to agree to.
    workspace.trust();

    let pull = tokio::task::block_in_place(|| workspace.hailer(&["kernel", "pull"]));
    let said = text(&pull);
    assert!(pull.status.success(), "{said}");
    assert!(said.contains(&format!("Downloading {remote}")), "{said}");
    assert!(
        said.contains(&format!("{remote} is ready (kernel contract {contract})")),
        "{said}"
    );
    let label = docker(&[
        "image",
        "inspect",
        "--format",
        "{{index .Config.Labels \"org.hailer.kernel-contract\"}}",
        &remote,
    ]);
    assert_eq!(label, contract);

    let session = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
    assert!(session.status.success(), "{session:?}");
    assert_eq!(String::from_utf8_lossy(&session.stdout).trim(), "42");
    let kernels = docker(&[
        "ps",
        "--filter",
        "label=org.hailer.role=kernel",
        "--format",
        "{{.Image}}",
    ]);
    assert!(kernels.lines().any(|image| image == remote), "{kernels}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    docker(&["image", "rm", &remote]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernel_pull_of_an_image_of_another_contract_refuses_it() {
    hailer_tests::docker_image::kernel_image().await;
    let registry = hailer_tests::prereqs::registry();
    let remote = format!("{registry}/hailer/kernel:marimo0.0.1-000000000000");
    let base = hailer_tests::prereqs::base_image();
    tokio::task::block_in_place(|| {
        let mut build = Command::new("docker")
            .args(["build", "--quiet", "--tag", &remote, "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        build
            .stdin
            .take()
            .unwrap()
            .write_all(
                format!("FROM {base}\nLABEL org.hailer.kernel-contract=marimo0.0.1-000000000000\n")
                    .as_bytes(),
            )
            .unwrap();
        let built = build.wait_with_output().unwrap();
        assert!(built.status.success(), "{}", text(&built));
        docker(&["push", "--quiet", &remote]);
        docker(&["image", "rm", &remote]);
    });

    let workspace = TestWorkspace::docker();
    let pull = tokio::task::block_in_place(|| {
        workspace
            .command(&["kernel", "pull"])
            .env("HAILER_KERNEL_IMAGE", &remote)
            .output()
            .unwrap()
    });
    let said = text(&pull);
    assert_eq!(pull.status.code(), Some(1), "{said}");
    assert!(said.contains("marimo0.0.1-000000000000"), "{said}");
    assert!(said.contains(&hailer_kernel_bundle::contract()), "{said}");
    assert!(said.contains("hailer kernel build"), "{said}");
    assert!(!said.contains(" is ready "), "{said}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    let _ = Command::new("docker")
        .args(["image", "rm", &remote])
        .output();
}
