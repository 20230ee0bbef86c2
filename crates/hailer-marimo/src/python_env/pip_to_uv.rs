//! pip's settings for `pip install` in uv's terms: the index, extra indexes, find-links,
//! no-index, trusted hosts, the CA file, the proxy, the timeout and retries each have a uv
//! option or variable. A setting uv has no option for keeps pip, and is named.

/// One of pip's settings for `pip install`, as pip reads it (a configuration file's `[global]`
/// or `[install]`, or a `PIP_*` variable). `Debug` shows no value: an index address may hold a
/// password.
#[derive(Clone, PartialEq, Eq)]
pub struct PipSetting {
    /// The name as pip normalises it: lower case, `-` for `_` (`index-url`).
    pub name: String,
    /// The value as written.
    pub value: String,
    /// Where it came from, for messages: a file's path or `the variable PIP_...`.
    pub origin: String,
}

impl std::fmt::Debug for PipSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipSetting")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// pip's settings as uv's arguments and variables, for both `uv venv` and `uv pip install`.
/// Index addresses go in variables, never in arguments other processes can list. `Debug`
/// names the variables only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct UvOptions {
    /// Arguments (`--find-links`, `--allow-insecure-host`, `--no-index`).
    pub args: Vec<String>,
    /// Variables set for uv (`UV_INDEX_URL`, `SSL_CERT_FILE`, `HTTPS_PROXY`, ...).
    pub env: Vec<(String, String)>,
    /// pip's settings read no index: only find-links.
    pub no_index: bool,
    /// How many of pip's settings were carried over.
    pub carried: usize,
}

impl std::fmt::Debug for UvOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UvOptions")
            .field("args", &self.args.len())
            .field(
                "env",
                &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            )
            .field("no_index", &self.no_index)
            .finish()
    }
}

/// Settings that change nothing about what is installed or where it comes from.
const HARMLESS: [&str; 16] = [
    "config-file",
    "disable-pip-version-check",
    "no-input",
    "quiet",
    "verbose",
    "progress-bar",
    "no-color",
    "no-cache-dir",
    "cache-dir",
    "require-virtualenv",
    "root-user-action",
    "no-python-version-warning",
    "log",
    "exists-action",
    "no-warn-script-location",
    "python-version-warning",
];

/// pip's truth values.
fn truth(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "t" | "true" | "on" | "1" => Some(true),
        "n" | "no" | "f" | "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// pip's `settings` in uv's terms; `Err` names the first one uv cannot take, as a phrase
/// (`pip's client-cert (from /etc/pip.conf), which uv has no option for`).
pub(super) fn translate(settings: &[PipSetting]) -> Result<UvOptions, String> {
    let mut options = UvOptions::default();
    let mut extra_indexes: Vec<&str> = Vec::new();
    for setting in settings {
        let value = setting.value.trim();
        let name = setting.name.as_str();
        if HARMLESS.contains(&name) || value.is_empty() {
            continue;
        }
        let mut set = |variable: &str| {
            options.env.push((variable.to_owned(), value.to_owned()));
        };
        match name {
            "index-url" | "i" => set("UV_INDEX_URL"),
            "extra-index-url" => extra_indexes.extend(value.split_whitespace()),
            "find-links" | "f" => {
                for place in value.split_whitespace() {
                    options.args.push("--find-links".to_owned());
                    options.args.push(place.to_owned());
                }
            }
            "trusted-host" => {
                for host in value.split_whitespace() {
                    options.args.push("--allow-insecure-host".to_owned());
                    options.args.push(host.to_owned());
                }
            }
            "no-index" => match truth(value) {
                Some(true) => {
                    options.no_index = true;
                    options.args.push("--no-index".to_owned());
                }
                Some(false) => {}
                None => return Err(untranslatable(setting, "whose value is not yes or no")),
            },
            "cert" => set("SSL_CERT_FILE"),
            "proxy" => {
                set("HTTPS_PROXY");
                set("HTTP_PROXY");
            }
            "timeout" | "default-timeout" => set("UV_HTTP_TIMEOUT"),
            "retries" => set("UV_HTTP_RETRIES"),
            _ => return Err(untranslatable(setting, "which uv has no option for")),
        }
        options.carried += 1;
    }
    if !extra_indexes.is_empty() {
        options
            .env
            .push(("UV_EXTRA_INDEX_URL".to_owned(), extra_indexes.join(" ")));
    }
    Ok(options)
}

fn untranslatable(setting: &PipSetting, why: &str) -> String {
    format!("pip's {} (from {}), {why}", setting.name, setting.origin)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn setting(name: &str, value: &str) -> PipSetting {
        PipSetting {
            name: name.to_owned(),
            value: value.to_owned(),
            origin: "/etc/pip.conf".to_owned(),
        }
    }

    fn variable<'a>(options: &'a UvOptions, name: &str) -> Option<&'a str> {
        options
            .env
            .iter()
            .find(|(variable, _)| variable == name)
            .map(|(_, value)| value.as_str())
    }

    #[test]
    fn every_index_and_network_setting_has_a_uv_form() {
        let options = translate(&[
            setting("index-url", "https://user:pw@mirror.example/simple"),
            setting(
                "extra-index-url",
                "https://a.example/simple https://b.example/simple",
            ),
            setting("find-links", "/opt/wheels https://c.example/wheels"),
            setting("trusted-host", "mirror.example"),
            setting("cert", "/etc/company-ca.pem"),
            setting("proxy", "http://proxy:3128"),
            setting("timeout", "60"),
            setting("retries", "3"),
            setting("disable-pip-version-check", "1"),
        ])
        .unwrap();
        assert_eq!(
            variable(&options, "UV_INDEX_URL"),
            Some("https://user:pw@mirror.example/simple")
        );
        assert_eq!(
            variable(&options, "UV_EXTRA_INDEX_URL"),
            Some("https://a.example/simple https://b.example/simple")
        );
        assert_eq!(
            variable(&options, "SSL_CERT_FILE"),
            Some("/etc/company-ca.pem")
        );
        assert_eq!(variable(&options, "HTTPS_PROXY"), Some("http://proxy:3128"));
        assert_eq!(variable(&options, "UV_HTTP_TIMEOUT"), Some("60"));
        assert_eq!(variable(&options, "UV_HTTP_RETRIES"), Some("3"));
        assert_eq!(
            options.args,
            [
                "--find-links",
                "/opt/wheels",
                "--find-links",
                "https://c.example/wheels",
                "--allow-insecure-host",
                "mirror.example"
            ]
        );
        assert!(!options.no_index);
        assert_eq!(options.carried, 8);
        // The index's password never shows in Debug.
        assert!(!format!("{options:?}").contains("pw@"));
        assert!(!format!("{:?}", setting("index-url", "https://u:pw@x")).contains("pw@"));
    }

    #[test]
    fn no_index_is_an_argument_and_a_setting_uv_cannot_take_is_named() {
        let options = translate(&[setting("no-index", "yes")]).unwrap();
        assert!(options.no_index);
        assert_eq!(options.args, ["--no-index"]);
        assert!(
            translate(&[setting("no-index", "off")])
                .unwrap()
                .args
                .is_empty()
        );
        let refused = translate(&[setting("client-cert", "/etc/me.pem")]).unwrap_err();
        assert_eq!(
            refused,
            "pip's client-cert (from /etc/pip.conf), which uv has no option for"
        );
        assert!(translate(&[setting("no-index", "maybe")]).is_err());
    }
}
