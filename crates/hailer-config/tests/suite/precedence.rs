//! flag > environment > file > default, with the client's environment passed explicitly.

use crate::common::Scratch;
use hailer_config::{
    ClientEnv, LoadInputs, LogLevel, Origin, Overrides, Provenance, Runtime, load,
    parse_kernel_flag,
};

const FILE: &[u8] = br#"
[hailer]
log_level = "INFO"
[model]
name = "file-model"
provider = "filep"
[model_providers.filep]
base_url = "https://file.example/v1"
env_key = "FILEP_KEY"
[model_providers.envp]
base_url = "https://env.example/v1"
env_key = "ENVP_KEY"
[model_providers.flagp]
base_url = "https://flag.example/v1"
env_key = "FLAGP_KEY"
[kernel]
runtime = "unsafe-local"
image = "file-image:1"
"#;

fn env() -> ClientEnv {
    ClientEnv::from_pairs([
        ("HAILER_MODEL", "env-model"),
        ("HAILER_MODEL_PROVIDER", "envp"),
        ("HAILER_KERNEL", "docker"),
        ("HAILER_KERNEL_IMAGE", "env-image:1"),
        ("HAILER_LOG_LEVEL", "error"),
    ])
}

fn flags() -> Overrides {
    Overrides {
        model: Some("flag-model".into()),
        provider: Some("flagp".into()),
        kernel: Some("unsafe-local".into()),
        kernel_image: Some("flag-image:1".into()),
        log_level: Some("DEBUG".into()),
        ..Overrides::default()
    }
}

/// (model, provider, runtime, image, log level) and where each came from.
fn effective(inputs: &LoadInputs) -> (Vec<String>, Vec<Provenance>) {
    let loaded = load(inputs).unwrap_or_else(|error| panic!("{error}"));
    let c = &loaded.config;
    let s = loaded.sources;
    (
        vec![
            c.model.name.clone(),
            c.model.provider.clone(),
            c.kernel.runtime.to_string(),
            c.kernel.image.clone().unwrap_or_default(),
            c.hailer.log_level.to_string(),
        ],
        vec![s.model, s.provider, s.runtime, s.image, s.log_level],
    )
}

#[test]
fn defaults_then_file_then_environment_then_flags() {
    let bare = Scratch::new();
    assert_eq!(
        effective(&bare.inputs()),
        (
            vec![
                "gpt-5.5".into(),
                "openai".into(),
                "docker".into(),
                String::new(),
                "WARNING".into()
            ],
            vec![Provenance::Default; 5]
        )
    );

    let scratch = Scratch::trusted_with_config(FILE);
    let mut inputs = scratch.inputs();
    assert_eq!(
        effective(&inputs),
        (
            vec![
                "file-model".into(),
                "filep".into(),
                "unsafe-local".into(),
                "file-image:1".into(),
                "INFO".into()
            ],
            vec![Provenance::File; 5]
        )
    );

    inputs.env = env();
    assert_eq!(
        effective(&inputs),
        (
            vec![
                "env-model".into(),
                "envp".into(),
                "docker".into(),
                "env-image:1".into(),
                "ERROR".into()
            ],
            vec![Provenance::Environment; 5]
        )
    );

    inputs.overrides = flags();
    assert_eq!(
        effective(&inputs),
        (
            vec![
                "flag-model".into(),
                "flagp".into(),
                "unsafe-local".into(),
                "flag-image:1".into(),
                "DEBUG".into()
            ],
            vec![Provenance::Flag; 5]
        )
    );
}

#[test]
fn empty_variables_count_as_unset() {
    let scratch = Scratch::trusted_with_config(FILE);
    let mut inputs = scratch.inputs();
    inputs.env = ClientEnv::from_pairs([("HAILER_MODEL", ""), ("HAILER_KERNEL", "")]);
    let loaded = load(&inputs).unwrap();
    assert_eq!(loaded.config.model.name, "file-model");
    assert_eq!(loaded.config.kernel.runtime, Runtime::UnsafeLocal);
}

#[test]
fn local_is_refused_from_every_source_with_the_fix_for_that_source() {
    let scratch = Scratch::new();
    let mut inputs = scratch.inputs();
    inputs.env = ClientEnv::from_pairs([("HAILER_KERNEL", "local")]);
    let error = load(&inputs).unwrap_err();
    let problem = &error.fatal[0];
    assert_eq!(
        problem.origin,
        Origin::Environment {
            variable: "HAILER_KERNEL".into()
        }
    );
    assert!(
        problem
            .message
            .contains("HAILER_KERNEL=local uses the old name"),
        "{problem}"
    );
    assert!(problem.message.contains("\"unsafe-local\""), "{problem}");
    assert!(
        problem.hint.contains("set HAILER_KERNEL=unsafe-local"),
        "{problem}"
    );
    assert!(problem.hint.contains("unset HAILER_KERNEL"), "{problem}");

    inputs.env = ClientEnv::new();
    inputs.overrides.kernel = Some("local".into());
    let error = load(&inputs).unwrap_err();
    let problem = &error.fatal[0];
    assert_eq!(
        problem.origin,
        Origin::Flag {
            flag: "--kernel".into()
        }
    );
    assert!(
        problem.message.contains("--kernel local uses the old name"),
        "{problem}"
    );
    assert!(
        problem.hint.contains("pass --kernel unsafe-local"),
        "{problem}"
    );

    let early = parse_kernel_flag("local").unwrap_err();
    assert_eq!(early.message, problem.message);
    assert_eq!(
        parse_kernel_flag("unsafe-local").unwrap(),
        Runtime::UnsafeLocal
    );
    assert!(
        parse_kernel_flag("podman")
            .unwrap_err()
            .message
            .contains("is not a kernel runtime")
    );
}

#[test]
fn a_flag_does_not_hide_a_broken_file() {
    let scratch = Scratch::with_config(b"[kernel]\nruntime = \"local\"\n");
    let mut inputs = scratch.inputs();
    inputs.overrides.kernel = Some("docker".into());
    let error = load(&inputs).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("hailer.toml, line 2: [kernel] runtime = \"local\""),
        "{error}"
    );
}

#[test]
fn bad_override_values_name_their_source() {
    let scratch = Scratch::new();
    let mut inputs = scratch.inputs();
    inputs.env = ClientEnv::from_pairs([
        ("HAILER_LOG_LEVEL", "chatty"),
        ("HAILER_MODEL_PROVIDER", "nope"),
    ]);
    inputs.overrides.model = Some("  ".into());
    inputs.overrides.kernel_image = Some("bad image".into());
    let error = load(&inputs).unwrap_err();
    let text = error.to_string();
    for expected in [
        "environment: HAILER_LOG_LEVEL=chatty is not a log level",
        "environment: HAILER_MODEL_PROVIDER=nope names the provider \"nope\", which is not declared",
        "command line: --model \"  \" is empty",
        "command line: --kernel-image \"bad image\" is not an image name",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert_eq!(error.fatal.len(), 4, "{text}");
}

#[test]
fn an_undeclared_provider_in_the_file_is_fine_when_the_environment_chooses_another() {
    let scratch = Scratch::with_config(b"[model]\nprovider = \"gone\"\n");
    let mut inputs = scratch.inputs();
    assert!(load(&inputs).is_err());
    inputs.env = ClientEnv::from_pairs([("HAILER_MODEL_PROVIDER", "openai")]);
    let loaded = load(&inputs).unwrap();
    assert_eq!(loaded.config.model.provider, "openai");
}

#[test]
fn retired_variables_are_named_in_a_warning() {
    let scratch = Scratch::new();
    let mut inputs = scratch.inputs();
    inputs.env = ClientEnv::from_pairs([("HAILER_MARIMO_URL", "http://127.0.0.1:2718")]);
    let loaded = load(&inputs).unwrap();
    assert_eq!(loaded.warnings.len(), 1);
    assert!(
        loaded.warnings[0]
            .message
            .contains("HAILER_MARIMO_URL is no longer read")
    );
    assert_eq!(loaded.config.hailer.log_level, LogLevel::Warning);
}

/// The loader must never read the process environment: only `env.rs` and `inputs.rs` (the
/// client-side helpers) may touch it.
#[test]
fn only_the_client_helpers_read_the_process_environment() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let allowed = ["env.rs", "inputs.rs", "home.rs"]
                .iter()
                .any(|name| path.ends_with(name));
            let reads = [
                "std::env::var",
                "env::vars",
                "std::env::current_dir",
                "std::env::home_dir",
            ]
            .iter()
            .any(|call| text.contains(call));
            if reads && !allowed {
                offenders.push(path.strip_prefix(&src).unwrap().display().to_string());
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these files read the process environment: {offenders:?}"
    );
}

#[test]
fn the_base_image_comes_from_the_flag_then_the_environment_then_the_file() {
    let base = |inputs: &LoadInputs| {
        let loaded = load(inputs).unwrap_or_else(|error| panic!("{error}"));
        (loaded.config.kernel.base_image, loaded.sources.base_image)
    };
    assert_eq!(base(&Scratch::new().inputs()), (None, Provenance::Default));
    let scratch =
        Scratch::trusted_with_config(b"[kernel]\nbase_image = \"file/python:3.13-slim\"\n");
    let mut inputs = scratch.inputs();
    assert_eq!(
        base(&inputs),
        (Some("file/python:3.13-slim".into()), Provenance::File)
    );
    inputs.env = ClientEnv::from_pairs([("HAILER_KERNEL_BASE_IMAGE", "env/python:3.12-slim")]);
    assert_eq!(
        base(&inputs),
        (Some("env/python:3.12-slim".into()), Provenance::Environment)
    );
    inputs.overrides.kernel_base_image = Some("flag/python:3.14-slim".into());
    assert_eq!(
        base(&inputs),
        (Some("flag/python:3.14-slim".into()), Provenance::Flag)
    );
}

#[test]
fn hostile_base_images_are_refused_wherever_they_come_from() {
    for written in [
        "\"python 3.13\"",
        "\"--privileged\"",
        "\"a\\u0000b\"",
        "\"x\\ny\"",
        "3",
        "[\"python\"]",
    ] {
        let scratch =
            Scratch::with_config(format!("[kernel]\nbase_image = {written}\n").as_bytes());
        let error = load(&scratch.inputs()).unwrap_err();
        assert!(
            error.to_string().contains("[kernel] base_image"),
            "{written}: {error}"
        );
    }
    let scratch = Scratch::new();
    // An empty variable is an unset one, as for every HAILER_* variable.
    let mut inputs = scratch.inputs();
    inputs.env = ClientEnv::from_pairs([("HAILER_KERNEL_BASE_IMAGE", "")]);
    assert_eq!(load(&inputs).unwrap().config.kernel.base_image, None);
    for value in ["", "  ", "two words", "-rf", "tab\there"] {
        if !value.is_empty() {
            let mut inputs = scratch.inputs();
            inputs.env = ClientEnv::from_pairs([("HAILER_KERNEL_BASE_IMAGE", value)]);
            let error = load(&inputs).unwrap_err();
            assert!(
                error.to_string().contains("HAILER_KERNEL_BASE_IMAGE"),
                "{value:?}: {error}"
            );
        }
        let mut inputs = scratch.inputs();
        inputs.overrides.kernel_base_image = Some(value.into());
        let error = load(&inputs).unwrap_err();
        assert!(
            error.to_string().contains("--base-image"),
            "{value:?}: {error}"
        );
    }
}
