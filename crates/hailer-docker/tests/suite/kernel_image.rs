//! The kernel image against the real engine: its contract label, pip files kept to the build
//! stage, and the errors a user sees for a missing, foreign or unreachable image.

use crate::common::{PIP_MARKER, base_image, engine, kernel_image};
use hailer_docker::{CONTRACT_LABEL, Error};
use hailer_docker::{ensure_image, image_contract, pull};
use hailer_kernel_bundle as bundle;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_image_carries_the_contract_and_no_pip_files() {
    let engine = engine().await;
    let image = kernel_image(&engine).await;
    let contract = bundle::contract();
    assert_eq!(
        image_contract(&engine, &image).await.unwrap().as_deref(),
        Some(contract.as_str())
    );
    let inspect = engine.docker().inspect_image(&image).await.unwrap();
    let config = inspect.config.clone().unwrap();
    assert_eq!(config.user.as_deref(), Some("1000:1000"));
    assert_eq!(config.working_dir.as_deref(), Some("/work"));
    assert_eq!(config.labels.unwrap()[CONTRACT_LABEL], contract);
    let text = serde_json::to_string(&inspect).unwrap();
    assert!(
        !text.contains(PIP_MARKER),
        "pip settings reached the image's configuration"
    );
    assert!(
        !text.contains("/build/pip"),
        "the image's configuration points at the pip files"
    );
    let history = engine.docker().image_history(&image).await.unwrap();
    assert!(history.len() > 3);
    for layer in &history {
        assert!(
            !layer.created_by.contains(PIP_MARKER),
            "{}",
            layer.created_by
        );
        assert!(
            !layer.created_by.contains("COPY dir:") || !layer.created_by.contains("/build/pip"),
            "a layer of the final image copies the pip folder: {}",
            layer.created_by
        );
    }
    // The final image is the base plus the copied environment and its set-up, nothing else.
    assert!(
        history
            .iter()
            .all(|layer| !layer.created_by.contains("/build/")),
        "the final image has a build-stage step: {:#?}",
        history.iter().map(|l| &l.created_by).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_missing_image_names_pull_and_build() {
    let engine = engine().await;
    let error = ensure_image(&engine, "hailer-kernel:no-such-contract", "marimo0.24.2-x")
        .await
        .unwrap_err();
    assert!(matches!(error, Error::ImageMissing { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("hailer kernel pull") && text.contains("hailer kernel build"),
        "{text}"
    );
}

#[tokio::test]
async fn an_image_of_another_contract_is_refused_with_both_contracts() {
    let engine = engine().await;
    let error = ensure_image(&engine, &base_image(), "marimo0.24.2-0123456789ab")
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, Error::ContractMismatch { .. }), "{text}");
    assert!(text.contains("(no contract label)"), "{text}");
    assert!(text.contains("marimo0.24.2-0123456789ab"), "{text}");
}

#[tokio::test]
async fn a_download_from_an_unreachable_registry_fails_with_what_docker_said() {
    let engine = engine().await;
    let lines = std::sync::Mutex::new(Vec::new());
    let progress = |report: hailer_marimo::Report<'_>| {
        if let Some(line) = report.text() {
            lines.lock().unwrap().push(line.to_owned());
        }
    };
    let error = pull(&engine, "127.0.0.1:9/hailer/kernel:none", "c", &progress)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, Error::PullFailed { .. } | Error::NotPublished { .. }),
        "{text}"
    );
    assert!(text.contains("127.0.0.1:9/hailer/kernel:none"), "{text}");
    assert!(text.contains("docker said:"), "{text}");
    assert_eq!(
        lines.lock().unwrap()[0],
        "Downloading 127.0.0.1:9/hailer/kernel:none"
    );
}
