//! What the terminal chat shows of a turn, through tmux at 120 columns: the tool call as the
//! Python it runs, folded, with the start of its result from the real kernel; the answer's
//! Markdown table laid out to the width; and overwrite tricks from the model and the kernel
//! left visible instead of obeyed. Real hailerd, real unsafe-local kernel, scripted model.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::{TestWorkspace, TmuxPane};
use serde_json::json;

const SHORT: Duration = Duration::from_secs(20);
/// The first kernel start of a session, with a marimo that is already installed.
const KERNEL: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_shows_its_code_folded_its_result_and_a_table_fitted_to_the_width() {
    let mut code = String::from("import polars as pl\n");
    for n in 1..=18 {
        code.push_str(&format!("x{n} = {n}\n"));
    }
    code.push_str(
        "print('harmless\\rKERNEL')\npl.DataFrame({'city': ['Oslo', 'Bergen'], 'n': [3, 12]})\n",
    );
    let note = "a note far too long for its column, which goes on and on about the weather in \
                the west of the country and the rain that never seems to stop falling there";
    let answer = format!(
        "Two cities:\n\n| City | Note |\n|------|------|\n| Oslo | {note} |\n| Bergen | short |\n\n\
         Model said: calm\rMODEL and safe\x08\x08\x08\x08WORD.\n"
    );
    let script = Script::new()
        .tool_call("marimo_execute", json!({ "code": code }))
        .reply(Reply::text(answer));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Web access:", SHORT);
        pane.type_line("Show me the cities");
        let screen = pane.wait_for("tokens:", KERNEL);

        // The call, as its code: the head, a fold, the tail.
        for expected in [
            "· marimo_execute",
            "  │ import polars as pl",
            "  │ x5 = 5",
            "  │ … 12 more lines …",
            "  │ x18 = 18",
            "ok marimo_execute",
        ] {
            assert!(screen.contains(expected), "{expected:?} missing:\n{screen}");
        }
        assert!(!screen.contains("  │ x6 = 6"), "{screen}");
        // Its result from the kernel: printed text, overwrite left visible, and the frame as a
        // text table.
        assert!(screen.contains("harmlessKERNEL"), "{screen}");
        assert!(screen.contains("    city     n"), "{screen}");

        // The table fits 120 columns, the long note cut with an ellipsis.
        let header = screen
            .lines()
            .find(|line| line.starts_with("City"))
            .unwrap_or_else(|| panic!("no table header:\n{screen}"));
        assert!(header.contains(" │ Note"), "{header}");
        let oslo = screen
            .lines()
            .find(|line| line.starts_with("Oslo "))
            .unwrap_or_else(|| panic!("no Oslo row:\n{screen}"));
        assert!(oslo.ends_with('…'), "{oslo:?}");
        assert!(oslo.chars().count() <= 120, "{oslo:?}");
        assert!(!screen.contains("| Oslo |"), "{screen}");

        // The model's overwrite tricks are shown, not obeyed.
        assert!(screen.contains("calmMODEL and safeWORD."), "{screen}");

        pane.keys(&["C-d"]);
        assert_eq!(pane.exit_status(SHORT), 0);
    });
}
