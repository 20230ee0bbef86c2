#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use secrecy::ExposeSecret as _;

use super::*;

const HOME: &str = "/home/ana";
const CWD: &str = "/home/ana/work/project";
const SECRET: &str = "s3cr3t-pw";

/// Runs discovery over `files` and `env` (HOME is set unless `env` sets it).
fn discover_with(
    env: &[(&str, &str)],
    files: &[(&str, &[u8])],
) -> Result<HostSettings, HostConfigError> {
    let mut vars: BTreeMap<String, String> = BTreeMap::from([("HOME".to_owned(), HOME.to_owned())]);
    for (name, value) in env {
        vars.insert((*name).to_owned(), (*value).to_owned());
    }
    let files: BTreeMap<PathBuf, Vec<u8>> = files
        .iter()
        .map(|(path, bytes)| (PathBuf::from(path), bytes.to_vec()))
        .collect();
    let read = move |path: &Path| -> std::io::Result<Option<Vec<u8>>> {
        if path == Path::new("/locked/pip.conf") {
            return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        }
        Ok(files.get(path).cloned())
    };
    discover(&HostInputs {
        env: &vars,
        cwd: Path::new(CWD),
        read: &read,
    })
}

fn conf_of(settings: &HostSettings) -> String {
    settings
        .pip_conf
        .as_ref()
        .map(|conf| conf.expose_secret().to_owned())
        .unwrap_or_default()
}

/// The `name = value` lines of the written pip.conf.
fn lines_of(settings: &HostSettings) -> Vec<String> {
    conf_of(settings)
        .lines()
        .filter(|line| line.contains(" = "))
        .map(str::to_owned)
        .collect()
}

struct Found {
    name: &'static str,
    env: &'static [(&'static str, &'static str)],
    files: &'static [(&'static str, &'static [u8])],
    lines: &'static [&'static str],
    pip: usize,
    uv: usize,
    ca: Option<&'static str>,
}

#[test]
fn settings_are_found_where_pip_and_uv_look() {
    let cases = [
        Found {
            name: "nothing anywhere",
            env: &[],
            files: &[],
            lines: &[],
            pip: 0,
            uv: 0,
            ca: None,
        },
        Found {
            name: "the user's pip.conf",
            env: &[],
            files: &[(
                "/home/ana/.config/pip/pip.conf",
                b"[global]\nindex-url = https://ana:s3cr3t-pw@mirror.example/simple\ntrusted-host = mirror.example\nkeyring-provider = subprocess\n",
            )],
            lines: &[
                "index-url = https://ana:s3cr3t-pw@mirror.example/simple",
                "trusted-host = mirror.example",
            ],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "[install] of an earlier file wins over [global] of a later one",
            env: &[],
            files: &[
                ("/etc/pip.conf", b"[install]\nindex-url = https://install.example/simple\n"),
                ("/home/ana/.config/pip/pip.conf", b"[global]\nindex-url = https://global.example/simple\n"),
            ],
            lines: &["index-url = https://install.example/simple"],
            pip: 1,
            uv: 0,
            ca: None,
        },
        Found {
            name: "a later file wins within a section; XDG_CONFIG_DIRS before /etc",
            env: &[("XDG_CONFIG_DIRS", "/opt/xdg")],
            files: &[
                ("/opt/xdg/pip/pip.conf", b"[global]\ntimeout = 5\nretries = 2\n"),
                ("/etc/pip.conf", b"[global]\ntimeout = 60\n"),
            ],
            lines: &["timeout = 60", "retries = 2"],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "variables win over files; names in any spelling",
            env: &[("PIP_INDEX_URL", "https://env.example/simple"), ("PIP_Timeout", "9")],
            files: &[("/etc/pip.conf", b"[global]\nIndex_URL = https://file.example/simple\n")],
            lines: &["index-url = https://env.example/simple", "timeout = 9"],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "PIP_CONFIG_FILE that exists hides the user files",
            env: &[("PIP_CONFIG_FILE", "/home/ana/company.ini")],
            files: &[
                ("/home/ana/.config/pip/pip.conf", b"[global]\nindex-url = https://user.example/simple\n"),
                ("/home/ana/company.ini", b"[global]\nproxy = http://proxy.example:3128\n"),
                ("/etc/pip.conf", b"[global]\nretries = 1\n"),
            ],
            lines: &["proxy = http://proxy.example:3128", "retries = 1"],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "PIP_CONFIG_FILE that does not exist hides nothing",
            env: &[("PIP_CONFIG_FILE", "/nowhere/pip.conf")],
            files: &[("/home/ana/.config/pip/pip.conf", b"[global]\nindex-url = https://user.example/simple\n")],
            lines: &["index-url = https://user.example/simple"],
            pip: 1,
            uv: 0,
            ca: None,
        },
        Found {
            name: "PIP_CONFIG_FILE=/dev/null skips every file, not the variables",
            env: &[("PIP_CONFIG_FILE", "/dev/null"), ("PIP_RETRIES", "4"), ("PIP_DEFAULT_TIMEOUT", "12")],
            files: &[
                ("/home/ana/.config/pip/pip.conf", b"[global]\nindex-url = https://user.example/simple\n"),
                ("/etc/pip.conf", b"[global]\nindex-url = https://etc.example/simple\n"),
            ],
            lines: &["retries = 4", "timeout = 12"],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "the legacy user file loses to the new one; the virtual environment's wins",
            env: &[("VIRTUAL_ENV", "/home/ana/venv"), ("XDG_CONFIG_HOME", "/home/ana/xdg")],
            files: &[
                ("/home/ana/.pip/pip.conf", b"[global]\ntimeout = 1\nretries = 1\nproxy = http://legacy:1\n"),
                ("/home/ana/xdg/pip/pip.conf", b"[global]\ntimeout = 2\nretries = 2\n"),
                ("/home/ana/venv/pip.conf", b"[global]\ntimeout = 3\n"),
            ],
            lines: &["proxy = http://legacy:1", "timeout = 3", "retries = 2"],
            pip: 3,
            uv: 0,
            ca: None,
        },
        Found {
            name: "lists, [DEFAULT], empty values ignored, local find-links left out",
            env: &[("PIP_EXTRA_INDEX_URL", "https://a.example/simple   https://b.example/simple")],
            files: &[(
                "/etc/pip.conf",
                b"[DEFAULT]\nno-index = off\n[global]\nfind-links =\n    /srv/wheels\n    https://links.example/wheels/\nproxy =\n",
            )],
            lines: &[
                "extra-index-url = https://a.example/simple https://b.example/simple",
                "find-links = https://links.example/wheels/",
            ],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "no-index as pip spells yes",
            env: &[("PIP_NO_INDEX", "yes"), ("PIP_FIND_LINKS", "https://links.example/")],
            files: &[],
            lines: &["no-index = true", "find-links = https://links.example/"],
            pip: 2,
            uv: 0,
            ca: None,
        },
        Found {
            name: "pip's cert wins over REQUESTS_CA_BUNDLE, relative to the current folder",
            env: &[("REQUESTS_CA_BUNDLE", "/etc/ssl/requests.pem")],
            files: &[
                ("/etc/pip.conf", b"[global]\ncert = certs/company.pem\n"),
                ("/home/ana/work/project/certs/company.pem", b"pem"),
                ("/etc/ssl/requests.pem", b"pem"),
            ],
            lines: &[],
            pip: 0,
            uv: 0,
            ca: Some("/home/ana/work/project/certs/company.pem"),
        },
        Found {
            name: "REQUESTS_CA_BUNDLE wins over SSL_CERT_FILE",
            env: &[("REQUESTS_CA_BUNDLE", "~/ca.pem"), ("SSL_CERT_FILE", "/etc/ssl/cert.pem")],
            files: &[("/home/ana/ca.pem", b"pem"), ("/etc/ssl/cert.pem", b"pem")],
            lines: &[],
            pip: 0,
            uv: 0,
            ca: Some("/home/ana/ca.pem"),
        },
        Found {
            name: "SSL_CERT_FILE alone",
            env: &[("SSL_CERT_FILE", "/etc/ssl/cert.pem")],
            files: &[("/etc/ssl/cert.pem", b"pem")],
            lines: &[],
            pip: 0,
            uv: 0,
            ca: Some("/etc/ssl/cert.pem"),
        },
        Found {
            name: "uv's user file when pip names no index; pip's other settings stay",
            env: &[("PIP_TIMEOUT", "20")],
            files: &[(
                "/home/ana/.config/uv/uv.toml",
                b"index-url = \"https://uv.example/simple\"\nallow-insecure-host = [\"https://uv.example:8443\"]\n",
            )],
            lines: &[
                "index-url = https://uv.example/simple",
                "trusted-host = uv.example:8443",
                "timeout = 20",
            ],
            pip: 1,
            uv: 2,
            ca: None,
        },
        Found {
            name: "pip's index wins and uv is not read",
            env: &[("PIP_INDEX_URL", "https://pip.example/simple")],
            files: &[(
                "/home/ana/.config/uv/uv.toml",
                b"extra-index-url = [\"https://extra.example/simple\"]\n",
            )],
            lines: &["index-url = https://pip.example/simple"],
            pip: 1,
            uv: 0,
            ca: None,
        },
        Found {
            name: "the nearest project file; uv.toml before pyproject.toml in one folder",
            env: &[],
            files: &[
                ("/home/ana/work/project/pyproject.toml", b"[project]\nname = \"p\"\n"),
                ("/home/ana/work/pyproject.toml", b"[tool.uv]\nindex-url = \"https://pyproject.example/simple\"\n"),
                ("/home/ana/work/uv.toml", b"[pip]\nindex-url = \"https://uvtoml.example/simple\"\n"),
                ("/home/ana/uv.toml", b"index-url = \"https://farther.example/simple\"\n"),
                ("/home/ana/.config/uv/uv.toml", b"index-url = \"https://user.example/simple\"\nno-index = false\n"),
            ],
            lines: &["index-url = https://uvtoml.example/simple"],
            pip: 0,
            uv: 1,
            ca: None,
        },
        Found {
            name: "[tool.uv] of a pyproject.toml, and the system file",
            env: &[],
            files: &[
                ("/home/ana/work/project/pyproject.toml", b"[tool.uv]\nfind-links = [\"https://links.example/\"]\n[[tool.uv.index]]\nname = \"corp\"\nurl = \"https://corp.example/simple\"\ndefault = true\n"),
                ("/etc/xdg/uv/uv.toml", b"index-url = \"https://system.example/simple\"\nno-index = false\n"),
            ],
            lines: &[
                "index-url = https://corp.example/simple",
                "find-links = https://links.example/",
            ],
            pip: 0,
            uv: 2,
            ca: None,
        },
        Found {
            name: "a named default index gets its credential variables",
            env: &[("UV_INDEX_CORP_MIRROR_USERNAME", "ana"), ("UV_INDEX_CORP_MIRROR_PASSWORD", "s3cr3t-pw")],
            files: &[(
                "/home/ana/.config/uv/uv.toml",
                b"[[index]]\nname = \"corp-mirror\"\nurl = \"https://corp.example/simple\"\ndefault = true\n",
            )],
            lines: &["index-url = https://ana:s3cr3t-pw@corp.example/simple"],
            pip: 0,
            uv: 1,
            ca: None,
        },
        Found {
            name: "uv's variables win; UV_DEFAULT_INDEX before UV_INDEX_URL",
            env: &[
                ("UV_DEFAULT_INDEX", "https://default.example/simple"),
                ("UV_INDEX_URL", "https://legacy.example/simple"),
                ("UV_NO_INDEX", "0"),
                ("UV_FIND_LINKS", "https://a.example/, https://b.example/"),
                ("UV_INSECURE_HOST", "default.example other.example:81"),
                ("UV_HTTP_TIMEOUT", "45"),
            ],
            files: &[("/home/ana/.config/uv/uv.toml", b"index-url = \"https://file.example/simple\"\n")],
            lines: &[
                "index-url = https://default.example/simple",
                "find-links = https://a.example/ https://b.example/",
                "trusted-host = default.example other.example:81",
                "timeout = 45",
            ],
            pip: 0,
            uv: 4,
            ca: None,
        },
        Found {
            name: "UV_NO_CONFIG skips uv's files",
            env: &[("UV_NO_CONFIG", "1")],
            files: &[("/home/ana/.config/uv/uv.toml", b"index-url = \"https://file.example/simple\"\n")],
            lines: &[],
            pip: 0,
            uv: 0,
            ca: None,
        },
        Found {
            name: "UV_CONFIG_FILE replaces uv's discovery",
            env: &[("UV_CONFIG_FILE", "conf/uv.toml")],
            files: &[
                ("/home/ana/work/project/conf/uv.toml", b"index-url = \"https://chosen.example/simple\"\n"),
                ("/home/ana/work/project/uv.toml", b"extra-index-url = [\"https://x.example/\"]\n"),
            ],
            lines: &["index-url = https://chosen.example/simple"],
            pip: 0,
            uv: 1,
            ca: None,
        },
    ];
    for case in cases {
        let found = discover_with(case.env, case.files)
            .unwrap_or_else(|error| panic!("{}: {error}", case.name));
        let mut expected: Vec<String> = case.lines.iter().map(|l| (*l).to_owned()).collect();
        let mut actual = lines_of(&found);
        expected.sort();
        actual.sort();
        assert_eq!(actual, expected, "{}", case.name);
        assert_eq!(
            (found.from_pip, found.from_uv),
            (case.pip, case.uv),
            "{}",
            case.name
        );
        assert_eq!(
            found.ca_file.as_deref(),
            case.ca.map(Path::new),
            "{}",
            case.name
        );
        if let Some(summary) = found.summary() {
            assert!(
                !summary.contains(SECRET) && !summary.contains("example"),
                "{summary}"
            );
        }
        let debug = format!("{found:?}");
        assert!(
            !debug.contains(SECRET) && !debug.contains("example"),
            "{debug}"
        );
    }
}

#[test]
fn the_written_file_sets_install_options_for_the_build_stage() {
    let found = discover_with(&[("PIP_INDEX_URL", "https://m.example/simple")], &[]).unwrap();
    let conf = conf_of(&found);
    assert!(
        conf.contains("\n[install]\nindex-url = https://m.example/simple\n"),
        "{conf}"
    );
    let parsed = ini::parse(&conf).unwrap();
    assert_eq!(
        parsed.section("install").unwrap()["index-url"],
        "https://m.example/simple"
    );
}

#[test]
fn the_summary_counts_without_values() {
    let found = discover_with(
        &[
            ("PIP_INDEX_URL", "https://ana:s3cr3t-pw@m.example/simple"),
            ("PIP_TRUSTED_HOST", "m.example"),
            ("SSL_CERT_FILE", "/etc/ssl/cert.pem"),
        ],
        &[("/etc/ssl/cert.pem", b"pem")],
    )
    .unwrap();
    assert_eq!(
        found.summary().as_deref(),
        Some("Using the host's package index settings (pip: 2 settings, a CA certificate)")
    );
    let uv_only = discover_with(&[("UV_DEFAULT_INDEX", "https://u.example/simple")], &[]).unwrap();
    assert_eq!(
        uv_only.summary().as_deref(),
        Some("Using the host's package index settings (uv: 1 setting)")
    );
    assert_eq!(discover_with(&[], &[]).unwrap().summary(), None);
}

/// A case that must be refused: its name, variables, files, and what the message must say.
type Refused = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [(&'static str, &'static [u8])],
    &'static [&'static str],
);

#[test]
fn unusable_settings_are_refused_naming_where_they_are_never_what() {
    let cases: [Refused; 17] = [
        (
            "a line break in an index address",
            &[("PIP_INDEX_URL", "https://ana:s3cr3t-pw@m.example/simple\n[global]\nproxy = x")],
            &[],
            &["PIP_INDEX_URL", "index-url", "--no-host-config"],
        ),
        (
            "an index that is a folder",
            &[],
            &[("/etc/pip.conf", b"[global]\nindex-url = /srv/s3cr3t-pw/simple\n")],
            &["/etc/pip.conf", "index-url", "--wheelhouse"],
        ),
        (
            "an extra index that is a folder",
            &[("PIP_EXTRA_INDEX_URL", "https://ok.example/ file:///s3cr3t-pw")],
            &[],
            &["PIP_EXTRA_INDEX_URL", "extra-index-url"],
        ),
        (
            "no-index that is neither yes nor no",
            &[("PIP_NO_INDEX", "s3cr3t-pw")],
            &[],
            &["PIP_NO_INDEX", "yes or no"],
        ),
        (
            "a timeout that is not a number",
            &[("PIP_TIMEOUT", "s3cr3t-pw")],
            &[],
            &["PIP_TIMEOUT", "seconds"],
        ),
        (
            "retries that are not a whole number",
            &[],
            &[("/home/ana/.config/pip/pip.conf", b"[install]\nretries = 2.5s3cr3t-pw\n")],
            &["/home/ana/.config/pip/pip.conf", "retries"],
        ),
        (
            "a malformed pip file",
            &[],
            &[("/home/ana/.config/pip/pip.conf", b"[global]\nindex-url = https://m/simple\nhttps//ana@s3cr3t-pw\n")],
            &["/home/ana/.config/pip/pip.conf", "line 3"],
        ),
        (
            "a pip file that is not text",
            &[],
            &[("/etc/pip.conf", b"[global]\nindex-url = \xff\xfe s3cr3t-pw\n")],
            &["/etc/pip.conf", "UTF-8"],
        ),
        (
            "a pip file that cannot be read",
            &[("PIP_CONFIG_FILE", "/locked/pip.conf")],
            &[],
            &["/locked/pip.conf", "cannot read"],
        ),
        (
            "a CA file that is not there",
            &[("PIP_CERT", "/etc/ssl/s3cr3t-pw-missing.pem")],
            &[],
            &["PIP_CERT", "does not exist"],
        ),
        (
            "a malformed uv file",
            &[],
            &[("/home/ana/work/project/uv.toml", b"index-url = \"https://ana:s3cr3t-pw@m/simple\nno-index = true\n")],
            &["/home/ana/work/project/uv.toml", "line 1", "TOML"],
        ),
        (
            "uv's extra index",
            &[],
            &[("/home/ana/.config/uv/uv.toml", b"index-url = \"https://m/simple\"\nextra-index-url = [\"https://ana:s3cr3t-pw@x/simple\"]\n")],
            &["/home/ana/.config/uv/uv.toml", "extra index", "--pip-config"],
        ),
        (
            "uv's additional index",
            &[],
            &[("/home/ana/.config/uv/uv.toml", b"[[index]]\nname = \"more\"\nurl = \"https://ana:s3cr3t-pw@x/simple\"\n")],
            &["additional index", "--pip-config"],
        ),
        (
            "uv's explicit index",
            &[],
            &[("/home/ana/work/project/pyproject.toml", b"[[tool.uv.index]]\nname = \"torch\"\nurl = \"https://x/s3cr3t-pw\"\nexplicit = true\n")],
            &["explicit index", "pyproject.toml"],
        ),
        (
            "uv's per-package routing",
            &[],
            &[("/home/ana/work/project/pyproject.toml", b"[tool.uv.sources]\ntorch = { index = \"s3cr3t-pw\" }\n")],
            &["routing", "--pip-config"],
        ),
        (
            "UV_EXTRA_INDEX_URL",
            &[("UV_EXTRA_INDEX_URL", "https://ana:s3cr3t-pw@x/simple")],
            &[],
            &["UV_EXTRA_INDEX_URL", "--pip-config"],
        ),
        (
            "UV_CONFIG_FILE that is not there",
            &[("UV_CONFIG_FILE", "/nowhere/s3cr3t-pw.toml")],
            &[],
            &["UV_CONFIG_FILE", "does not exist"],
        ),
    ];
    for (name, env, files, needles) in cases {
        let error = match discover_with(env, files) {
            Ok(found) => panic!("{name}: accepted: {found:?}"),
            Err(error) => error.to_string(),
        };
        for needle in needles {
            assert!(
                error.contains(needle),
                "{name}: {needle:?} missing from: {error}"
            );
        }
        // Paths may name the secret in these cases only when the path itself is the subject.
        if !error.contains("does not exist") {
            assert!(!error.contains(SECRET), "{name}: the value leaked: {error}");
        }
    }
}
