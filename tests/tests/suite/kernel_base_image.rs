//! The kernel image on a user's machine: built from the official Python image by default, with
//! the base recorded in its labels, and the pull and build commands named wherever the image is
//! missing.

use std::process::Command;

use hailer_tests::TestWorkspace;

use hailer_tests::output_text as text;

fn docker(args: &[&str]) -> String {
    let output = Command::new("docker")
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run docker: {error}"));
    assert!(
        output.status.success(),
        "docker {args:?}: {}",
        text(&output)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_whose_base_image_cannot_be_had_says_every_way_on_and_leaves_nothing() {
    let default_base = hailer_kernel_bundle::DEFAULT_BASE_IMAGE;
    let absent = Command::new("docker")
        .args(["image", "inspect", default_base])
        .output()
        .unwrap();
    assert!(
        !absent.status.success(),
        "{default_base} is here, so this engine's registry access is not what this test needs"
    );
    let workspace = TestWorkspace::docker();
    let tag = format!("hailer-kernel:no-base-{}", std::process::id());
    let built = tokio::task::block_in_place(|| {
        workspace
            .command(&["kernel", "build", "--tag", &tag])
            .env_remove("HAILER_KERNEL_BASE_IMAGE")
            .output()
            .unwrap()
    });
    let said = text(&built);
    assert_eq!(built.status.code(), Some(1), "{said}");
    for expected in [
        format!("cannot get the base image {default_base}"),
        "docker said:".to_owned(),
        "--base-image".to_owned(),
        "docker import".to_owned(),
        "--wheelhouse".to_owned(),
        "kernel-image/README.md".to_owned(),
    ] {
        assert!(said.contains(&expected), "missing {expected:?} in:\n{said}");
    }
    // What the engine said: this machine reaches no registry.
    let reason = said
        .split("docker said:")
        .nth(1)
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        [
            "no such host",
            "lookup",
            "dial tcp",
            "timeout",
            "connection refused"
        ]
        .iter()
        .any(|needle| reason.contains(needle)),
        "{said}"
    );
    assert_eq!(said.matches("--base-image").count(), 1, "said once: {said}");
    // Nothing half-built: no image under the tag, no container of the base (a build step's),
    // and no base image either. (Other tests build and run images meanwhile, so the check is
    // about what this build could have made.)
    let tagged = Command::new("docker")
        .args(["image", "inspect", &tag])
        .output()
        .unwrap();
    assert!(!tagged.status.success(), "{tag} exists");
    assert_eq!(
        docker(&[
            "ps",
            "--all",
            "--quiet",
            "--filter",
            &format!("ancestor={default_base}")
        ]),
        "",
        "no container may be left"
    );
    assert!(
        !Command::new("docker")
            .args(["image", "inspect", default_base])
            .output()
            .unwrap()
            .status
            .success()
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_image_records_its_base_and_status_and_doctor_show_it() {
    let image = hailer_tests::docker_image::kernel_image().await;
    let base = hailer_tests::prereqs::base_image();
    let base_id = docker(&["image", "inspect", "--format", "{{.Id}}", &base]);
    let labels = docker(&[
        "image",
        "inspect",
        "--format",
        "{{index .Config.Labels \"org.hailer.base-image\"}} {{index .Config.Labels \"org.hailer.base-image-digest\"}}",
        &image,
    ]);
    assert_eq!(labels.trim(), format!("{base} {}", base_id.trim()));

    let workspace = TestWorkspace::docker();
    let short = base_id.trim().get(..19).unwrap_or_default().to_owned();
    let status = tokio::task::block_in_place(|| workspace.hailer(&["status"]));
    let said = text(&status);
    assert!(status.status.success(), "{said}");
    let image_line = said
        .lines()
        .find(|line| line.starts_with("Image:"))
        .unwrap_or_else(|| panic!("no Image: line in\n{said}"));
    assert!(image_line.contains(&image), "{image_line}");
    assert!(
        image_line.contains(&format!("built from {base} ({short}")),
        "{image_line}"
    );
    let doctor = tokio::task::block_in_place(|| workspace.hailer(&["doctor"]));
    let said = text(&doctor);
    let row = said
        .lines()
        .find(|line| line.contains("image") && line.contains(&image))
        .unwrap_or_else(|| panic!("no image row in\n{said}"));
    assert!(
        row.contains(&format!("built from {base} ({short}")),
        "{row}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_and_doctor_name_the_pull_and_build_commands_when_the_image_is_missing() {
    let workspace = TestWorkspace::empty(Vec::new());
    let missing = format!("hailer-kernel:missing-{}", std::process::id());
    workspace.write(
        "hailer.toml",
        &format!("[kernel]\nruntime = \"docker\"\nimage = \"{missing}\"\n"),
    );
    // An image the workspace's file names is the user's to agree to.
    workspace.trust();
    let init = tokio::task::block_in_place(|| workspace.hailer(&["init"]));
    let said = text(&init);
    assert!(init.status.success(), "{said}");
    assert!(said.contains("kept    hailer.toml"), "{said}");
    let pull = said
        .find("hailer kernel pull")
        .unwrap_or_else(|| panic!("{said}"));
    let build = said
        .find("hailer kernel build")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(pull < build, "pull first, build as the other way: {said}");
    assert!(said.contains(&missing), "{said}");

    let doctor = tokio::task::block_in_place(|| workspace.hailer(&["doctor"]));
    let said = text(&doctor);
    let at = said
        .find(&format!("{missing} is not on this machine"))
        .unwrap_or_else(|| panic!("{said}"));
    let rest = &said[at..];
    let pull = rest
        .find("hailer kernel pull")
        .unwrap_or_else(|| panic!("{said}"));
    let build = rest
        .find("hailer kernel build")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(pull < build, "{said}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[test]
fn kernel_contract_names_the_published_image_and_the_default_base() {
    let workspace = TestWorkspace::empty(Vec::new());
    let printed = workspace
        .command(&["kernel", "contract", "--json"])
        .env_remove("HAILER_KERNEL_IMAGE")
        .env_remove("HAILER_KERNEL_BASE_IMAGE")
        .output()
        .unwrap();
    assert!(printed.status.success(), "{}", text(&printed));
    let value: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    let contract = hailer_kernel_bundle::contract();
    assert_eq!(value["contract"], contract.as_str());
    assert_eq!(
        value["publishedImage"],
        format!("{}:{contract}", hailer_kernel_bundle::PUBLISHED_REPOSITORY).as_str()
    );
    assert_eq!(value["image"], value["publishedImage"]);
    assert_eq!(
        value["defaultBaseImage"],
        hailer_kernel_bundle::DEFAULT_BASE_IMAGE
    );
    let overridden = workspace
        .command(&["kernel", "contract", "--json"])
        .env(
            "HAILER_KERNEL_BASE_IMAGE",
            "registry.example/python:3.13-slim",
        )
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&overridden.stdout).unwrap();
    assert_eq!(value["baseImage"], "registry.example/python:3.13-slim");
}
