//! The rows that need no engine: configuration, notebook, credentials, kernel, data folder.

use hailer_config::home::HailerHome;
use hailer_config::{Area, LoadInputs, Loaded, Problem, Runtime, Severity};

use super::{Row, Verdict, docker_rows};

/// Every row, in order.
pub async fn all(home: &HailerHome, inputs: &LoadInputs) -> Vec<Row> {
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
    rows.push(credentials_row(&loaded));
    rows.push(kernel_row(&in_area(Area::Kernel), &loaded));
    if loaded.config.kernel.runtime == Runtime::Docker {
        rows.extend(docker_rows::engine_and_image(home, &loaded).await);
        rows.push(data_row(&in_area(Area::Data), &loaded));
    }
    rows
}

/// A row for problems: FAIL on a fatal one, WARN on warnings only.
fn problems_row(check: &'static str, problems: &[&Problem]) -> Option<Row> {
    let fatal: Vec<&&Problem> = problems
        .iter()
        .filter(|problem| problem.severity == Severity::Fatal)
        .collect();
    let verdict = if fatal.is_empty() {
        Verdict::Warn
    } else {
        Verdict::Fail
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

pub(super) fn credentials_row(loaded: &Loaded) -> Row {
    let id = &loaded.config.model.provider;
    let Some(provider) = loaded.config.active_provider() else {
        if let Some((message, hint)) = loaded.trust.provider_refusal(id) {
            return Row::new("credentials", Verdict::Fail, message).hint(hint);
        }
        return Row::new(
            "credentials",
            Verdict::Fail,
            format!("the provider '{id}' is not declared"),
        )
        .hint(format!(
            "Add a [model_providers.{id}] section to hailer.toml."
        ));
    };
    if provider.wire_api == hailer_config::WireApi::Demo {
        return Row::new(
            "credentials",
            Verdict::Ok,
            "none needed: the scripted demo model runs inside hailerd and calls no endpoint",
        );
    }
    let key = &provider.env_key;
    if std::env::var(key).is_ok_and(|value| !value.is_empty()) {
        Row::new(
            "credentials",
            Verdict::Ok,
            format!("{key} from the environment"),
        )
    } else {
        let mut row = Row::new(
            "credentials",
            Verdict::Fail,
            format!("{key} is not set (required by provider '{id}')"),
        )
        .hint(format!(
            "Export {key} in the shell you start hailer from (hailer hands it to hailerd, which keeps it in memory only), or run `hailer login {id}`."
        ));
        row.missing_key = Some(key.clone());
        row
    }
}

/// The credentials row when this shell lacks the key but `hailer login` stored one.
pub(super) fn stored_key_row(variable: &str, place: &str) -> Row {
    let place = match place {
        "keyring" => "the OS credential store",
        "file" => "the key file",
        other => other,
    };
    Row::new(
        "credentials",
        Verdict::Ok,
        format!("stored in {place} (`hailer login`); {variable} in the environment would win"),
    )
}

fn kernel_row(problems: &[&Problem], loaded: &Loaded) -> Row {
    if let Some(row) = problems_row("kernel", problems) {
        return row;
    }
    let line = loaded.config.kernel_line(&hailer_kernel_bundle::contract());
    match loaded.config.kernel.runtime {
        Runtime::Docker => Row::new("kernel", Verdict::Ok, line),
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
    let shown = data
        .strip_prefix(&loaded.workspace.root)
        .unwrap_or(data)
        .display();
    Row::new(
        "data",
        Verdict::Ok,
        format!(
            "{shown}: read-only in the kernel, as {}",
            hailer_kernel_bundle::DATA_IN_KERNEL
        ),
    )
}
