//! Benchmark of the terminal's rendering of an answer: a paragraph, a 200-row Markdown table
//! and a code block, rendered at 120 columns in colour, many times, with the median and p95
//! next to a floor measured in the same run (the same text only split into lines, as a plain
//! terminal would pass it through). Target: rendering at most 5 ms. A second, code-heavy
//! answer (200 lines of Python, a SQL query and a JSON document in fenced blocks) measures the
//! highlighter.
//!
//! `cargo run --release -p hailer-cli --example bench-render`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

const RUNS: usize = 300;
const WIDTH: usize = 120;

fn answer() -> String {
    let mut text = String::from(
        "Here is the **weekly** revenue by region and product line, from `sales.parquet`. \
         The figures are in euros and include returns; the notes say what changed.\n\n\
         | Week | Region | Product line | Units | Revenue (EUR) | Notes |\n\
         |-----:|--------|--------------|------:|--------------:|-------|\n",
    );
    for row in 0..200 {
        text.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} | {} |\n",
            row + 1,
            ["North", "South", "East", "West"][row % 4],
            ["Outdoor furniture", "Kitchen", "Garden tools and supplies"][row % 3],
            100 + row * 7,
            1234.5 * row as f64,
            if row % 5 == 0 {
                "A new distributor signed this week, which moved a lot of volume into the region"
            } else {
                "steady"
            }
        ));
    }
    text.push_str(
        "\nThe code that made it:\n\n```python\nimport polars as pl\n\
         df = pl.read_parquet(DATA_DIR / \"sales.parquet\")\n\
         df.group_by(\"week\", \"region\").agg(pl.col(\"revenue\").sum())  # weekly\n```\n",
    );
    text
}

/// An answer that is mostly code: what the highlighter costs.
fn code_answer() -> String {
    let mut text =
        String::from("The whole script, then the query and its settings:\n\n```python\n");
    text.push_str("import polars as pl\n\"\"\"Weekly revenue,\nby region.\"\"\"\n");
    for row in 0..50 {
        text.push_str(&format!(
            "def step_{row}(df: pl.DataFrame, limit: int = {row}) -> pl.DataFrame:\n    \
             # keep the rows over the limit\n    \
             kept = df.filter(pl.col(\"revenue\") > limit * 1.5)\n    \
             return kept.with_columns(pl.lit(f\"step {{limit}}\").alias(\"note\"))\n"
        ));
    }
    text.push_str("```\n\n```sql\n");
    for row in 0..20 {
        text.push_str(&format!(
            "SELECT region, SUM(revenue) AS total FROM sales WHERE week = {row} GROUP BY region; -- week {row}\n"
        ));
    }
    text.push_str("```\n\n```json\n{\n");
    for row in 0..20 {
        text.push_str(&format!(
            "  \"key_{row}\": [{row}, true, null, \"text\"],\n"
        ));
    }
    text.push_str("  \"end\": 0\n}\n```\n");
    text
}

fn measure(mut run: impl FnMut()) -> Vec<Duration> {
    let mut samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect();
    samples.sort();
    samples
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

fn report(label: &str, samples: &[Duration]) {
    let median = samples[samples.len() / 2];
    let p95 = samples[samples.len() * 95 / 100];
    println!(
        "{label:<34} median {:>10}   p95 {:>10}",
        ms(median),
        ms(p95)
    );
}

fn main() {
    let text = answer();
    // The first render loads the grammars and compiles the regexes it meets.
    let started = Instant::now();
    let lines = hailer_cli::render_answer(&text, WIDTH, true);
    let first = started.elapsed();
    assert!(lines.len() > 200, "the table was rendered");
    // Warm up.
    for _ in 0..20 {
        black_box(hailer_cli::render_answer(black_box(&text), WIDTH, true));
    }
    let floor = measure(|| {
        black_box(
            black_box(&text)
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        );
    });
    let render = measure(|| {
        black_box(hailer_cli::render_answer(black_box(&text), WIDTH, true));
    });
    println!(
        "answer of {} bytes with a 200-row table, {WIDTH} columns, {RUNS} runs",
        text.len()
    );
    println!("{:<34} {:>17}", "first render (grammars load)", ms(first));
    report("floor (split into lines)", &floor);
    report("rendered (target <= 5 ms)", &render);
    // A row of scripts/bench.sh's table.
    println!(
        "BENCH\tterminal render of a 200-row table answer\t{}\t{}\t<= 5 ms",
        ms(render[render.len() / 2]),
        ms(floor[floor.len() / 2])
    );

    let code = code_answer();
    for _ in 0..20 {
        black_box(hailer_cli::render_answer(black_box(&code), WIDTH, true));
    }
    let render = measure(|| {
        black_box(hailer_cli::render_answer(black_box(&code), WIDTH, true));
    });
    println!(
        "code-heavy answer of {} bytes, {} lines, {WIDTH} columns, {RUNS} runs",
        code.len(),
        code.lines().count()
    );
    report("rendered", &render);
}
