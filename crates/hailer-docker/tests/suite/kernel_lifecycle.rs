//! Starts that fail or are abandoned clean up after themselves; leftovers of dead owners go
//! while live owners' and other workspaces' objects stay; the network-on variant.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::{Workspace, base_image, engine, kernel_image, labelled_objects};
use bollard::models::{ContainerCreateBody, NetworkCreateRequest};
use bollard::query_parameters::CreateContainerOptions;
use hailer_docker::{DockerKernel, cleanup_leftovers, list_kernels, stop_workspace};
use hailer_docker::{Engine, Error};
use hailer_docker::{OWNER_LABEL, ROLE_LABEL, WORKSPACE_LABEL};

/// Waits until nothing labelled with `workspace_id` is left (removal after a drop runs in the
/// background).
async fn wait_until_clean(engine: &Engine, workspace_id: &str) -> (Vec<String>, Vec<String>) {
    let mut left = labelled_objects(engine, workspace_id).await;
    for _ in 0..60 {
        if left.0.is_empty() && left.1.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        left = labelled_objects(engine, workspace_id).await;
    }
    left
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_start_removes_what_it_created_and_the_token() {
    let engine = engine().await;
    let ws = Workspace::new();
    // The base image has no kernel environment (no `python` that runs marimo): the kernel
    // cannot start.
    let spec = ws.spec(&base_image(), "1111111111111111");
    let error = DockerKernel::start(&engine, &spec).await.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, Error::Engine { .. } | Error::ExitedEarly { .. }),
        "{text}"
    );
    assert!(text.contains("kernel"), "{text}");
    if let Error::ExitedEarly { log_tail, .. } = &error {
        assert!(
            log_tail.contains("python"),
            "the log names what failed: {log_tail}"
        );
    }
    let (containers, networks) = labelled_objects(&engine, &ws.id()).await;
    assert!(
        containers.is_empty() && networks.is_empty(),
        "{containers:?} {networks:?}"
    );
    assert!(ws.token_folders().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_start_is_cleaned_up() {
    let engine = engine().await;
    let image = kernel_image(&engine).await;
    let ws = Workspace::new();
    let spec = ws.spec(&image, "2222222222222222");
    // The start is dropped as soon as its container exists, long before marimo in it answers.
    let start = Box::pin(DockerKernel::start(&engine, &spec));
    let container_made = async {
        loop {
            let (containers, _) = labelled_objects(&engine, &ws.id()).await;
            if !containers.is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        started = start => panic!(
            "the start ended (ok: {}) before its container was seen",
            started.is_ok()
        ),
        () = container_made => {}
        () = tokio::time::sleep(Duration::from_secs(120)) => panic!("no container after 120 s"),
    }
    let (containers, networks) = wait_until_clean(&engine, &ws.id()).await;
    assert!(
        containers.is_empty() && networks.is_empty(),
        "{containers:?} {networks:?}"
    );
    assert!(ws.token_folders().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_network_on_there_is_one_container_published_on_loopback() {
    let engine = engine().await;
    let image = kernel_image(&engine).await;
    let ws = Workspace::new();
    let mut spec = ws.spec(&image, "3333333333333333");
    spec.network = true;
    let kernel = DockerKernel::start(&engine, &spec).await.unwrap();
    assert!(kernel.network);
    assert!(kernel.base_url.starts_with("http://127.0.0.1:"));
    let (containers, networks) = labelled_objects(&engine, &ws.id()).await;
    assert_eq!(containers.len(), 1, "{containers:?}");
    assert!(networks.is_empty(), "{networks:?}");
    let sessions = kernel.client().unwrap().list_sessions().await;
    assert!(sessions.is_ok(), "{sessions:?}");
    // Dropped without a stop: the containers go all the same, before the drop returns.
    drop(kernel);
    let (containers, _) = labelled_objects(&engine, &ws.id()).await;
    assert!(containers.is_empty(), "{containers:?}");
}

/// A stopped container and a network labelled like a kernel's, for the leftover rules (they
/// only read labels, so nothing needs to run).
async fn plant(engine: &Engine, workspace_id: &str, owner: Option<&str>, tag: &str) {
    let mut labels = HashMap::from([
        (WORKSPACE_LABEL.to_owned(), workspace_id.to_owned()),
        (ROLE_LABEL.to_owned(), "kernel".to_owned()),
    ]);
    if let Some(owner) = owner {
        labels.insert(OWNER_LABEL.to_owned(), owner.to_owned());
    }
    let name = format!("hailer-kernel-{workspace_id}-{tag}");
    engine
        .docker()
        .create_container(
            Some(CreateContainerOptions {
                name: Some(name),
                ..Default::default()
            }),
            ContainerCreateBody {
                image: Some(base_image()),
                cmd: Some(vec!["true".to_owned()]),
                labels: Some(labels.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let mut network_labels = labels;
    network_labels.insert(ROLE_LABEL.to_owned(), "network".to_owned());
    engine
        .docker()
        .create_network(NetworkCreateRequest {
            name: format!("hailer-net-{workspace_id}-{tag}"),
            internal: Some(true),
            labels: Some(network_labels),
            ..Default::default()
        })
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leftovers_of_dead_owners_go_and_live_ones_stay() {
    let engine = engine().await;
    let (ours, theirs) = (Workspace::new(), Workspace::new());
    let (ours_id, theirs_id) = (ours.id(), theirs.id());
    plant(&engine, &ours_id, Some("dead000000000000"), "aaaaaa").await;
    plant(&engine, &ours_id, None, "bbbbbb").await;
    plant(&engine, &ours_id, Some("live000000000000"), "cccccc").await;
    plant(&engine, &theirs_id, Some("dead000000000000"), "dddddd").await;

    let alive = |owner: &str| owner == "live000000000000";
    let removal = cleanup_leftovers(&engine, &ours_id, alive).await.unwrap();
    assert!(removal.is_complete(), "{}", removal.summary());
    let mut removed = removal.removed.clone();
    removed.sort();
    assert_eq!(
        removed,
        [
            format!("hailer-kernel-{ours_id}-aaaaaa"),
            format!("hailer-kernel-{ours_id}-bbbbbb"),
            format!("hailer-net-{ours_id}-aaaaaa"),
            format!("hailer-net-{ours_id}-bbbbbb"),
        ]
    );
    let (containers, networks) = labelled_objects(&engine, &ours_id).await;
    assert_eq!(containers, [format!("hailer-kernel-{ours_id}-cccccc")]);
    assert_eq!(networks, [format!("hailer-net-{ours_id}-cccccc")]);
    assert_eq!(
        labelled_objects(&engine, &theirs_id).await.0.len(),
        1,
        "another workspace's objects stay"
    );
    let kernels = list_kernels(&engine, &ours_id).await.unwrap();
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0].owner.as_deref(), Some("live000000000000"));

    // `hailer kernel stop` removes the rest, whoever owns it.
    let removal = stop_workspace(&engine, &ours_id).await.unwrap();
    assert_eq!(removal.removed.len(), 2, "{}", removal.summary());
    assert!(labelled_objects(&engine, &ours_id).await.0.is_empty());
    let again = stop_workspace(&engine, &ours_id).await.unwrap();
    assert!(again.removed.is_empty() && again.is_complete());
    stop_workspace(&engine, &theirs_id).await.unwrap();
    assert!(labelled_objects(&engine, &theirs_id).await.0.is_empty());
}
