//! The terminal chat after its connection to hailerd drops: it says so, follows the session
//! again from the last event it saw (`?after=`), and shows what happened meanwhile once, not
//! twice and not never. The drop is real: a relay between the terminal and hailerd cuts every
//! connection and refuses new ones while another client's turn runs.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::live::LiveSession;
use hailer_tests::relay::Relay;
use hailer_tests::{TestWorkspace, TmuxPane};

const SHORT: Duration = Duration::from_secs(30);

/// Points this home's clients at `port` instead of hailerd's own, as the runtime file says.
fn point_clients_at(workspace: &TestWorkspace, port: u16) {
    let path = workspace.home.path().join("run").join("hailerd.json");
    let mut runtime: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    runtime["port"] = port.into();
    std::fs::write(&path, serde_json::to_vec(&runtime).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_followed_again_and_nothing_is_lost_or_repeated() {
    let script = Script::new()
        .reply(Reply::text("Before the drop: the first answer."))
        .reply(Reply::text("While away: the second answer.").in_deltas(3))
        .reply(Reply::text("After the return: the third answer."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    // Another client (the API) holds the session and asks; the terminal only follows.
    let mut live = LiveSession::start(&workspace).await;
    let relay = Relay::start(workspace.runtime().port).await;
    point_clients_at(&workspace, relay.port);

    let pane = tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Attached to the session already running in hailerd", SHORT);
        pane
    });
    live.ask("The first question").await;
    live.until("turnFinished").await;
    tokio::task::block_in_place(|| {
        pane.wait_for("Before the drop: the first answer.", SHORT);
    });

    relay.cut();
    tokio::task::block_in_place(|| {
        pane.wait_for("The connection to hailerd dropped; reconnecting", SHORT);
    });
    // The whole second turn happens while the terminal cannot reach hailerd.
    live.ask("The second question").await;
    live.until("turnFinished").await;
    let away = pane.screen();
    assert!(
        !away.contains("While away: the second answer."),
        "the terminal was not cut off:\n{away}"
    );

    relay.reopen();
    let screen = tokio::task::block_in_place(|| {
        pane.wait_until(
            "the second answer after the reconnection",
            SHORT,
            |screen| {
                screen.contains("Reconnected") && screen.contains("While away: the second answer.")
            },
        )
    });
    assert_eq!(
        screen.matches("Before the drop: the first answer.").count(),
        1,
        "an event seen before the drop is shown again:\n{screen}"
    );
    assert_eq!(
        screen.matches("While away: the second answer.").count(),
        1,
        "{screen}"
    );
    assert!(screen.contains("The second question"), "{screen}");
    let reconnected = screen.find("Reconnected").unwrap();
    let answer = screen.find("While away: the second answer.").unwrap();
    assert!(reconnected < answer, "{screen}");
    // The chat works again: a question typed now is answered.
    tokio::task::block_in_place(|| {
        pane.type_line("The third question");
        pane.wait_for("After the return: the third answer.", SHORT);
    });
    assert_eq!(model.requests().len(), 3);
}
