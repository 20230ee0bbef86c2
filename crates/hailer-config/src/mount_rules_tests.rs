//! The data-folder rules of each system, on paths as that system writes them.
#![allow(clippy::unwrap_used)]

use super::*;

/// A user's machine on `os`: a home folder, a workspace in it, and no links (so every folder
/// resolves to itself).
struct Machine {
    os: Os,
    home: &'static str,
    workspace: &'static str,
}

const LINUX: Machine = Machine {
    os: Os::Linux,
    home: "/home/zoë",
    workspace: "/home/zoë/projects/sales ws",
};
const MACOS: Machine = Machine {
    os: Os::MacOs,
    home: "/Users/Zoë Ås",
    workspace: "/Users/Zoë Ås/Projects/sales ws",
};
const WINDOWS: Machine = Machine {
    os: Os::Windows,
    home: r"C:\Users\Zoë Ås",
    workspace: r"C:\Users\Zoë Ås\Projects\sales ws",
};

impl Machine {
    fn join(&self, base: &str, relative: &str) -> PathBuf {
        let separator = if self.os == Os::Windows { "\\" } else { "/" };
        PathBuf::from(format!(
            "{base}{separator}{}",
            relative.replace('/', separator)
        ))
    }

    fn check(&self, data: &str) -> Result<(), MountReason> {
        self.check_with(data, &AppDataDirs::default())
    }

    /// The rules with the application data folders where `app_data` says they are.
    fn check_with(&self, data: &str, app_data: &AppDataDirs) -> Result<(), MountReason> {
        let ws = self.workspace;
        let credential = credential_folders(self.os, Some(Path::new(self.home)), app_data);
        let folders = MountFolders {
            data_as_given: PathBuf::from(data),
            data: PathBuf::from(data),
            workspace: PathBuf::from(ws),
            home: Some(PathBuf::from(self.home)),
            config_path: Some(self.join(ws, "hailer.toml")),
            hailer_dirs: ["context", "skills", "prompts"]
                .iter()
                .map(|d| self.join(ws, &format!(".config/hailer/{d}")))
                .collect(),
            credentials: credential.credentials,
            allowed: credential.allowed,
        };
        judge(self.os, &folders).map_err(|refusal| refusal.reason)
    }
}

fn exposes(reason: Result<(), MountReason>) -> Option<(Exposed, Relation)> {
    match reason {
        Err(MountReason::Exposes { what, relation, .. }) => Some((what, relation)),
        _ => None,
    }
}

#[test]
fn the_same_rules_on_every_system() {
    for machine in [LINUX, MACOS, WINDOWS] {
        let os = machine.os;
        let ws = machine.workspace;
        let home = machine.home;
        let path = |base: &str, relative: &str| machine.join(base, relative).display().to_string();
        assert_eq!(machine.check(&path(ws, "data")), Ok(()), "{os:?}");
        assert_eq!(
            machine.check(&path(home, "datasets/2024 Q1 ü")),
            Ok(()),
            "{os:?}"
        );
        let table = [
            (home.to_owned(), (Exposed::Home, Relation::Is)),
            (ws.to_owned(), (Exposed::Workspace, Relation::Is)),
            (path(ws, ".hailer"), (Exposed::HailerState, Relation::Is)),
            (
                path(ws, ".hailer/backups"),
                (Exposed::HailerState, Relation::Inside),
            ),
            (
                path(ws, ".config/hailer"),
                (Exposed::HailerFolder, Relation::Contains),
            ),
            (
                path(home, ".ssh"),
                (Exposed::Credentials(".ssh"), Relation::Is),
            ),
            (
                path(home, ".aws/sso"),
                (Exposed::Credentials(".aws"), Relation::Inside),
            ),
            (
                path(home, ".docker"),
                (Exposed::Credentials(".docker"), Relation::Is),
            ),
        ];
        for (data, expected) in table {
            assert_eq!(
                exposes(machine.check(&data)),
                Some(expected),
                "{os:?} {data}"
            );
        }
    }
}

#[test]
fn drive_and_file_system_roots_are_refused() {
    for (machine, root) in [
        (LINUX, "/"),
        (MACOS, "/"),
        (WINDOWS, r"C:\"),
        (WINDOWS, "D:"),
        (WINDOWS, r"\\?\E:\"),
    ] {
        assert_eq!(machine.check(root), Err(MountReason::DriveRoot), "{root}");
    }
}

/// What a data folder should get.
enum Expect {
    Mounts,
    Share,
    Exposes(Exposed, Relation),
}

#[test]
fn windows_shares_app_data_and_case() {
    use Expect::{Exposes, Mounts, Share};
    let table = [
        (r"\\server\share\sales", Share),
        (r"\\?\UNC\server\share\sales", Share),
        (
            r"C:\Users\Zoë Ås\AppData\Roaming",
            Exposes(Exposed::Credentials("AppData/Roaming"), Relation::Is),
        ),
        (
            r"c:\users\zoë ås\appdata\roaming\Microsoft\Credentials",
            Exposes(Exposed::Credentials("AppData/Roaming"), Relation::Inside),
        ),
        (
            r"C:\Users\Zoë Ås\AppData\Local\Packages",
            Exposes(Exposed::Credentials("AppData/Local"), Relation::Inside),
        ),
        (
            r"C:\Users\Zoë Ås\AppData",
            Exposes(Exposed::Credentials("AppData/Roaming"), Relation::Contains),
        ),
        (r"C:\Users\Zoë Ås\AppData\Local\Temp\export", Mounts),
        (r"C:\USERS\ZOË ÅS", Exposes(Exposed::Home, Relation::Is)),
        (r"D:\Sales data\2024", Mounts),
    ];
    for (data, expected) in table {
        let outcome = WINDOWS.check(data);
        match expected {
            Mounts => assert_eq!(outcome, Ok(()), "{data}"),
            Share => assert_eq!(outcome, Err(MountReason::NetworkShare), "{data}"),
            Exposes(what, relation) => {
                assert_eq!(exposes(outcome), Some((what, relation)), "{data}");
            }
        }
    }
}

/// A redirected Windows profile: `%APPDATA%` on another disk, `%LOCALAPPDATA%` elsewhere again.
fn redirected() -> AppDataDirs {
    AppDataDirs {
        roaming: Some(PathBuf::from(r"D:\Profiles\Zoë Ås\Roaming")),
        local: Some(PathBuf::from(r"E:\Local app data\Zoë")),
    }
}

#[test]
fn windows_app_data_where_the_system_says_it_is() {
    use Expect::{Exposes, Mounts, Share};
    let roaming = Exposed::Credentials("AppData/Roaming");
    let local = Exposed::Credentials("AppData/Local");
    let table = [
        (
            r"D:\Profiles\Zoë Ås\Roaming",
            Exposes(roaming.clone(), Relation::Is),
        ),
        (
            r"d:\profiles\zoë ås\roaming\Microsoft\Credentials",
            Exposes(roaming.clone(), Relation::Inside),
        ),
        (r"D:\Profiles", Exposes(roaming.clone(), Relation::Contains)),
        (
            r"E:\Local app data\Zoë\Packages",
            Exposes(local, Relation::Inside),
        ),
        (r"E:\Local app data\Zoë\Temp\export", Mounts),
        // The profile's own folders stay refused, and its temporary folder stays fine.
        (
            r"C:\Users\Zoë Ås\AppData\Roaming",
            Exposes(roaming, Relation::Is),
        ),
        (r"C:\Users\Zoë Ås\AppData\Local\Temp\export", Mounts),
        (r"D:\Sales data\2024", Mounts),
        (r"E:\Local app data\Other", Mounts),
    ];
    for (data, expected) in table {
        let outcome = WINDOWS.check_with(data, &redirected());
        match expected {
            Mounts => assert_eq!(outcome, Ok(()), "{data}"),
            Share => assert_eq!(outcome, Err(MountReason::NetworkShare), "{data}"),
            Exposes(what, relation) => {
                assert_eq!(exposes(outcome), Some((what, relation)), "{data}");
            }
        }
    }
    // Without the system's answer the redirected folders are ordinary folders.
    assert_eq!(WINDOWS.check(r"D:\Profiles\Zoë Ås\Roaming"), Ok(()));
    // A profile redirected to a share: data there is refused as a share anyway.
    let on_share = AppDataDirs {
        roaming: Some(PathBuf::from(r"\\files\profiles$\zoe\AppData\Roaming")),
        local: None,
    };
    assert_eq!(
        WINDOWS.check_with(r"\\files\profiles$\zoe\AppData\Roaming", &on_share),
        Err(MountReason::NetworkShare)
    );
}

#[test]
fn credential_folders_add_only_redirected_app_data_and_only_on_windows() {
    let home = Path::new(WINDOWS.home);
    let plain = credential_folders(Os::Windows, Some(home), &AppDataDirs::default());
    assert_eq!(plain.credentials.len(), credential_dirs(Os::Windows).len());
    assert_eq!(
        plain.allowed,
        [WINDOWS.join(WINDOWS.home, WINDOWS_TEMP_DIR)]
    );

    // Where the system's folders are the profile's own (any case), nothing is added.
    let same = AppDataDirs {
        roaming: Some(PathBuf::from(r"c:\users\zoë ås\appdata\roaming")),
        local: Some(WINDOWS.join(WINDOWS.home, "AppData/Local")),
    };
    assert_eq!(credential_folders(Os::Windows, Some(home), &same), plain);

    let moved = credential_folders(Os::Windows, Some(home), &redirected());
    let added: Vec<_> = moved.credentials[plain.credentials.len()..].to_vec();
    assert_eq!(
        added,
        [
            (
                "AppData/Roaming",
                PathBuf::from(r"D:\Profiles\Zoë Ås\Roaming")
            ),
            ("AppData/Local", PathBuf::from(r"E:\Local app data\Zoë")),
        ]
    );
    assert_eq!(
        moved.allowed[1..],
        [PathBuf::from(r"E:\Local app data\Zoë\Temp")]
    );

    // No home folder: the redirected folders still count.
    let homeless = credential_folders(Os::Windows, None, &redirected());
    assert_eq!(homeless.credentials.len(), 2);
    // A relative value names no folder.
    let relative = AppDataDirs {
        roaming: Some(PathBuf::from("AppData")),
        local: None,
    };
    assert_eq!(
        credential_folders(Os::Windows, None, &relative),
        CredentialFolders::default()
    );

    // Other systems have no such folders, whatever they are given.
    for os in [Os::Linux, Os::MacOs] {
        let folders = credential_folders(os, Some(Path::new("/home/zoë")), &redirected());
        assert_eq!(
            folders.credentials.len(),
            credential_dirs(os).len(),
            "{os:?}"
        );
        assert!(folders.allowed.is_empty(), "{os:?}");
    }
}

#[test]
fn app_data_from_the_system_base_folders() {
    let bases = hailer_platform::Bases {
        config: PathBuf::from(r"D:\Profiles\Zoë Ås\Roaming"),
        data: PathBuf::from(r"D:\Profiles\Zoë Ås\Roaming"),
        cache: PathBuf::from(r"E:\Local app data\Zoë"),
        state: None,
        runtime: None,
    };
    assert_eq!(
        AppDataDirs::from_bases(Os::Windows, Some(&bases)),
        redirected()
    );
    assert_eq!(
        AppDataDirs::from_bases(Os::Windows, None),
        AppDataDirs::default()
    );
    for os in [Os::Linux, Os::MacOs] {
        assert_eq!(
            AppDataDirs::from_bases(os, Some(&bases)),
            AppDataDirs::default()
        );
    }
}

#[test]
fn macos_library_credential_folders() {
    let table = [
        (
            "/Users/Zoë Ås/Library/Keychains",
            Some((Exposed::Credentials("Library/Keychains"), Relation::Is)),
        ),
        (
            "/Users/Zoë Ås/Library/Application Support/Google",
            Some((
                Exposed::Credentials("Library/Application Support"),
                Relation::Inside,
            )),
        ),
        (
            "/Users/Zoë Ås/Library",
            Some((
                Exposed::Credentials("Library/Keychains"),
                Relation::Contains,
            )),
        ),
        (
            "/users/zoë ås/library/cookies",
            Some((Exposed::Credentials("Library/Cookies"), Relation::Is)),
        ),
        ("/Users/Zoë Ås/Documents/Sales", None),
    ];
    for (data, expected) in table {
        assert_eq!(exposes(MACOS.check(data)), expected, "{data}");
    }
    // Linux has no such rule: a folder called Library is just a folder.
    assert_eq!(LINUX.check("/home/zoë/Library/Keychains"), Ok(()));
}

#[test]
fn refusals_name_the_folder_and_the_rule() {
    let refusal = MountRefusal {
        data_dir: PathBuf::from(r"C:\Users\z\AppData\Roaming"),
        reason: MountReason::Exposes {
            what: Exposed::Credentials("AppData/Roaming"),
            path: PathBuf::from(r"C:\Users\z\AppData\Roaming"),
            relation: Relation::Is,
        },
    };
    let text = refusal.message();
    assert!(
        text.contains("%APPDATA%, which holds credentials"),
        "{text}"
    );
    let share = MountRefusal {
        data_dir: PathBuf::from(r"\\server\share"),
        reason: MountReason::NetworkShare,
    };
    assert!(share.message().contains("network share"));
    assert!(share.hint().contains("local disk"));
}
