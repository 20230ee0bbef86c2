//! The terminal chat, driven through tmux as a person would: the startup panel, answers
//! streaming in, Ctrl+C, a message typed during startup, slash commands, a new conversation and a
//! model switch, two terminals on one session, and plain mode through a pipe. Real hailerd, real unsafe-local kernel, scripted model.

use std::io::Write;
use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::{TestWorkspace, TmuxPane};

const SHORT: Duration = Duration::from_secs(20);
/// The first kernel start of a session, with a marimo that is already installed.
const KERNEL: Duration = Duration::from_secs(120);

fn workspace(model: &ScriptedModel) -> TestWorkspace {
    TestWorkspace::scripted(&model.base_url())
}

fn chat(workspace: &TestWorkspace) -> TmuxPane {
    TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]))
}

/// Lines of the answer, streamed one delta every `delay`.
fn slow_answer(lines: usize, delay: Duration) -> Reply {
    let text: Vec<String> = (1..=lines)
        .map(|n| format!("Line {n} of the answer."))
        .collect();
    Reply::text(text.join("\n"))
        .in_deltas(lines * 2)
        .delta_delay(delay)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_then_an_answer_that_streams_line_by_line() {
    let script = Script::new().reply(slow_answer(6, Duration::from_millis(300)));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        let screen = pane.wait_for("Web access:", SHORT);
        let canonical = workspace.canonical().display().to_string();
        for expected in [
            "Model:      gpt-5.5".to_owned(),
            format!(
                "Provider:   scripted ({}, chat completions)",
                model.base_url()
            ),
            "Notebook:   analysis.py".to_owned(),
            "Notebooks:  notebooks".to_owned(),
            format!("Workspace:  {canonical}"),
            "Kernel:     unsafe-local (runs as you; not isolated)".to_owned(),
            "Web access: none".to_owned(),
        ] {
            assert!(
                screen.contains(&expected),
                "{expected:?} missing:\n{screen}"
            );
        }

        pane.type_line("Tell me about the data");
        // The first lines show while the answer is still streaming.
        let early = pane.wait_for("Line 2 of the answer.", SHORT);
        assert!(
            !early.contains("tokens:"),
            "the turn had already ended:\n{early}"
        );
        assert!(!early.contains("Line 6 of the answer."), "{early}");
        let done = pane.wait_for("tokens: 100 in / 20 out", SHORT);
        assert!(done.contains("Line 6 of the answer."), "{done}");

        // Ctrl+D on an empty line leaves, saying the session lingers.
        pane.keys(&["C-d"]);
        assert_eq!(pane.exit_status(SHORT), 0);
        let end = pane.screen();
        assert!(
            end.contains("Bye. The session keeps running in hailerd"),
            "{end}"
        );
        assert!(end.contains("300 s"), "{end}");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_local_is_in_a_warning_colour_unless_no_color_is_set() {
    let model = ScriptedModel::start(Script::new()).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        pane.wait_for("Web access:", SHORT);
        let coloured = pane.screen_with_colours();
        assert!(
            coloured.contains("\x1b[33munsafe-local (runs as you; not isolated)"),
            "{coloured:?}"
        );
        drop(pane);

        let mut command = workspace.command(&["notebook", "--no-browser"]);
        command.env("NO_COLOR", "1");
        let pane = TmuxPane::spawn(&command);
        pane.wait_for("Web access:", SHORT);
        let plain = pane.screen_with_colours();
        assert!(!plain.contains("\x1b[3"), "{plain:?}");
        assert!(
            plain.contains("unsafe-local (runs as you; not isolated)"),
            "{plain:?}"
        );
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_the_running_turn_and_the_next_turn_works() {
    let script = Script::new()
        .reply(slow_answer(30, Duration::from_millis(250)))
        .reply(Reply::text("The second answer."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        pane.wait_for("Web access:", SHORT);
        pane.type_line("A long question");
        pane.wait_for("Line 1 of the answer.", SHORT);
        pane.keys(&["C-c"]);
        let screen = pane.wait_for("Interrupted.", SHORT);
        assert!(!screen.contains("Line 30 of the answer."), "{screen}");
        assert!(
            pane.pid().is_some(),
            "Ctrl+C during a turn must not end the chat"
        );

        pane.type_line("Another question");
        pane.wait_for("The second answer.", SHORT);

        // Ctrl+C when idle leaves.
        pane.keys(&["C-c"]);
        assert_eq!(pane.exit_status(SHORT), 0);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_during_startup_is_sent_exactly_once() {
    let script = Script::new().reply(Reply::text("The early answer."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    // A daemon that takes three seconds to start, so the message is surely typed before the
    // session is ready, however loaded the machine.
    let slow = tempfile::tempdir().unwrap();
    let wrapper = slow.path().join("hailerd");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nsleep 3\nexec '{}' \"$@\"\n",
            hailer_tests::bins::path("hailerd").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    tokio::task::block_in_place(|| {
        let mut command = workspace.command(&["notebook", "--no-browser"]);
        command.env("HAILER_DAEMON_BIN", &wrapper);
        let pane = TmuxPane::spawn(&command);
        // The prompt is up before the daemon has even started.
        pane.wait_for("you can type already", SHORT);
        pane.type_line("An early question");
        let screen = pane.wait_for("The early answer.", SHORT);
        assert!(
            screen.contains("goes out as soon as the session is ready"),
            "the message was not held back:\n{screen}"
        );
        let screen = pane.wait_for("tokens:", SHORT);
        assert_eq!(screen.matches("The early answer.").count(), 1, "{screen}");
    });
    let requests = model.requests();
    assert_eq!(requests.len(), 1, "one model request");
    let body = serde_json::to_string(&requests[0].body).unwrap();
    assert_eq!(body.matches("An early question").count(), 1, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_answer_in_the_chat() {
    let model = ScriptedModel::start(Script::new()).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        pane.wait_for("Type /help for commands.", SHORT);

        pane.type_line("/help");
        let screen = pane.wait_for("Anything else is sent to the conversation.", SHORT);
        for command in [
            "/status",
            "/notebook",
            "/exec <code>",
            "/context",
            "/exit, /quit",
        ] {
            assert!(screen.contains(command), "{command} missing:\n{screen}");
        }

        pane.type_line("/frobnicate now");
        pane.wait_for("Unknown command /frobnicate; type /help", SHORT);

        pane.type_line("/exec print(6*7)");
        pane.wait_until("42 from the kernel", KERNEL, |screen| {
            screen.lines().any(|line| line.trim() == "42")
        });

        pane.type_line("/notebook list");
        pane.wait_until("the notebook list", SHORT, |screen| {
            screen
                .lines()
                .any(|line| line.contains("analysis.py") && line.contains("active"))
        });

        pane.type_line("/model");
        let screen = pane.wait_for("Usage: /model [provider:]name", SHORT);
        assert!(
            screen.contains("Model: gpt-5.5, provider scripted ("),
            "{screen}"
        );

        pane.type_line("/status");
        let screen = pane.wait_for("Turns:", SHORT);
        assert!(
            screen.contains("Credentials: SCRIPTED_KEY from the environment"),
            "{screen}"
        );
        assert!(screen.contains("(idle)"), "{screen}");

        pane.type_line("/context");
        pane.wait_for("Context files (", SHORT);

        pane.type_line("/quit");
        assert_eq!(pane.exit_status(SHORT), 0);
        assert!(pane.screen().contains("Bye."));
    });
    assert!(
        model.requests().is_empty(),
        "slash commands never reach the model"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alt_enter_and_a_paste_make_one_message_of_several_lines() {
    let script = Script::new()
        .reply(Reply::text("Got the typed lines."))
        .reply(Reply::text("Got the pasted lines."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        pane.wait_for("Type /help for commands.", SHORT);
        pane.keys(&["-l", "typed one"]);
        pane.keys(&["M-Enter"]);
        pane.type_line("typed two");
        pane.wait_for("Got the typed lines.", SHORT);
        pane.wait_for("tokens:", SHORT);

        pane.paste("pasted one\npasted two\npasted three");
        pane.keys(&["Enter"]);
        pane.wait_for("Got the pasted lines.", SHORT);
    });
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "each message went out once, whole");
    let first = serde_json::to_string(&requests[0].body).unwrap();
    assert!(first.contains("typed one\\ntyped two"), "{first}");
    let second = serde_json::to_string(&requests[1].body).unwrap();
    assert!(
        second.contains("pasted one\\npasted two\\npasted three"),
        "{second}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_terminals_in_one_workspace_see_the_same_turn() {
    let script = Script::new().reply(
        Reply::text("The shared answer.\nSeen by both.")
            .in_deltas(4)
            .delta_delay(Duration::from_millis(100)),
    );
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let first = chat(&workspace);
        first.wait_for("Web access:", SHORT);
        let second = chat(&workspace);
        second.wait_for("Attached to the session already running in hailerd", SHORT);

        first.type_line("A shared question");
        let seen = second.wait_for("Seen by both.", SHORT);
        assert!(seen.contains("terminal > A shared question"), "{seen}");
        second.wait_for("tokens: 100 in / 20 out", SHORT);
        first.wait_for("tokens: 100 in / 20 out", SHORT);
        let own = first.screen();
        assert!(
            !own.contains("terminal > A shared question"),
            "a terminal does not repeat its own question:\n{own}"
        );
    });
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_mode_reads_a_pipe_and_prints_plain_text() {
    let script = Script::new().reply(Reply::text("A **plain** answer.").in_deltas(3));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    let output = tokio::task::block_in_place(|| {
        let mut child = workspace
            .command(&["notebook", "--plain"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"A piped question\n/status\n").unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    });
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        !stdout.contains('\x1b'),
        "no escape sequences in plain mode:\n{stdout}"
    );
    let question = stdout.find("You > A piped question").expect(&stdout);
    let answer = stdout.find("Hailer >\nA **plain** answer.").expect(&stdout);
    let status = stdout.find("You > /status").expect(&stdout);
    assert!(question < answer && answer < status, "{stdout}");
    assert!(
        stdout.contains("Turns:       1 seen by this terminal"),
        "{stdout}"
    );
    assert!(stdout.contains("Bye."), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_and_saved_prompts_are_sent_as_turns() {
    let script = Script::new()
        .reply(Reply::text("Looked at the sales file."))
        .reply(Reply::text("Checked the data quality."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        // Slash commands that need the session wait for it (unlike messages, they are not queued).
        pane.wait_for("The kernel is ready.", KERNEL);

        pane.type_line("/prompt first-look sales.csv");
        pane.wait_for("Looked at the sales file.", KERNEL);

        pane.type_line("/skill nonesuch please");
        pane.wait_for("data-quality-check", SHORT);
        // The refused command stays in the draft to be fixed; clear it.
        pane.keys(&["C-u"]);

        pane.type_line("/skill Data-Quality-Check for the sales file");
        pane.wait_until("the second turn's end", SHORT, |screen| {
            screen.contains("Checked the data quality.")
                && screen.matches("tokens: 100 in / 20 out").count() == 2
        });

        pane.type_line("/quit");
        assert_eq!(pane.exit_status(SHORT), 0);
    });
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        2,
        "the unknown skill never reached the model"
    );
    let first = requests[0].body.to_string();
    assert!(
        first.contains("Take a first look at these files in the data folder: sales.csv"),
        "{first}"
    );
    let second = requests[1].body.to_string();
    assert!(second.contains("# Data quality check"), "{second}");
    assert!(second.contains("for the sales file"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_and_model_start_fresh_conversations_and_other_clients_see_it() {
    let script = Script::new()
        .reply(Reply::text("The first answer."))
        .reply(Reply::text("The answer of the other model."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace(&model);
    let turns_line = |n: u64| format!("Turns:       {n} seen by this terminal");
    let pane = tokio::task::block_in_place(|| {
        let pane = chat(&workspace);
        pane.wait_for("Type /help for commands.", SHORT);
        pane.type_line("The first question");
        pane.wait_for("tokens: 100 in / 20 out", SHORT);
        pane.type_line("/status");
        pane.wait_for(&turns_line(1), SHORT);

        pane.type_line("/new");
        pane.wait_for("Started a fresh conversation", SHORT);
        pane.type_line("/status");
        pane.wait_for(&turns_line(0), SHORT);

        pane.type_line("/model");
        let screen = pane.wait_for("Usage: /model [provider:]name", SHORT);
        assert!(screen.contains("Providers: openai, scripted"), "{screen}");

        pane.type_line("/model nowhere:some-model");
        let screen = pane.wait_for("no provider 'nowhere' is declared", SHORT);
        assert!(screen.contains("declared: openai, scripted"), "{screen}");
        // The refused command stays in the draft to be fixed; clear it.
        pane.keys(&["C-u"]);

        pane.type_line("/model scripted:other-model");
        pane.wait_for("Now using scripted:other-model", SHORT);
        pane.type_line("/status");
        pane.wait_until("the switched model in /status", SHORT, |screen| {
            screen.contains("Model:       other-model")
        });

        pane.type_line("A question for the other model");
        pane.wait_for("The answer of the other model.", SHORT);
        pane.wait_until("the second turn's end", SHORT, |screen| {
            screen.matches("tokens: 100 in / 20 out").count() == 2
        });
        pane.type_line("/status");
        pane.wait_until("one turn of the new conversation", SHORT, |screen| {
            screen.matches(&turns_line(1)).count() == 2
        });
        pane
    });

    // Another client starts a new conversation: the terminal says so and its counters reset.
    let sessions = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let (client, base, token) = workspace.api();
    let response = client
        .post(format!("{base}/v1/sessions/{id}/conversation"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"model": null, "client": "browser"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    tokio::task::block_in_place(|| {
        pane.wait_for("browser started a new conversation", SHORT);
        pane.type_line("/status");
        // Zero after /new, after the switch, and now.
        pane.wait_until("the counters reset again", SHORT, |screen| {
            screen.matches(&turns_line(0)).count() == 3
        });
        pane.type_line("/quit");
        assert_eq!(pane.exit_status(SHORT), 0);
    });

    let requests = model.requests();
    assert_eq!(requests.len(), 2, "slash commands never reach the model");
    assert_eq!(requests[0].body["model"], "gpt-5.5");
    assert_eq!(requests[1].body["model"], "other-model");
    let sent = requests[1].body.to_string();
    assert!(!sent.contains("The first question"), "{sent}");
}
