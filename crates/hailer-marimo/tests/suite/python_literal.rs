//! The string literals embedded in code-mode snippets, evaluated by a real Python.

use std::io::Write as _;
use std::process::{Command, Stdio};

use hailer_marimo::python_string_literal;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

#[test]
fn generated_literals_evaluate_back_to_the_same_text_in_python() {
    let strategy = (
        "[^\x00]{0,80}",
        r#"("""|'''|\\\\|\\|'|"|\r\n|\r|\t|é|€|😀|\u{2028}|\u{feff}|\x7f){0,8}"#,
    )
        .prop_map(|(a, b)| format!("{b}{a}{b}"));
    let mut runner = TestRunner::deterministic();
    let texts: Vec<String> = (0..400)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let literals: Vec<String> = texts
        .iter()
        .map(|t| python_string_literal(t).unwrap())
        .collect();

    let mut child = Command::new(crate::support::test_python())
        .args([
            "-c",
            "import ast, json, sys\n\
             print(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().splitlines()]))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for literal in &literals {
        assert!(!literal.contains('\n') && literal.is_ascii(), "{literal}");
        writeln!(stdin, "{literal}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let evaluated: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(evaluated.len(), texts.len());
    for (text, back) in texts.iter().zip(&evaluated) {
        assert_eq!(text, back);
    }
}
