//! Finding the workspace and its configuration file in real folders.

use std::path::PathBuf;

use crate::common::Scratch;
use hailer_config::{
    ClientEnv, Origin, Overrides, WorkspaceSource, find_config_file, find_workspace, load,
};

#[test]
fn the_nearest_marked_ancestor_is_the_workspace() {
    let scratch = Scratch::new();
    let deep = scratch.mkdir("a/b/c");
    let found = find_workspace(&deep, &Overrides::default(), &ClientEnv::new()).unwrap();
    assert_eq!(found.root, scratch.workspace());
    assert_eq!(
        found.found_by,
        WorkspaceSource::Marker {
            file: PathBuf::from("pyproject.toml")
        }
    );

    // A nearer folder with its own hailer.toml wins.
    scratch.write("a/hailer.toml", b"");
    let found = find_workspace(&deep, &Overrides::default(), &ClientEnv::new()).unwrap();
    assert_eq!(found.root, scratch.workspace().join("a"));
    assert_eq!(
        found.found_by,
        WorkspaceSource::Marker {
            file: PathBuf::from("hailer.toml")
        }
    );

    // So does one with .config/hailer/hailer.toml.
    scratch.write("a/b/.config/hailer/hailer.toml", b"");
    let found = find_workspace(&deep, &Overrides::default(), &ClientEnv::new()).unwrap();
    assert_eq!(found.root, scratch.workspace().join("a/b"));
}

#[test]
fn a_folder_named_like_a_marker_does_not_count() {
    let scratch = Scratch::new();
    let inner = scratch.mkdir("x/hailer.toml");
    let found = find_workspace(&inner, &Overrides::default(), &ClientEnv::new()).unwrap();
    assert_eq!(found.root, scratch.workspace());
}

#[test]
fn without_a_marker_the_current_folder_is_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap().join("plain");
    std::fs::create_dir_all(&cwd).unwrap();
    let found = find_workspace(&cwd, &Overrides::default(), &ClientEnv::new()).unwrap();
    assert_eq!(
        found.found_by,
        WorkspaceSource::CurrentFolder,
        "a parent of the temporary folder holds a workspace marker; remove it to run this test"
    );
    assert_eq!(found.root, cwd);
}

#[test]
fn flag_beats_variable_beats_marker() {
    let scratch = Scratch::new();
    let by_env = scratch.mkdir("env-ws");
    let by_flag = scratch.mkdir("flag-ws");
    let env = ClientEnv::from_pairs([("HAILER_WORKSPACE", "env-ws")]);
    let cwd = scratch.workspace();

    let found = find_workspace(&cwd, &Overrides::default(), &env).unwrap();
    assert_eq!(
        (found.root, found.found_by),
        (by_env, WorkspaceSource::Environment)
    );

    let flags = Overrides {
        workspace: Some("flag-ws".into()),
        ..Overrides::default()
    };
    let found = find_workspace(&cwd, &flags, &env).unwrap();
    assert_eq!(
        (found.root, found.found_by),
        (by_flag, WorkspaceSource::Flag)
    );
}

#[test]
fn a_missing_workspace_folder_is_a_problem_naming_its_source() {
    let scratch = Scratch::new();
    let env = ClientEnv::from_pairs([("HAILER_WORKSPACE", "nowhere")]);
    let problem = find_workspace(&scratch.workspace(), &Overrides::default(), &env).unwrap_err();
    assert_eq!(
        problem.origin,
        Origin::Environment {
            variable: "HAILER_WORKSPACE".into()
        }
    );
    assert!(problem.message.contains("does not exist"), "{problem}");
    assert!(problem.hint.contains("unset it"), "{problem}");

    let mut inputs = scratch.inputs();
    inputs.overrides.workspace = Some("nowhere".into());
    let error = load(&inputs).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("command line: the workspace folder"),
        "{error}"
    );
}

#[test]
fn config_file_order() {
    let scratch = Scratch::new();
    let ws = scratch.workspace();
    let none = Overrides::default();
    let no_env = ClientEnv::new();
    assert_eq!(find_config_file(&ws, &ws, &none, &no_env).unwrap(), None);

    let nested = scratch.write(".config/hailer/hailer.toml", b"");
    assert_eq!(
        find_config_file(&ws, &ws, &none, &no_env).unwrap(),
        Some(nested)
    );

    let top = scratch.write("hailer.toml", b"");
    assert_eq!(
        find_config_file(&ws, &ws, &none, &no_env).unwrap(),
        Some(top)
    );

    // HAILER_CONFIG is relative to the workspace, even when the client runs elsewhere.
    let custom = scratch.write("conf/team.toml", b"");
    let elsewhere = scratch.mkdir("sub");
    let env = ClientEnv::from_pairs([("HAILER_CONFIG", "conf/team.toml")]);
    assert_eq!(
        find_config_file(&ws, &elsewhere, &none, &env).unwrap(),
        Some(custom)
    );

    // --config is relative to the current folder and wins over the variable.
    let mine = scratch.write("sub/mine.toml", b"");
    let flag = Overrides {
        config: Some("mine.toml".into()),
        ..Overrides::default()
    };
    assert_eq!(
        find_config_file(&ws, &elsewhere, &flag, &env).unwrap(),
        Some(mine)
    );
}

#[test]
fn a_named_config_file_must_exist() {
    let scratch = Scratch::new();
    let ws = scratch.workspace();
    let env = ClientEnv::from_pairs([("HAILER_CONFIG", "missing.toml")]);
    let problem = find_config_file(&ws, &ws, &Overrides::default(), &env).unwrap_err();
    assert!(
        problem.message.contains("missing.toml does not exist"),
        "{problem}"
    );
    assert!(problem.hint.contains("HAILER_CONFIG"), "{problem}");

    let flag = Overrides {
        config: Some("gone.toml".into()),
        ..Overrides::default()
    };
    let problem = find_config_file(&ws, &ws, &flag, &ClientEnv::new()).unwrap_err();
    assert_eq!(
        problem.origin,
        Origin::Flag {
            flag: "--config".into()
        }
    );
}

#[test]
fn messages_name_the_file_that_was_read() {
    let scratch = Scratch::new();
    scratch.write(".config/hailer/hailer.toml", b"[kernel]\n\ncpus = 0\n");
    let error = load(&scratch.inputs()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(".config/hailer/hailer.toml, line 3: [kernel] cpus = 0"),
        "{error}"
    );
    let loaded_elsewhere = {
        let outside = tempfile::tempdir().unwrap();
        let file = outside.path().join("shared.toml");
        std::fs::write(&file, b"[model]\nname = 5\n").unwrap();
        let mut inputs = scratch.inputs();
        inputs.overrides.config = Some(file.clone());
        (load(&inputs).unwrap_err().to_string(), file)
    };
    assert!(
        loaded_elsewhere
            .0
            .starts_with(&format!("{}, line 2:", loaded_elsewhere.1.display())),
        "{}",
        loaded_elsewhere.0
    );
}

#[test]
fn paths_resolve_against_the_workspace_not_the_current_folder() {
    let scratch = Scratch::with_config(b"[hailer]\ndata_dir = \"inputs\"\n");
    let deep = scratch.mkdir("notebooks/drafts");
    let loaded = load(&scratch.inputs_in(&deep)).unwrap();
    assert_eq!(loaded.workspace.root, scratch.workspace());
    assert_eq!(
        loaded.config.hailer.data_dir,
        scratch.workspace().join("inputs")
    );
}

#[test]
fn an_unreadable_config_file_is_a_problem_not_a_panic() {
    let scratch = Scratch::new();
    let huge = vec![b'#'; hailer_config::MAX_CONFIG_BYTES + 10];
    scratch.write("hailer.toml", &huge);
    let error = load(&scratch.inputs()).unwrap_err();
    assert!(error.to_string().contains("more than the"), "{error}");
}
