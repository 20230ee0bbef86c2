//! Trust at every seam: a workspace's file that widens what the kernel reaches or where Hailer
//! reads needs trust like one that runs programs; trust recorded for one workspace never
//! covers a file linked into another; a program is trusted with where its links lead; every
//! value from the file reaches the terminal with visible escapes; and each setting is trusted
//! on its own.

use std::process::Output;

use hailer_tests::TestWorkspace;
use hailer_tests::output_text as text;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What the docker kernel sees: its data files, and whether a TCP connection to its default
/// gateway (this machine) gets an answer (a refusal is an answer).
const SEEN: &str = r"import socket, struct
routes = [line.split() for line in open('/proc/net/route').read().splitlines()[1:]]
gateways = [socket.inet_ntoa(struct.pack('<L', int(f[2], 16))) for f in routes if f[1] == '00000000']
reach = 'host blocked'
if gateways:
    sock = socket.socket()
    sock.settimeout(3)
    try:
        sock.connect((gateways[0], 9))
        reach = 'host reached'
    except ConnectionRefusedError:
        reach = 'host reached'
    except OSError:
        pass
print(sorted(f.name for f in data_files), reach)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_network_and_outside_data_folder_start_a_kernel_with_neither() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("payroll.csv"), "name,salary\nann,1\n").unwrap();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let toml = toml
        .replacen("# network = false", "network = true", 1)
        .replacen(
            "# data_dir = \"data\"",
            &format!("data_dir = \"{}\"", outside.path().display()),
            1,
        );
    assert!(toml.contains("\nnetwork = true"), "{toml}");
    assert!(toml.contains("\ndata_dir = "), "{toml}");
    workspace.write("hailer.toml", &toml);

    let show = workspace.hailer(&["trust", "--show"]);
    let said = text(&show);
    assert!(said.contains("not trusted"), "{said}");
    assert!(
        said.contains("[kernel] network lets notebook code reach the internet, this machine and your local network (not applied)"),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "[hailer] data_dir gives notebook code the files in {}, outside this workspace (not applied)",
            outside.path().canonicalize().unwrap().display()
        )),
        "{said}"
    );

    let seen = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", SEEN]));
    assert!(seen.status.success(), "{seen:?}");
    assert_eq!(
        stdout(&seen).trim(),
        "['sales.csv'] host blocked",
        "{}",
        text(&seen)
    );
    // The session says what it left out.
    assert!(
        text(&seen).contains("[kernel] network") && text(&seen).contains("[hailer] data_dir"),
        "{}",
        text(&seen)
    );

    // Once the user agreed, both apply.
    workspace.trust();
    let seen = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", SEEN]));
    assert!(seen.status.success(), "{seen:?}");
    assert_eq!(
        stdout(&seen).trim(),
        "['payroll.csv'] host reached",
        "{}",
        text(&seen)
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["kernel", "stop"]));
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn a_hailer_toml_linked_from_a_trusted_workspace_is_not_trusted_in_another() {
    // The first workspace's file chooses unsafe-local; `hailer init` trusted it as written.
    let first = TestWorkspace::unsafe_local();
    let show = first.hailer(&["trust", "--show"]);
    assert!(text(&show).contains(": trusted"), "{}", text(&show));

    // A second repository whose hailer.toml is a link to the first one's, opened by the same
    // user (the same Hailer home).
    let second = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        first.path().join("hailer.toml"),
        second.path().join("hailer.toml"),
    )
    .unwrap();
    let run_in_second = |args: &[&str]| {
        first
            .command(args)
            .current_dir(second.path())
            .output()
            .unwrap()
    };
    let show = run_in_second(&["trust", "--show"]);
    let said = text(&show);
    assert!(show.status.success(), "{said}");
    assert!(said.contains(": not trusted"), "{said}");
    assert!(
        said.contains("[kernel] runtime runs the agent's notebook code on this machine as you, outside the Docker sandbox (not applied)"),
        "{said}"
    );
    let check = run_in_second(&["config", "check"]);
    assert!(
        text(&check).contains("[kernel] runtime runs the agent's notebook code"),
        "{}",
        text(&check)
    );
    // The first workspace keeps its trust.
    let show = first.hailer(&["trust", "--show"]);
    assert!(text(&show).contains(": trusted"), "{}", text(&show));
}

#[test]
fn a_retargeted_program_link_asks_again_and_trust_asks_before_it_records() {
    let workspace = TestWorkspace::unsafe_local();
    let tools = tempfile::tempdir().unwrap();
    let good = tools.path().join("ruff-good");
    let other = tools.path().join("ruff-other");
    for path in [&good, &other] {
        std::fs::write(path, "#!/bin/sh\necho '[]'\n").unwrap();
    }
    std::fs::create_dir_all(workspace.path().join("tools")).unwrap();
    let link = workspace.path().join("tools/ruff");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replacen("\n[checks]\n", "\n[checks]\nruff = \"tools/ruff\"\n", 1),
    );

    // Without a terminal and without --yes, `hailer trust` lists, refuses and records nothing.
    let asked = workspace.hailer(&["trust"]);
    let said = text(&asked);
    assert_eq!(asked.status.code(), Some(1), "{said}");
    let listed = said
        .find("[checks] ruff runs tools/ruff on this machine (not applied)")
        .unwrap_or_else(|| panic!("{said}"));
    let refused = said
        .find("there is no terminal to ask in")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(listed < refused, "the list comes first: {said}");
    assert!(said.contains("hailer trust --yes"), "{said}");
    let show = workspace.hailer(&["trust", "--show"]);
    assert!(
        text(&show).contains("(not applied)"),
        "nothing was recorded: {}",
        text(&show)
    );

    workspace.trust();
    let show = workspace.hailer(&["trust", "--show"]);
    assert!(text(&show).contains(": trusted"), "{}", text(&show));

    // The link retargeted at another program with the same content (a `git pull` can): asked
    // again, and the runtime trusted with `hailer init` still applies.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&other, &link).unwrap();
    let show = workspace.hailer(&["trust", "--show"]);
    let said = text(&show);
    assert!(
        said.contains(
            "[checks] ruff runs tools/ruff on this machine (not applied: changed since you trusted it)"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "  [kernel] runtime runs the agent's notebook code on this machine as you, outside the Docker sandbox\n"
        ),
        "{said}"
    );
}

#[test]
fn control_sequences_from_hailer_toml_appear_escaped_in_trust_config_check_doctor_and_status() {
    let workspace = TestWorkspace::empty(Vec::new());
    let home = tempfile::tempdir().unwrap();
    workspace.write(
        "hailer.toml",
        &format!(
            "[model]\nname = \"gpt\\u001b]0;owned\\u0007-x\"\n\
             [hailer]\ndata_dir = \"{}/Docs\\u001b[2K\\r\\u202e\"\n\
             [model_providers.\"evil\\u001b[31m\"]\nbase_url = \"https://x.example/v1\"\nenv_key = \"K\"\n",
            home.path().display()
        ),
    );
    let raw = |said: &str| {
        said.chars()
            .any(|c| matches!(c, '\x1b' | '\x07' | '\r' | '\u{202e}' | '\u{9b}'))
    };
    // The provider id is refused by validation, and its refusal shows it escaped.
    let check = workspace.hailer(&["config", "check"]);
    let said = text(&check);
    assert!(!raw(&said), "{said:?}");
    assert!(
        said.contains("[model_providers.\"evil\\u{1b}[31m\"] is not a usable provider id"),
        "{said}"
    );
    let trust = workspace.hailer(&["trust", "--show"]);
    assert!(!raw(&text(&trust)), "{:?}", text(&trust));
    assert!(text(&trust).contains("\\u{1b}[31m"), "{}", text(&trust));

    // Without the bad provider the file loads; every value from it is escaped.
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let toml = &toml[..toml.find("[model_providers").unwrap()];
    workspace.write("hailer.toml", toml);
    for args in [
        &["trust", "--show"][..],
        &["trust"],
        &["config", "check"],
        &["doctor"],
        &["status"],
    ] {
        let output = workspace.hailer(args);
        let said = text(&output);
        assert!(!raw(&said), "{args:?}: {said:?}");
        let expected = if args[0] == "status" {
            "gpt\\u{1b}]0;owned\\u{7}-x"
        } else {
            "Docs\\u{1b}[2K\\u{d}\\u{202e}, outside this workspace"
        };
        assert!(said.contains(expected), "{args:?}: {said}");
    }
}

#[test]
fn adding_your_own_provider_keeps_the_runtime_hailer_init_wrote() {
    let workspace = TestWorkspace::unsafe_local();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &format!(
            "{toml}\n[model_providers.mine]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"MINE_KEY\"\n"
        ),
    );
    let show = workspace.hailer(&["trust", "--show"]);
    let said = text(&show);
    assert!(
        said.contains("  [kernel] runtime runs the agent's notebook code on this machine as you, outside the Docker sandbox\n"),
        "{said}"
    );
    assert!(
        said.contains("[model_providers.mine] sends your requests and the value of MINE_KEY to http://127.0.0.1:9/v1 (not applied)"),
        "{said}"
    );
    let status = workspace.hailer(&["status"]);
    assert!(
        stdout(&status).contains("Kernel:      unsafe-local"),
        "{}",
        text(&status)
    );
    let ran = workspace.hailer(&["exec", "-c", "import os; print(os.getcwd() != '/work')"]);
    // The kernel runs here, in the workspace, not in a container's /work.
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(stdout(&ran).trim(), "True", "{}", text(&ran));
    let _ = workspace.hailer(&["daemon", "stop"]);
}
