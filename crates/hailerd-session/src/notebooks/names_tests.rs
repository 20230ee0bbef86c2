#![allow(clippy::unwrap_used)]
use super::*;

const NOTEBOOK: &str = "import marimo\napp = marimo.App()\n";

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn slugs() {
    let cases = [
        ("Sales report (Q3)", Ok("sales_report_q3.py")),
        ("analysis", Ok("analysis.py")),
        ("analysis.py", Ok("analysis.py")),
        ("  Révenue — 2026 ", Ok("r_venue_2026.py")),
        ("2026 plan", Ok("nb_2026_plan.py")),
        ("a--b__c", Ok("a_b_c.py")),
        ("", Err(())),
        ("   ", Err(())),
        ("!!!", Err(())),
        ("../escape", Err(())),
        ("sub/name", Err(())),
        ("back\\slash", Err(())),
        (".py", Ok("py.py")),
        ("_.PY", Ok("py.py")),
        ("x..py", Err(())),
        ("a.b.c", Ok("a_b_c.py")),
        ("\u{212a}elvin", Ok("elvin.py")),
        ("\u{212a}", Err(())),
    ];
    for (input, expected) in cases {
        let got = slug_file_name(input).map_err(|_| ());
        assert_eq!(got.as_deref().ok(), expected.ok(), "{input:?}");
    }
    let long = "x".repeat(MAX_NAME_CHARS);
    assert_eq!(
        slug_file_name(&long).unwrap(),
        format!("{}.py", "x".repeat(80))
    );
    assert!(slug_file_name(&format!("{long}y")).is_err());
}

/// The name rule as the OpenAPI document states it: its pattern and lengths.
struct DocumentedRule {
    pattern: regex::Regex,
    min: usize,
    max: usize,
}

impl DocumentedRule {
    /// Read once: the document is generated anew at each call.
    fn read() -> &'static Self {
        static RULE: std::sync::OnceLock<DocumentedRule> = std::sync::OnceLock::new();
        RULE.get_or_init(Self::generate)
    }

    fn generate() -> Self {
        // The committed document, which the daemon's drift test keeps equal to the generated one.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let name = &document["components"]["schemas"]["CreateNotebookParams"]["properties"]["name"];
        let count = |key: &str| usize::try_from(name[key].as_u64().unwrap()).unwrap();
        Self {
            pattern: regex::Regex::new(name["pattern"].as_str().unwrap()).unwrap(),
            min: count("minLength"),
            max: count("maxLength"),
        }
    }

    fn accepts(&self, name: &str) -> bool {
        let chars = name.chars().count();
        (self.min..=self.max).contains(&chars) && self.pattern.is_match(name)
    }
}

#[test]
fn the_documented_name_rule_is_the_one_the_daemon_applies() {
    let rule = DocumentedRule::read();
    let names = [
        "",
        "a",
        "Z",
        "7",
        ".",
        "..",
        "...",
        ".a",
        "a.",
        ".a.",
        "a..b",
        "a.b",
        "a/b",
        "a\\b",
        "/",
        "\\",
        "../a",
        "a/..",
        "_",
        "-_-",
        " ",
        " a ",
        ".py",
        "a.py",
        "..py",
        "x..py",
        "a. .b",
        "\u{212a}",
        "\u{130}",
        "\u{0}a",
        "a\n",
        "\n",
        "é",
        "éa",
        "Sales report (Q3)",
    ];
    for name in names {
        assert_eq!(
            rule.accepts(name),
            slug_file_name(name).is_ok(),
            "{name:?}: the document and the daemon disagree"
        );
    }
    for length in [199, 200, 201] {
        let name = "a.".repeat(length / 2) + &"b".repeat(length % 2);
        assert_eq!(
            rule.accepts(&name),
            slug_file_name(&name).is_ok(),
            "{length}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn the_document_and_the_daemon_agree_on_any_name(
        name in "[a./\\\\ _\u{212a}\u{0}-]{0,12}|.{0,12}|[ab.]{195,205}"
    ) {
        let rule = DocumentedRule::read();
        proptest::prop_assert_eq!(rule.accepts(&name), slug_file_name(&name).is_ok(), "{:?}", name);
    }
}

#[test]
fn resolves_by_path_name_and_case() {
    let dir = workspace(&[
        ("analysis.py", NOTEBOOK),
        ("Sales.py", NOTEBOOK),
        ("deep/q3.py", NOTEBOOK),
        ("deep/analysis.py", NOTEBOOK),
        ("helper.py", "print('not a notebook')\n"),
        (".hidden/secret.py", NOTEBOOK),
        ("__pycache__/x.py", NOTEBOOK),
    ]);
    let root = dir.path();
    let name = |reference: &str| resolve(root, reference).map(|nb| nb.name);
    assert_eq!(name("analysis").unwrap(), "analysis.py");
    assert_eq!(name("analysis.py").unwrap(), "analysis.py");
    assert_eq!(name("sales").unwrap(), "Sales.py");
    assert_eq!(name("SALES.PY").unwrap(), "Sales.py");
    assert_eq!(name("q3").unwrap(), "deep/q3.py");
    assert_eq!(name("deep/analysis").unwrap(), "deep/analysis.py");
    let absolute = root.join("deep/q3.py");
    assert_eq!(name(absolute.to_str().unwrap()).unwrap(), "deep/q3.py");

    assert!(matches!(
        resolve(root, "../outside"),
        Err(NotebookError::Escapes(_))
    ));
    assert!(matches!(
        resolve(root, "deep/../../x"),
        Err(NotebookError::Escapes(_))
    ));
    assert!(matches!(
        resolve(root, "/etc/passwd"),
        Err(NotebookError::Escapes(_))
    ));
    assert!(matches!(
        resolve(root, "helper.py"),
        Err(NotebookError::NotANotebook(_))
    ));
    assert!(matches!(
        resolve(root, "secret"),
        Err(NotebookError::NotFound { .. })
    ));
    match resolve(root, "missing") {
        Err(NotebookError::NotFound { candidates, .. }) => {
            assert_eq!(
                candidates,
                ["Sales.py", "analysis.py", "deep/analysis.py", "deep/q3.py"]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn ambiguity_is_named() {
    let dir = workspace(&[("a/report.py", NOTEBOOK), ("b/report.py", NOTEBOOK)]);
    match resolve(dir.path(), "report") {
        Err(error @ NotebookError::Ambiguous { .. }) => {
            let text = error.to_string();
            assert!(
                text.contains("a/report.py") && text.contains("b/report.py"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn listing_skips_non_notebooks_hidden_and_deep_folders() {
    let dir = workspace(&[
        ("one.py", NOTEBOOK),
        ("notes.txt", NOTEBOOK),
        ("a/b/c/d/four.py", NOTEBOOK),
        ("a/b/c/d/e/five.py", NOTEBOOK),
    ]);
    let names: Vec<String> = list(dir.path()).into_iter().map(|nb| nb.name).collect();
    assert_eq!(names, ["a/b/c/d/four.py", "one.py"]);
}
