use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

use bollard::models::{ContainerCreateBody, HostConfig, Mount, MountType, PortBinding};
use bollard::query_parameters::{CreateContainerOptions, RemoveContainerOptions};
use hailer_docker::{CopyLimits, CopyState, copy_back, copy_in};
use hailer_docker::workspace_id;
use hailer_docker::{DockerKernel, DockerSpec, cleanup_leftovers, kernel_command, kernel_user};
use hailer_docker::{Engine, default_image_name, ensure_image};
use hailer_kernel_bundle as bundle;
use hailer_marimo::MarimoClient;
use secrecy::{ExposeSecret as _, SecretString};

const NOTEBOOK: &str = "import marimo\n\n__generated_with = \"0.24.2\"\napp = marimo.App()\n\n\n@app.cell\ndef _():\n    x = 1\n    return (x,)\n\n\nif __name__ == \"__main__\":\n    app.run()\n";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let engine = Engine::connect().await.unwrap_or_else(|e| panic!("{e}"));
    let contract = bundle::contract();
    let image = default_image_name(&contract);
    ensure_image(&engine, &image, &contract)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "engine {} ({} CPUs), image {image}",
        engine.version(),
        engine.cpus().unwrap_or(0)
    );

    let mut ours = Vec::new();
    let mut floor = Vec::new();
    for round in 1..=rounds {
        let (start, open) = docker_session(&engine, &image).await;
        let (floor_health, floor_open) = floor_session(&engine, &image).await;
        let floor_time = floor_health + floor_open;
        println!(
            "round {round}: docker session {:.2} s (ready {:.2} s + copy-in and notebook session \
             {:.2} s); floor {:.2} s (healthy {:.2} s + notebook session {:.2} s)",
            (start + open).as_secs_f64(),
            start.as_secs_f64(),
            open.as_secs_f64(),
            floor_time.as_secs_f64(),
            floor_health.as_secs_f64(),
            floor_open.as_secs_f64()
        );
        ours.push(start + open);
        floor.push(floor_time);
    }
    println!(
        "median: docker session {:.2} s, floor {:.2} s, overhead {:.2} s, ratio {:.2} (target <= 1.3)",
        median(&ours).as_secs_f64(),
        median(&floor).as_secs_f64(),
        median(&ours).as_secs_f64() - median(&floor).as_secs_f64(),
        median(&ours).as_secs_f64() / median(&floor).as_secs_f64()
    );
    // A row of scripts/bench.sh's table.
    println!(
        "BENCH\tdocker kernel ready with a notebook session\t{:.2} s\t{:.2} s\t<= 1.3 x floor",
        median(&ours).as_secs_f64(),
        median(&floor).as_secs_f64()
    );
    copies_of_500(&engine, &image).await;
}

fn median(values: &[Duration]) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("hailer-bench-")
        .tempdir()
        .unwrap();
    for sub in ["notebooks", "data"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    for path in [
        dir.path().to_path_buf(),
        dir.path().join("data"),
        dir.path().join("notebooks"),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn spec(dir: &Path, image: &str) -> DockerSpec {
    DockerSpec {
        workspace: dir.to_path_buf(),
        notebooks_dir: dir.join("notebooks"),
        data_dir: dir.join("data"),
        image: image.to_owned(),
        contract: bundle::contract(),
        memory: hailer_config::MemoryLimit::parse("2g").unwrap(),
        cpus: 2.0,
        network: false,
        owner_id: "be0c4be0c4be0c4b".to_owned(),
        workspace_id: workspace_id(dir),
        ready_timeout: Duration::from_secs(120),
    }
}

/// Our start until ready, then copy-in and a session on the notebook until kernel-ready.
async fn docker_session(engine: &Engine, image: &str) -> (Duration, Duration) {
    let dir = workspace();
    std::fs::write(dir.path().join("notebooks/analysis.py"), NOTEBOOK).unwrap();
    let started = Instant::now();
    // As hailerd starts a session: leftovers and the image's contract, then the kernel.
    let spec = spec(dir.path(), image);
    let (removed, checked) = tokio::join!(
        cleanup_leftovers(engine, &spec.workspace_id, |_| true),
        ensure_image(engine, image, &spec.contract)
    );
    removed.unwrap();
    checked.unwrap();
    let kernel = DockerKernel::start(engine, &spec).await.unwrap();
    let ready = started.elapsed();
    let client = kernel.client().unwrap();
    let opened = Instant::now();
    let mut state = CopyState::new();
    copy_in(&client, &dir.path().join("notebooks"), &mut state).await;
    tracing::debug!(elapsed = ?opened.elapsed(), "copied in");
    client
        .open_session(Path::new("/work/notebooks/analysis.py"))
        .await
        .unwrap();
    let open = opened.elapsed();
    kernel.stop().await;
    (ready, open)
}

/// The same image straight into marimo: one container, published port, the notebook
/// bind-mounted, until /health and one session's kernel-ready.
async fn floor_session(engine: &Engine, image: &str) -> (Duration, Duration) {
    let dir = workspace();
    std::fs::write(dir.path().join("notebooks/analysis.py"), NOTEBOOK).unwrap();
    let token = hailer_marimo::generate_token();
    let token_path = dir.path().join("token");
    std::fs::write(&token_path, token.expose_secret()).unwrap();
    std::fs::set_permissions(&token_path, std::fs::Permissions::from_mode(0o644)).unwrap();
    // marimo may write next to its notebooks, as it may in ours.
    let (uid, gid) = kernel_user();
    for path in [
        dir.path().join("notebooks"),
        dir.path().join("notebooks/analysis.py"),
    ] {
        std::os::unix::fs::chown(&path, Some(uid), Some(gid)).unwrap();
    }
    let docker = engine.docker();
    let bind = |source: &Path, target: &str| Mount {
        typ: Some(MountType::BIND),
        source: Some(source.to_string_lossy().into_owned()),
        target: Some(target.to_owned()),
        ..Default::default()
    };
    let body = ContainerCreateBody {
        image: Some(image.to_owned()),
        cmd: Some(kernel_command()),
        // The user ours runs as (the image's own when this runs as root), not root: marimo
        // starts measurably faster as root, which would flatter the floor.
        user: Some(format!("{uid}:{gid}")),
        exposed_ports: Some(vec!["2718/tcp".to_owned()]),
        host_config: Some(HostConfig {
            port_bindings: Some(HashMap::from([(
                "2718/tcp".to_owned(),
                Some(vec![PortBinding {
                    host_ip: Some("127.0.0.1".to_owned()),
                    host_port: Some(String::new()),
                }]),
            )])),
            mounts: Some(vec![
                bind(&dir.path().join("notebooks"), "/work/notebooks"),
                bind(&token_path, "/run/secrets/hailer-token"),
            ]),
            ..Default::default()
        }),
        ..Default::default()
    };
    let started = Instant::now();
    let created = docker
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .unwrap();
    docker.start_container(&created.id, None).await.unwrap();
    let inspect = docker.inspect_container(&created.id, None).await.unwrap();
    let port = inspect.network_settings.unwrap().ports.unwrap()["2718/tcp"]
        .clone()
        .unwrap()[0]
        .host_port
        .clone()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    loop {
        let healthy = match http.get(format!("{base}/health")).send().await {
            Ok(response) => response.text().await.is_ok_and(|t| t.contains("healthy")),
            Err(_) => false,
        };
        if healthy {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the floor container never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let healthy_after = started.elapsed();
    let client =
        MarimoClient::new(&base, SecretString::from(token.expose_secret().to_owned())).unwrap();
    client
        .open_session(Path::new("/work/notebooks/analysis.py"))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let remove = RemoveContainerOptions {
        force: true,
        ..Default::default()
    };
    docker
        .remove_container(&created.id, Some(remove))
        .await
        .unwrap();
    (healthy_after, elapsed - healthy_after)
}

/// 500 notebooks in, then a copy-back pass over them unchanged.
async fn copies_of_500(engine: &Engine, image: &str) {
    let dir = workspace();
    let notebooks = dir.path().join("notebooks");
    for index in 0..500 {
        let folder = notebooks.join(format!("team{}", index % 10));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("analysis_{index:03}.py")),
            format!("{NOTEBOOK}# {index}\n"),
        )
        .unwrap();
    }
    let kernel = DockerKernel::start(engine, &spec(dir.path(), image))
        .await
        .unwrap();
    let client = kernel.client().unwrap();
    let mut state = CopyState::new();
    let started = Instant::now();
    let report = copy_in(&client, &notebooks, &mut state).await;
    let copy_in_time = started.elapsed();
    assert_eq!(report.copied.len(), 500, "{:?}", report.warnings);
    let mut passes = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let report = copy_back(
            &client,
            &notebooks,
            &dir.path().join(".hailer"),
            &mut state,
            CopyLimits::background(),
        )
        .await;
        passes.push(started.elapsed());
        assert_eq!(report.unchanged, 500, "{report:?}");
        assert!(report.copied.is_empty());
    }
    println!(
        "copy in of 500 notebooks: {:.2} s; copy-back pass over 500 unchanged: {:.0} ms (median of 3)",
        copy_in_time.as_secs_f64(),
        median(&passes).as_secs_f64() * 1000.0
    );
    kernel.stop().await;
}
