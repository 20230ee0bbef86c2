#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;

use super::*;

const REPORT: &str = "sales: 360 rows, 2025-01-01 to 2025-03-31
region North: revenue 40123.50, 120 sales
region East: revenue 30000.00, 90 sales
region South: revenue 29000.25, 88 sales
region West: revenue 21000.00, 62 sales
month 2025-01: 117 orders, revenue 6321.00, average 54.03, 0 with a channel
month 2025-02: 130 orders, revenue 7400.10, average 56.92, 0 with a channel
month 2025-03: 140 orders, revenue 8800.00, average 62.86, 140 with a channel
target North: 109.0% of 36800 (Ana Lindqvist)
target East: 102.0% of 29400 (Priya Raman)
target West: 95.0% of 22100 (Tom Okafor)
target South: 91.0% of 31900 (Marco Bellini)
chart: Chart";

#[test]
fn the_tour_walks_its_steps_then_answers_from_the_results() {
    assert!(matches!(
        next_move(QUESTION, &[]),
        Move::Call { step: 0, .. }
    ));
    let mut results = vec!["ok"; STEPS.len() - 1];
    assert!(matches!(
        next_move(QUESTION, &results),
        Move::Call { step: 6, .. }
    ));
    results.push(REPORT);
    let Move::Answer(text) = next_move(QUESTION, &results) else {
        panic!("the tour should answer after its last step");
    };
    assert!(
        text.contains("North sold the most: 40,123.50 from 120 sales (33.4% of 120,123.75)"),
        "{text}"
    );
    assert!(
        text.contains("2 of 4 regions reached their Q1 target"),
        "{text}"
    );
    assert!(text.contains("South 91.0% (Marco Bellini)"), "{text}");
    assert!(text.contains(
        "I added 5 cells to the notebook: `load_sales`, `summarise_regions`, `load_monthly_orders`, `compare_targets`, `chart_revenue`."
    ), "{text}");
    assert!(!text.contains("failed"), "{text}");
}

#[test]
fn a_failed_step_is_named_and_its_cell_not_announced() {
    let mut results = vec!["ok"; STEPS.len()];
    results[2] = "Execution failed.\nNameError: name 'sales' is not defined";
    results[6] = "Execution failed.\nNameError: name 'revenue_by_region' is not defined";
    let text = answer(&results);
    assert!(
        text.contains("A step failed:** revenue, units and sales by region (Execution failed.)"),
        "{text}"
    );
    assert!(!text.contains("`summarise_regions`"), "{text}");
    assert_eq!(
        cells_created(&results),
        [
            "load_sales",
            "load_monthly_orders",
            "compare_targets",
            "chart_revenue"
        ]
    );
    assert!(!text.contains("sold the most"), "{text}");
}

#[test]
fn other_messages_get_the_explanation() {
    assert_eq!(
        next_move("what is the weather?", &[]),
        Move::Answer(off_script())
    );
    assert!(asks_for_tour("Show me the Tour again"));
}

#[test]
fn cell_code_fits_in_the_triple_quoted_literal() {
    for step in STEPS {
        if let Some((name, code)) = step.cell {
            assert!(!code.contains("'''") && !code.contains('\\'), "{name}");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name}"
            );
        }
    }
    let code = step_code(1);
    assert!(
        code.starts_with("# Load the sales as a notebook cell\nimport marimo._code_mode as cm\n"),
        "{code}"
    );
    assert!(
        code.contains("ctx.create_cell(\n        '''sales = pl.read_csv("),
        "{code}"
    );
    let arguments: serde_json::Value = serde_json::from_str(&step_arguments(0)).unwrap();
    assert!(
        arguments["code"]
            .as_str()
            .unwrap()
            .contains("describe_periods")
    );
}

#[test]
fn months_are_read_from_the_report_and_the_new_column_is_named() {
    let mut results = vec!["ok"; STEPS.len() - 1];
    results.push(REPORT);
    let text = answer(&results);
    assert!(
        text.contains(
            "2025-01 117 orders worth 6,321.00 (54.03 on average); 2025-02 130 orders worth 7,400.10 (56.92 on average)"
        ),
        "{text}"
    );
    assert!(
        text.contains("Only 2025-03 has a `channel` column"),
        "{text}"
    );
}

#[test]
fn a_garbled_report_gives_no_made_up_numbers() {
    let mut results = vec!["ok"; STEPS.len() - 1];
    results
        .push("region North: revenue lots, 3 sales\nmonth 2025-01: many orders\ntarget X: 1e% of");
    let text = answer(&results);
    assert!(!text.contains("sold the most"), "{text}");
    assert!(!text.contains("Monthly orders"), "{text}");
    assert!(!text.contains("Targets."), "{text}");
}
