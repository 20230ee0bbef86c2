//! The docker data-folder rules, on real folders and symlinks.

use std::path::{Path, PathBuf};

use hailer_config::{AppDataDirs, Exposed, MountReason, Relation, check_data_dir_mount};

/// Mounted, or refused for exposing something.
type Outcome = Result<(), (Exposed, Relation)>;

/// A machine in a temporary folder: a home with credential folders and a workspace inside it.
struct Machine {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Machine {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for folder in [
            "home/u/.ssh/keys",
            "home/u/.aws",
            "home/u/.config/gcloud",
            "home/u/.kube",
            "home/u/projects/ws/data/2024",
            "home/u/projects/ws/.hailer/notebook-backups",
            "home/u/projects/ws/.config/hailer/context",
            "home/u/projects/ws/.config/hailer/skills",
            "home/u/projects/ws/.config/hailer/prompts",
            "home/u/datasets/sales",
            "srv/shared/data",
        ] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        std::fs::write(root.join("home/u/projects/ws/hailer.toml"), "").unwrap();
        Self { _dir: dir, root }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn link(&self, link: &str, target: &str) -> PathBuf {
        let link = self.path(link);
        std::os::unix::fs::symlink(self.path(target), &link).unwrap();
        link
    }

    fn check(&self, data: &Path) -> Outcome {
        let ws = self.path("home/u/projects/ws");
        let hailer_dirs = [
            ws.join(".config/hailer/context"),
            ws.join(".config/hailer/skills"),
            ws.join(".config/hailer/prompts"),
        ];
        let dirs: Vec<&Path> = hailer_dirs.iter().map(PathBuf::as_path).collect();
        check_data_dir_mount(
            data,
            &ws,
            Some(&self.path("home/u")),
            Some(&ws.join("hailer.toml")),
            &dirs,
            &AppDataDirs::default(),
        )
        .map_err(|refusal| match refusal.reason {
            MountReason::Exposes { what, relation, .. } => (what, relation),
            other => panic!("unexpected reason {other:?}"),
        })
    }
}

#[test]
fn table_of_data_folders() {
    let m = Machine::new();
    let ws = "home/u/projects/ws";
    let cases: Vec<(String, Outcome)> = vec![
        (format!("{ws}/data"), Ok(())),
        (format!("{ws}/data/2024"), Ok(())),
        (format!("{ws}/data/not-yet-created"), Ok(())),
        ("home/u/datasets/sales".into(), Ok(())),
        ("srv/shared/data".into(), Ok(())),
        ("home/u".into(), Err((Exposed::Home, Relation::Is))),
        ("home".into(), Err((Exposed::Home, Relation::Contains))),
        (ws.into(), Err((Exposed::Workspace, Relation::Is))),
        (
            "home/u/projects".into(),
            Err((Exposed::Workspace, Relation::Contains)),
        ),
        (
            format!("{ws}/.hailer"),
            Err((Exposed::HailerState, Relation::Is)),
        ),
        (
            format!("{ws}/.hailer/notebook-backups"),
            Err((Exposed::HailerState, Relation::Inside)),
        ),
        (
            format!("{ws}/.config/hailer/context"),
            Err((Exposed::HailerFolder, Relation::Is)),
        ),
        (
            format!("{ws}/.config"),
            Err((Exposed::HailerFolder, Relation::Contains)),
        ),
        (
            "home/u/.ssh".into(),
            Err((Exposed::Credentials(".ssh"), Relation::Is)),
        ),
        (
            "home/u/.ssh/keys".into(),
            Err((Exposed::Credentials(".ssh"), Relation::Inside)),
        ),
        (
            "home/u/.aws".into(),
            Err((Exposed::Credentials(".aws"), Relation::Is)),
        ),
        (
            "home/u/.config/gcloud".into(),
            Err((Exposed::Credentials(".config"), Relation::Inside)),
        ),
        (
            "home/u/.kube/../.kube".into(),
            Err((Exposed::Credentials(".kube"), Relation::Is)),
        ),
        (
            "home/u/.gnupg".into(),
            Err((Exposed::Credentials(".gnupg"), Relation::Is)),
        ),
    ];
    for (data, expected) in cases {
        assert_eq!(m.check(&m.path(&data)), expected, "{data}");
    }
}

#[test]
fn the_configuration_file_may_not_be_exposed() {
    let m = Machine::new();
    let ws = m.path("home/u/projects/ws");
    let outside_config = m.path("srv/shared/data/hailer.toml");
    std::fs::write(&outside_config, "").unwrap();
    let refusal = check_data_dir_mount(
        &m.path("srv/shared/data"),
        &ws,
        None,
        Some(&outside_config),
        &[],
        &AppDataDirs::default(),
    )
    .unwrap_err();
    assert!(matches!(
        refusal.reason,
        MountReason::Exposes {
            what: Exposed::ConfigFile,
            relation: Relation::Contains,
            ..
        }
    ));
    assert!(
        refusal
            .to_string()
            .contains("contains the configuration file"),
        "{refusal}"
    );
}

#[test]
fn symlinks_are_followed_before_comparing() {
    let m = Machine::new();
    let ws = "home/u/projects/ws";
    let to_home = m.link(&format!("{ws}/data-home"), "home/u");
    assert_eq!(m.check(&to_home), Err((Exposed::Home, Relation::Is)));

    let to_ssh = m.link("srv/ssh-link", "home/u/.ssh");
    assert_eq!(
        m.check(&to_ssh),
        Err((Exposed::Credentials(".ssh"), Relation::Is))
    );

    // A folder that does not exist yet, below a link into ~/.aws.
    let to_aws = m.link("srv/aws-link", "home/u/.aws");
    assert_eq!(
        m.check(&to_aws.join("later")),
        Err((Exposed::Credentials(".aws"), Relation::Inside))
    );

    // A linked data folder that points at ordinary data is fine.
    let to_sales = m.link(&format!("{ws}/sales"), "home/u/datasets/sales");
    assert_eq!(m.check(&to_sales), Ok(()));
}

#[test]
fn a_symlinked_workspace_is_recognised_through_its_link() {
    let m = Machine::new();
    let link = m.link("srv/ws-link", "home/u/projects/ws");
    let refusal = check_data_dir_mount(
        &m.path("home/u/projects/ws"),
        &link,
        None,
        None,
        &[],
        &AppDataDirs::default(),
    )
    .unwrap_err();
    assert!(matches!(
        refusal.reason,
        MountReason::Exposes {
            what: Exposed::Workspace,
            relation: Relation::Is,
            ..
        }
    ));
}

#[test]
fn the_root_folder_is_refused() {
    let m = Machine::new();
    let refusal = check_data_dir_mount(
        Path::new("/"),
        &m.path("home/u/projects/ws"),
        None,
        None,
        &[],
        &AppDataDirs::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.reason, MountReason::DriveRoot);
    assert!(refusal.hint().contains("data_dir"));
}

#[test]
fn messages_name_both_folders_and_the_fix() {
    let m = Machine::new();
    let ws = m.path("home/u/projects/ws");
    let refusal = check_data_dir_mount(
        &m.path("home/u/.ssh/keys"),
        &ws,
        Some(&m.path("home/u")),
        None,
        &[],
        &AppDataDirs::default(),
    )
    .unwrap_err();
    let text = refusal.to_string();
    assert!(
        text.contains(&m.path("home/u/.ssh/keys").display().to_string()),
        "{text}"
    );
    assert!(
        text.contains("is inside ~/.ssh, which holds credentials"),
        "{text}"
    );
    assert!(refusal.hint().contains("[hailer].data_dir"));
}
