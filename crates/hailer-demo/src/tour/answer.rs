//! The tour's answer, written from what its tool calls returned: the numbers are this data's,
//! read from the results, and a step that failed is named rather than glossed over.

use std::fmt::Write as _;

use super::steps::STEPS;

/// The answer to a message that does not ask for the tour.
pub(crate) fn off_script() -> String {
    "I am the scripted demo model: I run a fixed tour of this workspace's sample data and can \
     answer nothing else. Ask for \"the tour\" to see it again. To ask your own questions, point \
     [model] in hailer.toml at a real provider and run `hailer login` (or set its key variable)."
        .to_owned()
}

/// Whether a tool result reports a failure (the tools answer `ERROR: ...`, and failed code
/// `Execution failed.`).
fn failed(result: &str) -> bool {
    result.starts_with("ERROR:") || result.starts_with("Execution failed.")
}

/// The names of the cells the steps created, in order: those whose step did not fail.
pub(super) fn cells_created(results: &[&str]) -> Vec<&'static str> {
    STEPS
        .iter()
        .zip(results)
        .filter(|(_, result)| !failed(result))
        .filter_map(|(step, _)| step.cell.map(|(name, _)| name))
        .collect()
}

/// One month of the orders, as the report printed it.
#[derive(Debug)]
struct Month {
    period: String,
    orders: String,
    revenue: f64,
    average: String,
    with_channel: u64,
}

/// "2025-01: 115 orders, revenue 6323.15, average 54.98, 0 with a channel"
fn parse_month(text: &str) -> Option<Month> {
    let (period, rest) = text.split_once(": ")?;
    let (orders, rest) = rest.split_once(" orders, revenue ")?;
    let (revenue, rest) = rest.split_once(", average ")?;
    let (average, rest) = rest.split_once(", ")?;
    let with_channel = rest.strip_suffix(" with a channel")?.parse().ok()?;
    Some(Month {
        period: period.to_owned(),
        orders: orders.to_owned(),
        revenue: revenue.parse().ok()?,
        average: average.to_owned(),
        with_channel,
    })
}

#[derive(Debug, Default)]
struct Numbers {
    sales: Option<String>,
    regions: Vec<(String, f64, String)>,
    months: Vec<Month>,
    targets: Vec<(String, f64, String)>,
    chart: bool,
}

fn parse(report: &str) -> Numbers {
    let mut numbers = Numbers::default();
    for line in report.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("sales: ") {
            numbers.sales = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("region ") {
            // "North: revenue 123.45, 101 sales"
            if let Some((region, rest)) = rest.split_once(": revenue ")
                && let Some((revenue, count)) = rest.split_once(", ")
                && let Ok(revenue) = revenue.parse::<f64>()
            {
                numbers
                    .regions
                    .push((region.to_owned(), revenue, count.to_owned()));
            }
        } else if let Some(month) = line.strip_prefix("month ").and_then(parse_month) {
            numbers.months.push(month);
        } else if let Some(rest) = line.strip_prefix("target ") {
            // "North: 109.0% of 12300 (Ana Lindqvist)"
            if let Some((region, rest)) = rest.split_once(": ")
                && let Some((percent, rest)) = rest.split_once("% of ")
                && let Ok(percent) = percent.parse::<f64>()
            {
                let manager = rest
                    .split_once(" (")
                    .map(|(_, manager)| manager.trim_end_matches(')').to_owned())
                    .unwrap_or_default();
                numbers.targets.push((region.to_owned(), percent, manager));
            }
        } else if line.starts_with("chart: ") {
            numbers.chart = true;
        }
    }
    numbers
}

/// Thousands separated, two decimals.
fn money(value: f64) -> String {
    let text = format!("{value:.2}");
    let (whole, cents) = text.split_once('.').unwrap_or((&text, "00"));
    let digits: Vec<char> = whole.chars().collect();
    let mut grouped = String::new();
    for (at, digit) in digits.iter().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) && *digit != '-' {
            grouped.push(',');
        }
        grouped.push(*digit);
    }
    format!("{grouped}.{cents}")
}

/// The answer after every step ran, from their results (in step order).
pub(crate) fn answer(results: &[&str]) -> String {
    let mut text = String::from(
        "Here is the tour (I am the scripted demo model: my steps are fixed, but every number \
         below was read from the results of the code that just ran).\n\n",
    );
    let report = results.get(STEPS.len() - 1).copied().unwrap_or_default();
    let numbers = if failed(report) {
        Numbers::default()
    } else {
        parse(report)
    };
    if let Some(sales) = &numbers.sales {
        let _ = writeln!(text, "- **The files.** `sales.csv` holds {sales}.");
    }
    if let (Some(top), Some(bottom)) = (numbers.regions.first(), numbers.regions.last()) {
        let total: f64 = numbers.regions.iter().map(|(_, revenue, _)| revenue).sum();
        let share = if total > 0.0 {
            top.1 / total * 100.0
        } else {
            0.0
        };
        let _ = writeln!(
            text,
            "- **Regions.** {} sold the most: {} from {} ({share:.1}% of {}); {} the least, {}.",
            top.0,
            money(top.1),
            top.2,
            money(total),
            bottom.0,
            money(bottom.1)
        );
    }
    if !numbers.months.is_empty() {
        let parts: Vec<String> = numbers
            .months
            .iter()
            .map(|month| {
                format!(
                    "{} {} orders worth {} ({} on average)",
                    month.period,
                    month.orders,
                    money(month.revenue),
                    month.average
                )
            })
            .collect();
        let with_channel: Vec<String> = numbers
            .months
            .iter()
            .filter(|month| month.with_channel > 0)
            .map(|month| month.period.clone())
            .collect();
        let channel = if with_channel.is_empty() {
            "No month has a `channel`.".to_owned()
        } else {
            format!(
                "Only {} has a `channel` column; the other months read as empty there.",
                with_channel.join(" and ")
            )
        };
        let _ = writeln!(
            text,
            "- **Monthly orders.** `load_periods` read the `YY-MM orders.parquet` files as one \
             table with a `period` column: {}. {channel}",
            parts.join("; ")
        );
    }
    if !numbers.targets.is_empty() {
        let parts: Vec<String> = numbers
            .targets
            .iter()
            .map(|(region, percent, manager)| format!("{region} {percent:.1}% ({manager})"))
            .collect();
        let beat = numbers
            .targets
            .iter()
            .filter(|(_, percent, _)| *percent >= 100.0)
            .count();
        let _ = writeln!(
            text,
            "- **Targets.** From the Excel sheets Targets and Regions: {beat} of {} regions \
             reached their Q1 target: {}.",
            numbers.targets.len(),
            parts.join(", ")
        );
    }
    if numbers.chart {
        text.push_str("- **Chart.** A bar chart of revenue by region is in the notebook.\n");
    }
    for (step, result) in STEPS.iter().zip(results) {
        if failed(result) {
            let first = result.lines().next().unwrap_or_default();
            let _ = writeln!(
                text,
                "- **A step failed:** {} ({first}).",
                step.title.to_lowercase()
            );
        }
    }
    let cells = cells_created(results);
    if cells.is_empty() {
        text.push_str("\nNo cell could be added to the notebook.\n");
    } else {
        let names: Vec<String> = cells.iter().map(|name| format!("`{name}`")).collect();
        let _ = writeln!(
            text,
            "\nI added {} cells to the notebook: {}.",
            cells.len(),
            names.join(", ")
        );
    }
    text
}
