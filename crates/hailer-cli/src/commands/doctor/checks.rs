//! The rows that need no engine: configuration, notebook, credentials, kernel, data folder.

use hailer_config::HailerHome;
use hailer_config::{Area, LoadInputs, Loaded, Problem, Runtime, Severity};

use super::{Row, Verdict, data_access, docker_rows};
use crate::session_client::SessionFlags;

/// Every row, in order.
pub(super) async fn all(home: &HailerHome, inputs: &LoadInputs, flags: &SessionFlags) -> Vec<Row> {
    let report = hailer_config::check(inputs);
    let loaded = hailer_config::load(inputs).ok();
    let in_area = |area: Area| -> Vec<&Problem> {
        report
            .all()
            .filter(|problem| problem.area == area)
            .collect()
    };
    let mut rows = vec![config_row(&in_area(Area::Config), loaded.as_ref())];
    let Some(loaded) = loaded else {
        for check in ["notebook", "credentials", "kernel"] {
            rows.push(Row::new(
                check,
                Verdict::Warn,
                "not checked: the configuration cannot be loaded",
            ));
        }
        return rows;
    };
    rows.push(super::trust_row::row(&loaded));
    rows.push(notebook_row(&in_area(Area::Notebook), &loaded));
    rows.push(credentials_row(home, flags).await);
    rows.push(kernel_row(&in_area(Area::Kernel), &loaded));
    if loaded.config.kernel.runtime == Runtime::Docker {
        rows.extend(docker_rows::engine_and_image(home, &loaded).await);
        rows.push(data_row(&in_area(Area::Data), &loaded));
    }
    rows
}

/// A row for problems: FAIL on a fatal one, WARN on warnings only.
fn problems_row(check: &'static str, problems: &[&Problem]) -> Option<Row> {
    let verdict = if problems
        .iter()
        .any(|problem| problem.severity == Severity::Fatal)
    {
        Verdict::Fail
    } else {
        Verdict::Warn
    };
    match problems {
        [] => None,
        [only] => Some(Row::new(check, verdict, only.message.clone()).hint(only.hint.clone())),
        many => {
            let mut row = Row::new(
                check,
                verdict,
                format!("{} problems in the configuration:", many.len()),
            );
            for problem in many {
                let label = if problem.severity == Severity::Fatal {
                    "error"
                } else {
                    "warning"
                };
                row.hints.push(format!("- {label}: {}", problem.message));
            }
            Some(row)
        }
    }
}

fn config_row(problems: &[&Problem], loaded: Option<&Loaded>) -> Row {
    if let Some(row) = problems_row("config", problems) {
        return row;
    }
    let source =
        match loaded.and_then(|loaded| loaded.config_path.as_ref().map(|path| (loaded, path))) {
            Some((loaded, path)) => path
                .strip_prefix(&loaded.workspace.root)
                .unwrap_or(path)
                .display()
                .to_string(),
            None => "defaults (no hailer.toml found)".to_owned(),
        };
    Row::new("config", Verdict::Ok, format!("ok ({source})"))
}

fn notebook_row(problems: &[&Problem], loaded: &Loaded) -> Row {
    if let Some(row) = problems_row("notebook", problems) {
        return row;
    }
    let notebook = &loaded.config.hailer.notebook;
    let shown = notebook
        .strip_prefix(&loaded.workspace.root)
        .unwrap_or(notebook)
        .display();
    Row::new("notebook", Verdict::Ok, format!("{shown} (configured)"))
}

/// The credentials row: hailerd's judgement of the model settings and the key, the one a
/// session started from this shell would make.
async fn credentials_row(home: &HailerHome, flags: &SessionFlags) -> Row {
    let not_checked = |error: anyhow::Error| {
        Row::new(
            "credentials",
            Verdict::Fail,
            format!("not checked: hailerd did not answer ({error:#})"),
        )
    };
    let connected = match crate::daemon_client::find_or_start(home).await {
        Ok(connected) => connected,
        Err(error) => return not_checked(error),
    };
    match crate::model_check::ask(&connected.endpoint, flags).await {
        Ok(check) => match check.problem {
            Some(problem) => Row::new("credentials", Verdict::Fail, problem.message)
                .hint(problem.hint.unwrap_or_default()),
            None => Row::new(
                "credentials",
                Verdict::Ok,
                crate::model_check::summary(&check),
            ),
        },
        Err(error) => not_checked(error),
    }
}

fn kernel_row(problems: &[&Problem], loaded: &Loaded) -> Row {
    if let Some(row) = problems_row("kernel", problems) {
        return row;
    }
    let line = loaded.config.kernel_line(&hailer_kernel_bundle::contract());
    match loaded.config.kernel.runtime {
        Runtime::Docker => Row::new("kernel", Verdict::Ok, line),
        Runtime::Sandbox => match hailer_sandbox::not_offered_on(std::env::consts::OS) {
            Some(reason) => Row::new("kernel", Verdict::Fail, line).hint(capitalized(&reason)),
            None => Row::new("kernel", Verdict::Ok, line),
        },
        Runtime::UnsafeLocal => Row::new("kernel", Verdict::Warn, line)
            .hint("Notebook code runs as you, with your files; secret-looking environment variables are withheld from it.")
            .hint("For isolation, write runtime = \"docker\" under [kernel] in hailer.toml."),
    }
}

fn data_row(problems: &[&Problem], loaded: &Loaded) -> Row {
    if let Err(refusal) = loaded.check_data_dir_mount() {
        return Row::new("data", Verdict::Fail, refusal.message()).hint(refusal.hint());
    }
    if let Some(row) = problems_row("data", problems) {
        return row;
    }
    let data = &loaded.config.hailer.data_dir;
    let relative = |path: &std::path::Path| {
        path.strip_prefix(&loaded.workspace.root)
            .unwrap_or(path)
            .to_path_buf()
    };
    let shown = relative(data);
    let shown = shown.display();
    if loaded.config.kernel.runtime == Runtime::Docker {
        let user = data_access::kernel_user();
        let (found, count) = data_access::unreadable(data, user);
        if count > 0 {
            let mut row = Row::new(
                "data",
                Verdict::Warn,
                format!(
                    "{shown}: the kernel (user {}, group {}, in its container) cannot read {count} \
                     of its files or folders",
                    user.0, user.1
                ),
            );
            for entry in &found {
                row = row.hint(entry.fix(&relative(&entry.path)));
            }
            if count > found.len() {
                row = row.hint(format!("... and {} more", count - found.len()));
            }
            return row.hint(
                "Run these to let it read them (folders need a+rx), or move the files out of the data folder.",
            );
        }
    }
    Row::new(
        "data",
        Verdict::Ok,
        format!(
            "{shown}: read-only in the kernel, as {}",
            hailer_kernel_bundle::DATA_IN_KERNEL
        ),
    )
}

/// `text` with its first letter a capital and a full stop at its end, as a hint is written.
fn capitalized(text: &str) -> String {
    let mut letters = text.chars();
    letters.next().map_or_else(String::new, |first| {
        format!("{}{}.", first.to_uppercase(), letters.as_str())
    })
}
