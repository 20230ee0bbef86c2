//! The tour's steps: the code each `marimo_execute` call runs.

/// One step of the tour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// What the step does, as the code's first comment.
    pub title: &'static str,
    /// The notebook cell it creates (its name) and the cell's code; `None` for a step that only
    /// looks.
    pub cell: Option<(&'static str, &'static str)>,
    /// Code run in the scratchpad (after the cell is created, when there is one).
    pub code: &'static str,
}

/// The steps, in order.
pub const STEPS: [Step; 7] = [
    Step {
        title: "A first look: the data files, and what the monthly files of `orders` hold",
        cell: None,
        code: "for f in data_files:
    print(f\"{f.name} ({f.kind}, {f.size} bytes)\")
print()
print(describe_periods(DATA_DIR, \"orders\"))",
    },
    Step {
        title: "Load the sales as a notebook cell",
        cell: Some((
            "load_sales",
            "sales = pl.read_csv(DATA_DIR / \"sales.csv\", try_parse_dates=True)
sales",
        )),
        code: "",
    },
    Step {
        title: "Revenue, units and sales by region",
        cell: Some((
            "summarise_regions",
            "revenue_by_region = (
    sales.group_by(\"region\")
    .agg(
        pl.col(\"amount\").sum().round(2).alias(\"revenue\"),
        pl.col(\"units\").sum().alias(\"units\"),
        pl.len().alias(\"sales\"),
    )
    .sort(\"revenue\", descending=True)
)
revenue_by_region",
        )),
        code: "",
    },
    Step {
        title: "The monthly order files as one table, with Hailer's period helper",
        cell: Some((
            "load_monthly_orders",
            "orders = load_periods(DATA_DIR, \"orders\")
monthly_orders = (
    orders.group_by(\"period\")
    .agg(
        pl.len().alias(\"orders\"),
        pl.col(\"amount\").sum().round(2).alias(\"revenue\"),
        pl.col(\"amount\").mean().round(2).alias(\"average_order\"),
        pl.col(\"channel\").is_not_null().sum().alias(\"with_channel\"),
    )
    .sort(\"period\")
)
monthly_orders",
        )),
        code: "",
    },
    Step {
        title: "The Excel workbook's two sheets, against the revenue",
        cell: Some((
            "compare_targets",
            "targets = pl.read_excel(DATA_DIR / \"targets.xlsx\", sheet_name=\"Targets\")
managers = pl.read_excel(DATA_DIR / \"targets.xlsx\", sheet_name=\"Regions\")
target_check = (
    revenue_by_region.join(targets, on=\"region\")
    .join(managers, on=\"region\")
    .with_columns(
        (pl.col(\"revenue\") / pl.col(\"q1_target\") * 100).round(1).alias(\"pct_of_target\")
    )
    .select(\"region\", \"manager\", \"revenue\", \"q1_target\", \"pct_of_target\")
    .sort(\"pct_of_target\", descending=True)
)
target_check",
        )),
        code: "",
    },
    Step {
        title: "A bar chart of revenue by region",
        cell: Some((
            "chart_revenue",
            "import altair as alt

revenue_chart = (
    alt.Chart(target_check)
    .mark_bar()
    .encode(
        x=alt.X(\"region\", sort=\"-y\"),
        y=alt.Y(\"revenue\", title=\"Q1 revenue\"),
        color=\"region\",
        tooltip=[\"region\", \"manager\", \"revenue\", \"pct_of_target\"],
    )
    .properties(title=\"Q1 2025 revenue by region\")
)
revenue_chart",
        )),
        code: "",
    },
    Step {
        title: "Read the cells' results back for the answer",
        cell: None,
        code: "print(f\"sales: {sales.height} rows, {sales['date'].min()} to {sales['date'].max()}\")
for row in revenue_by_region.iter_rows(named=True):
    print(f\"region {row['region']}: revenue {row['revenue']:.2f}, {row['sales']} sales\")
for row in monthly_orders.iter_rows(named=True):
    print(
        f\"month {row['period']}: {row['orders']} orders, revenue {row['revenue']:.2f}, \"
        f\"average {row['average_order']:.2f}, {row['with_channel']} with a channel\"
    )
for row in target_check.iter_rows(named=True):
    print(f\"target {row['region']}: {row['pct_of_target']:.1f}% of {row['q1_target']:.0f} ({row['manager']})\")
print(f\"chart: {type(revenue_chart).__name__}\")",
    },
];

/// The code step `index` runs: its cell created and run through marimo's code mode, then its
/// scratchpad code.
pub(super) fn step_code(index: usize) -> String {
    let Some(step) = STEPS.get(index) else {
        return String::new();
    };
    let mut code = format!("# {}\n", step.title);
    if let Some((name, cell)) = step.cell {
        code.push_str(&format!(
            "import marimo._code_mode as cm\n\n\
             async with cm.get_context() as ctx:\n    \
             cell = ctx.create_cell(\n        '''{cell}''',\n        name=\"{name}\",\n        hide_code=False,\n    )\n    \
             ctx.run_cell(cell)\n"
        ));
    }
    if !step.code.is_empty() {
        if step.cell.is_some() {
            code.push('\n');
        }
        code.push_str(step.code);
        code.push('\n');
    }
    code
}

/// The JSON arguments of step `index`'s tool call.
pub(crate) fn step_arguments(index: usize) -> String {
    serde_json::json!({ "code": step_code(index) }).to_string()
}
