//! uv's settings, used when pip has no index settings: `UV_CONFIG_FILE`, or else the nearest
//! `uv.toml` or `[tool.uv]` of a `pyproject.toml` from the current folder upwards (`uv.toml`
//! first in one folder), the user's `uv/uv.toml` and the system's; then the `UV_*` variables.
//! `UV_NO_CONFIG` skips the files.
//!
//! pip has one index and mixes in extra ones, while uv prefers the first index that has a
//! package; so only a single default index translates. Extra, explicit or per-package indexes
//! are refused with a pointer to `--pip-config`.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::settings::{Key, Origin, Settings, Sourced, parse_bool};
use super::{HostConfigError, HostInputs};

/// One source of uv settings and its options table.
struct UvFile {
    origin: Origin,
    options: Table,
}

/// What the files and variables say, before it becomes pip settings.
#[derive(Default)]
struct Found {
    index: Option<(Sourced, Option<String>)>,
    no_index: Option<Sourced>,
    find_links: Vec<Sourced>,
    insecure_hosts: Vec<Sourced>,
    timeout: Option<Sourced>,
}

/// uv's index settings in pip's names.
pub(super) fn discover(inputs: &HostInputs<'_>) -> Result<Settings, HostConfigError> {
    let mut found = Found::default();
    // Strongest first: the first value found for a setting is kept.
    for file in files(inputs)? {
        read_options(&file, &mut found)?;
    }
    read_variables(inputs, &mut found)?;
    let mut settings = Settings::new();
    if let Some((mut index, name)) = found.index {
        if let Some(name) = name {
            index.text = with_credentials(inputs, &index, &name)?;
        }
        settings.insert(Key::IndexUrl, index);
    }
    if let Some(no_index) = found.no_index {
        settings.insert(Key::NoIndex, no_index);
    }
    for (key, values) in [
        (Key::FindLinks, found.find_links),
        (Key::TrustedHost, found.insecure_hosts),
    ] {
        if let Some(first) = values.first() {
            let origin = first.origin.clone();
            let text = values
                .iter()
                .map(|value| value.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            settings.insert(key, Sourced { text, origin });
        }
    }
    if let Some(timeout) = found.timeout {
        settings.insert(Key::Timeout, timeout);
    }
    Ok(settings)
}

/// The files uv would read, strongest first.
fn files(inputs: &HostInputs<'_>) -> Result<Vec<UvFile>, HostConfigError> {
    if inputs
        .var("UV_NO_CONFIG")
        .is_some_and(|v| parse_bool(v) != Some(false))
    {
        return Ok(Vec::new());
    }
    if let Some(path) = inputs.var("UV_CONFIG_FILE") {
        let path = inputs.absolute(Path::new(path));
        let Some(table) = read_toml(inputs, &path)? else {
            return Err(HostConfigError::Missing {
                path,
                named_by: Origin::Variable("UV_CONFIG_FILE".to_owned()).to_string(),
            });
        };
        return Ok(vec![UvFile {
            origin: Origin::File(path),
            options: table,
        }]);
    }
    let mut files = Vec::new();
    files.extend(project_file(inputs)?);
    let user = inputs
        .config_home()
        .map(|dir| dir.join("uv").join("uv.toml"));
    let mut system: Vec<PathBuf> = super::pip::config_dirs(inputs)
        .into_iter()
        .map(|dir| dir.join("uv").join("uv.toml"))
        .collect();
    system.push(PathBuf::from("/etc/uv/uv.toml"));
    if let Some(path) = user
        && let Some(options) = read_toml(inputs, &path)?
    {
        files.push(UvFile {
            origin: Origin::File(path),
            options,
        });
    }
    for path in system {
        if let Some(options) = read_toml(inputs, &path)? {
            files.push(UvFile {
                origin: Origin::File(path),
                options,
            });
            break;
        }
    }
    Ok(files)
}

/// The nearest `uv.toml`, or `pyproject.toml` with a `[tool.uv]` table, from the current
/// folder upwards.
fn project_file(inputs: &HostInputs<'_>) -> Result<Option<UvFile>, HostConfigError> {
    for dir in inputs.cwd.ancestors() {
        let uv_toml = dir.join("uv.toml");
        if let Some(options) = read_toml(inputs, &uv_toml)? {
            return Ok(Some(UvFile {
                origin: Origin::File(uv_toml),
                options,
            }));
        }
        let pyproject = dir.join("pyproject.toml");
        if let Some(table) = read_toml(inputs, &pyproject)?
            && let Some(Value::Table(options)) =
                table.get("tool").and_then(|tool| tool.get("uv")).cloned()
        {
            return Ok(Some(UvFile {
                origin: Origin::File(pyproject),
                options,
            }));
        }
    }
    Ok(None)
}

fn read_toml(inputs: &HostInputs<'_>, path: &Path) -> Result<Option<Table>, HostConfigError> {
    let Some(bytes) = inputs.read_file(path)? else {
        return Ok(None);
    };
    let malformed = |line: Option<usize>, reason| HostConfigError::Malformed {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let text = String::from_utf8(bytes).map_err(|_| malformed(None, "it is not UTF-8 text"))?;
    // toml's own message can quote the line, which may hold a password: only its number goes out.
    text.parse::<Table>().map(Some).map_err(|error| {
        let line = error
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        malformed(line, "it is not valid TOML")
    })
}

/// A file's settings; `[pip]` (`[tool.uv.pip]`) wins over the top level.
fn read_options(file: &UvFile, found: &mut Found) -> Result<(), HostConfigError> {
    let refuse = |what: &str| HostConfigError::Untranslatable {
        what: what.to_owned(),
        origin: file.origin.to_string(),
    };
    let bad = |key: &'static str, problem: &str| HostConfigError::BadValue {
        key,
        origin: file.origin.to_string(),
        problem: problem.to_owned(),
    };
    if let Some(Value::Table(sources)) = file.options.get("sources") {
        let routed = sources.values().any(|source| match source {
            Value::Table(table) => table.contains_key("index"),
            Value::Array(items) => items.iter().any(|item| item.get("index").is_some()),
            _ => false,
        });
        if routed {
            return Err(refuse(
                "per-package index routing ([tool.uv.sources] with index =)",
            ));
        }
    }
    let pip = match file.options.get("pip") {
        Some(Value::Table(pip)) => Some(pip),
        Some(_) => return Err(bad("pip", "is not a table")),
        None => None,
    };
    let tables: Vec<&Table> = pip.into_iter().chain([&file.options]).collect();
    for table in &tables {
        let extra = table.get("extra-index-url");
        if extra.is_some_and(|value| value.as_array().is_none_or(|items| !items.is_empty())) {
            return Err(refuse("an extra index (extra-index-url)"));
        }
    }
    let mut index: Option<(String, Option<String>)> = None;
    for table in &tables {
        if index.is_none()
            && let Some(url) = table.get("index-url")
        {
            let url = url
                .as_str()
                .ok_or_else(|| bad("index-url", "is not a string"))?;
            index = Some((url.to_owned(), None));
        }
        if let Some(entries) = table.get("index") {
            let entries = entries
                .as_array()
                .ok_or_else(|| bad("index", "is not a list of [[index]] tables"))?;
            let mut default = None;
            for entry in entries {
                let entry = entry
                    .as_table()
                    .ok_or_else(|| bad("index", "is not a list of [[index]] tables"))?;
                let flag = |name: &'static str| -> Result<bool, HostConfigError> {
                    match entry.get(name) {
                        None => Ok(false),
                        Some(value) => value
                            .as_bool()
                            .ok_or_else(|| bad(name, "is not true or false")),
                    }
                };
                if flag("explicit")? {
                    return Err(refuse("an explicit index ([[index]] with explicit = true)"));
                }
                if !flag("default")? {
                    return Err(refuse(
                        "an additional index ([[index]] without default = true)",
                    ));
                }
                if default.is_some() {
                    return Err(refuse("more than one default index"));
                }
                let url = entry
                    .get("url")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("url", "is missing from an [[index]] table"))?;
                let name = entry.get("name").and_then(Value::as_str).map(str::to_owned);
                default = Some((url.to_owned(), name));
            }
            if index.is_none() {
                index = default;
            }
        }
    }
    if found.index.is_none()
        && let Some((url, name)) = index
    {
        found.index = Some((sourced(url, &file.origin), name));
    }
    for table in &tables {
        if found.no_index.is_none()
            && let Some(value) = table.get("no-index")
        {
            let value = value
                .as_bool()
                .ok_or_else(|| bad("no-index", "is not true or false"))?;
            found.no_index = Some(sourced(value.to_string(), &file.origin));
        }
    }
    for (name, into) in [
        ("find-links", &mut found.find_links),
        ("allow-insecure-host", &mut found.insecure_hosts),
    ] {
        for table in &tables {
            if let Some(value) = table.get(name) {
                let items = value
                    .as_array()
                    .ok_or_else(|| bad(static_name(name), "is not a list"))?;
                for item in items {
                    let text = item
                        .as_str()
                        .ok_or_else(|| bad(static_name(name), "holds something other than text"))?;
                    let text = if name == "allow-insecure-host" {
                        host_of(text)
                    } else {
                        text.to_owned()
                    };
                    into.push(sourced(text, &file.origin));
                }
                break;
            }
        }
    }
    Ok(())
}

fn static_name(name: &str) -> &'static str {
    match name {
        "find-links" => "find-links",
        _ => "allow-insecure-host",
    }
}

/// The variables, which win over every file.
fn read_variables(inputs: &HostInputs<'_>, found: &mut Found) -> Result<(), HostConfigError> {
    for name in ["UV_INDEX", "UV_EXTRA_INDEX_URL"] {
        if inputs.var(name).is_some() {
            return Err(HostConfigError::Untranslatable {
                what: "an extra index".to_owned(),
                origin: Origin::Variable(name.to_owned()).to_string(),
            });
        }
    }
    for name in ["UV_DEFAULT_INDEX", "UV_INDEX_URL"] {
        if let Some(value) = inputs.var(name) {
            // `name=url` names the index, for its credential variables.
            let (index_name, url) = match value.split_once('=') {
                Some((index_name, url))
                    if !index_name.contains("://")
                        && index_name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) =>
                {
                    (Some(index_name.to_owned()), url)
                }
                _ => (None, value),
            };
            let variable = Origin::Variable(name.to_owned());
            found.index = Some((sourced(url.to_owned(), &variable), index_name));
            break;
        }
    }
    if let Some(value) = inputs.var("UV_NO_INDEX") {
        found.no_index = Some(sourced(
            value.to_owned(),
            &Origin::Variable("UV_NO_INDEX".to_owned()),
        ));
    }
    if let Some(value) = inputs.var("UV_FIND_LINKS") {
        let origin = Origin::Variable("UV_FIND_LINKS".to_owned());
        found.find_links = value
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| sourced(item.to_owned(), &origin))
            .collect();
    }
    if let Some(value) = inputs.var("UV_INSECURE_HOST") {
        let origin = Origin::Variable("UV_INSECURE_HOST".to_owned());
        found.insecure_hosts = value
            .split_whitespace()
            .map(|item| sourced(host_of(item), &origin))
            .collect();
    }
    if let Some(value) = inputs.var("UV_HTTP_TIMEOUT") {
        found.timeout = Some(sourced(
            value.to_owned(),
            &Origin::Variable("UV_HTTP_TIMEOUT".to_owned()),
        ));
    }
    Ok(())
}

fn sourced(text: String, origin: &Origin) -> Sourced {
    Sourced {
        text,
        origin: origin.clone(),
    }
}

/// `host[:port]` of an insecure-host entry, which uv also takes as a URL.
fn host_of(entry: &str) -> String {
    match url::Url::parse(entry) {
        Ok(url) if url.has_host() => match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            _ => entry.to_owned(),
        },
        _ => entry.to_owned(),
    }
}

/// The index URL with `UV_INDEX_<NAME>_USERNAME` and `_PASSWORD` put in, when set.
fn with_credentials(
    inputs: &HostInputs<'_>,
    index: &Sourced,
    name: &str,
) -> Result<String, HostConfigError> {
    let prefix: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    let username = inputs.var(&format!("UV_INDEX_{prefix}_USERNAME"));
    let password = inputs.var(&format!("UV_INDEX_{prefix}_PASSWORD"));
    if username.is_none() && password.is_none() {
        return Ok(index.text.clone());
    }
    let bad = || HostConfigError::BadValue {
        key: "index-url",
        origin: index.origin.to_string(),
        problem: "is not an address its credentials can be added to".to_owned(),
    };
    let mut url = url::Url::parse(index.text.trim()).map_err(|_| bad())?;
    url.set_username(username.unwrap_or_default())
        .map_err(|()| bad())?;
    url.set_password(password).map_err(|()| bad())?;
    Ok(url.to_string())
}
