//! The startup panel: which model, notebook, workspace and kernel this chat uses.

use hailer_config::{Loaded, OPENAI_BASE_URL, Runtime, WireApi};
use hailer_protocol::SessionInfo;

use hailer_render::Style;

/// How many allowed domains the panel names before counting the rest.
const DOMAINS_SHOWN: usize = 4;

/// The panel's lines.
pub(super) fn lines(info: &SessionInfo, loaded: Option<&Loaded>, style: Style) -> Vec<String> {
    let row = |label: &str, value: String| format!("  {:<12}{value}", format!("{label}:"));
    let mut lines = vec![style.bold("Hailer")];
    let (provider_id, model) = session_model(info, loaded);
    lines.push(row("Model", model));
    if let Some(loaded) = loaded {
        lines.push(row("Provider", provider_named(loaded, &provider_id)));
    } else if !provider_id.is_empty() {
        lines.push(row("Provider", provider_id));
    }
    lines.push(row("Notebook", active_notebook(info, loaded)));
    lines.push(row(
        "Notebooks",
        relative(&info.notebooks_dir, &info.workspace),
    ));
    lines.push(row("Workspace", info.workspace.clone()));
    let kernel = if info.runtime == Runtime::UnsafeLocal.to_string() {
        style.yellow(&info.kernel_line)
    } else {
        info.kernel_line.clone()
    };
    lines.push(row("Kernel", kernel));
    if let Some(loaded) = loaded {
        lines.push(row("Web access", web_access(loaded)));
    }
    lines
}

/// The active notebook, or the configured one, relative to the notebooks folder.
pub(super) fn active_notebook(info: &SessionInfo, loaded: Option<&Loaded>) -> String {
    if let Some(active) = &info.active_notebook {
        return active.clone();
    }
    match loaded {
        Some(loaded) => {
            let notebook = &loaded.config.hailer.notebook;
            notebook
                .strip_prefix(&loaded.config.hailer.notebooks_dir)
                .unwrap_or(notebook)
                .display()
                .to_string()
        }
        None => "(the configured one)".to_owned(),
    }
}

/// The model the session uses, as `(provider, name)`: what the daemon says (a model switch
/// changes it), else the configuration's.
pub(super) fn session_model(info: &SessionInfo, loaded: Option<&Loaded>) -> (String, String) {
    match info.model.split_once(':') {
        Some((provider, name)) if !name.is_empty() => (provider.to_owned(), name.to_owned()),
        _ => match loaded {
            Some(loaded) => (
                loaded.config.model.provider.clone(),
                loaded.config.model.name.clone(),
            ),
            None => (String::new(), info.model.clone()),
        },
    }
}

/// The configured provider: `openai`, or `<id> (<base url>[, chat completions][, no
/// streaming])`.
pub(crate) fn provider(loaded: &Loaded) -> String {
    provider_named(loaded, &loaded.config.model.provider)
}

/// The provider `id` of the configuration, described as [`provider`] does.
pub(super) fn provider_named(loaded: &Loaded, id: &str) -> String {
    let Some(settings) = loaded.config.model_providers.get(id) else {
        return format!("{id} (not declared)");
    };
    if settings.wire_api == WireApi::Demo {
        return format!("{id} (scripted, built into hailerd; no endpoint, no key)");
    }
    let mut details = Vec::new();
    if settings.base_url != OPENAI_BASE_URL {
        details.push(settings.base_url.clone());
    }
    if settings.wire_api == WireApi::Chat {
        details.push("chat completions".to_owned());
    }
    if !settings.stream {
        details.push("no streaming".to_owned());
    }
    if details.is_empty() {
        id.to_owned()
    } else {
        format!("{id} ({})", details.join(", "))
    }
}

/// `none`, or the first few allowed domains and how many more.
pub(super) fn web_access(loaded: &Loaded) -> String {
    let rules = loaded.config.web.allowed_domains.rules();
    if rules.is_empty() {
        return "none".to_owned();
    }
    let shown: Vec<String> = rules
        .iter()
        .take(DOMAINS_SHOWN)
        .map(ToString::to_string)
        .collect();
    let mut text = shown.join(", ");
    if rules.len() > DOMAINS_SHOWN {
        text.push_str(&format!(" (+{} more)", rules.len() - DOMAINS_SHOWN));
    }
    text
}

/// `path` relative to `base` when it is inside it.
pub(super) fn relative(path: &str, base: &str) -> String {
    std::path::Path::new(path)
        .strip_prefix(base)
        .ok()
        .map(|rest| rest.display().to_string())
        .filter(|rest| !rest.is_empty())
        .unwrap_or_else(|| path.to_owned())
}
