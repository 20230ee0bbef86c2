//! Paths as each system reads them, on any host: the root (a Unix `/`, a drive `C:`, a network
//! share `\\server\share`) and the names below it, compared the way that system's file system
//! does (case-insensitively on Windows and on macOS's default volumes). This is what lets the
//! data-folder rules be tested with Windows and macOS paths on Linux.

use crate::Os;

/// `base` with `relative` (names written with `/`) appended as `os` writes paths: with `\\` on
/// Windows, `/` elsewhere. A pure string function, so a Unix path joined on a Windows host (or
/// the other way round) reads as its own system would write it, unlike the host's `PathBuf::join`.
pub fn join_text(os: Os, base: &str, relative: &str) -> String {
    let separator = if os == Os::Windows { '\\' } else { '/' };
    let mut joined = base.to_owned();
    for name in relative.split('/').filter(|name| !name.is_empty()) {
        let ends_in_separator = joined.ends_with(separator) || joined.ends_with('/');
        if !joined.is_empty() && !ends_in_separator {
            joined.push(separator);
        }
        joined.push_str(name);
    }
    joined
}

/// Where a path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Root {
    /// No root: relative to a current folder.
    Relative,
    /// `/` on Unix.
    Unix,
    /// `C:\` (the letter in upper case).
    Drive(char),
    /// `\\server\share\` (also `\\?\UNC\server\share\`).
    Share {
        /// The server's name.
        server: String,
        /// The share's name on it.
        share: String,
    },
}

/// A path split into its root and its names (`.` dropped, `..` kept as written).
#[derive(Debug, Clone)]
pub struct PathModel {
    os: Os,
    /// Where the path starts.
    pub root: Root,
    /// The names after the root, in order.
    pub names: Vec<String>,
}

impl PathModel {
    /// Reads `text` as a path of `os`.
    pub fn parse(os: Os, text: &str) -> Self {
        let (root, rest) = match os {
            Os::Windows => windows_root(text),
            Os::Linux | Os::MacOs => match text.strip_prefix('/') {
                Some(rest) => (Root::Unix, rest),
                None => (Root::Relative, text),
            },
        };
        let separators: &[char] = if os == Os::Windows {
            &['\\', '/']
        } else {
            &['/']
        };
        let names = rest
            .split(separators)
            .filter(|name| !name.is_empty() && *name != ".")
            .map(str::to_owned)
            .collect();
        Self { os, root, names }
    }

    /// The root of a drive, a share or the file system itself.
    pub fn is_root(&self) -> bool {
        self.root != Root::Relative && self.names.is_empty()
    }

    /// On a network share.
    pub fn is_share(&self) -> bool {
        matches!(self.root, Root::Share { .. })
    }

    /// Whether `self` is `other` or lies inside it.
    pub fn starts_with(&self, other: &PathModel) -> bool {
        self.same_root(other)
            && self.names.len() >= other.names.len()
            && self
                .names
                .iter()
                .zip(&other.names)
                .all(|(mine, theirs)| self.same_name(mine, theirs))
    }

    /// Whether both name the same place.
    pub fn same_as(&self, other: &PathModel) -> bool {
        self.names.len() == other.names.len() && self.starts_with(other)
    }

    /// This path with `names` (written with `/`) appended.
    pub fn join(&self, names: &str) -> Self {
        let mut joined = self.clone();
        joined.names.extend(
            names
                .split('/')
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
        );
        joined
    }

    fn same_root(&self, other: &PathModel) -> bool {
        match (&self.root, &other.root) {
            (
                Root::Share { server, share },
                Root::Share {
                    server: other_server,
                    share: other_share,
                },
            ) => server.eq_ignore_ascii_case(other_server) && self.same_name(share, other_share),
            (mine, theirs) => mine == theirs,
        }
    }

    fn same_name(&self, mine: &str, theirs: &str) -> bool {
        match self.os {
            Os::Linux => mine == theirs,
            Os::MacOs | Os::Windows => mine.to_lowercase() == theirs.to_lowercase(),
        }
    }
}

impl std::fmt::Display for PathModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let separator = if self.os == Os::Windows { "\\" } else { "/" };
        match &self.root {
            Root::Relative => {}
            Root::Unix => f.write_str("/")?,
            Root::Drive(letter) => write!(f, "{letter}:\\")?,
            Root::Share { server, share } => write!(f, "\\\\{server}\\{share}\\")?,
        }
        f.write_str(&self.names.join(separator))
    }
}

/// The root of a Windows path and the rest of it.
fn windows_root(text: &str) -> (Root, &str) {
    let is_separator = |c: char| c == '\\' || c == '/';
    // \\?\C:\ and \\?\UNC\server\share: the verbatim forms of the two below.
    let text = match text.strip_prefix(r"\\?\") {
        Some(rest)
            if rest
                .get(..4)
                .is_some_and(|p| p.eq_ignore_ascii_case("UNC\\")) =>
        {
            return share_root(rest.get(4..).unwrap_or_default());
        }
        Some(rest) => rest,
        None => text,
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if is_separator(first) && is_separator(second) => {
            share_root(&text[2..])
        }
        (Some(first), Some(':')) if first.is_ascii_alphabetic() => {
            (Root::Drive(first.to_ascii_uppercase()), &text[2..])
        }
        _ => (Root::Relative, text),
    }
}

/// `server\share\rest` after a share's leading separators.
fn share_root(text: &str) -> (Root, &str) {
    let mut parts = text.splitn(3, ['\\', '/']);
    let server = parts.next().unwrap_or_default().to_owned();
    let share = parts.next().unwrap_or_default().to_owned();
    (
        Root::Share { server, share },
        parts.next().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_with_the_separator_of_the_system_not_of_the_host() {
        let table = [
            (Os::Linux, "/home/zoë/ws", ".hailer", "/home/zoë/ws/.hailer"),
            (
                Os::MacOs,
                "/Users/Zoë Ås",
                ".docker/run/docker.sock",
                "/Users/Zoë Ås/.docker/run/docker.sock",
            ),
            (Os::Linux, "/", "var/run", "/var/run"),
            (
                Os::Windows,
                r"C:\Users\Zoë Ås",
                ".docker/config.json",
                r"C:\Users\Zoë Ås\.docker\config.json",
            ),
            (Os::Windows, r"C:\", "Users", r"C:\Users"),
            (
                Os::Windows,
                r"\\server\share",
                "sales",
                r"\\server\share\sales",
            ),
        ];
        for (os, base, relative, expected) in table {
            assert_eq!(join_text(os, base, relative), expected, "{os:?}");
        }
    }

    #[test]
    fn windows_paths_of_every_kind() {
        let table = [
            (r"C:\", Root::Drive('C'), 0, true),
            ("c:", Root::Drive('C'), 0, true),
            (r"D:\Data\Sales ü", Root::Drive('D'), 2, false),
            ("C:/Users/zoë/data", Root::Drive('C'), 3, false),
            (r"\\?\C:\Users\x", Root::Drive('C'), 2, false),
            (
                r"\\server\share\sales",
                Root::Share {
                    server: "server".into(),
                    share: "share".into(),
                },
                1,
                false,
            ),
            (
                r"\\?\UNC\server\share\sales",
                Root::Share {
                    server: "server".into(),
                    share: "share".into(),
                },
                1,
                false,
            ),
            (
                r"\\server\share",
                Root::Share {
                    server: "server".into(),
                    share: "share".into(),
                },
                0,
                true,
            ),
            (r"data\2024", Root::Relative, 2, false),
        ];
        for (text, root, names, is_root) in table {
            let path = PathModel::parse(Os::Windows, text);
            assert_eq!(path.root, root, "{text}");
            assert_eq!(path.names.len(), names, "{text}");
            assert_eq!(path.is_root(), is_root, "{text}");
        }
    }

    #[test]
    fn comparisons_follow_each_systems_file_system() {
        let table = [
            (
                Os::Windows,
                r"C:\Users\Zoë\AppData\Roaming\x",
                r"c:\users\zoë\appdata",
                true,
            ),
            (Os::Windows, r"C:\Users\Zoë", r"D:\Users\Zoë", false),
            (Os::Windows, r"\\Server\Share\a", r"\\server\share", true),
            (
                Os::MacOs,
                "/Users/Zoë/Library/Keychains",
                "/users/zoë/library",
                true,
            ),
            (Os::Linux, "/home/Zoë/.ssh", "/home/zoë", false),
            (Os::Linux, "/home/zoë/.ssh", "/home/zoë", true),
            (Os::Linux, "/home/zoëx", "/home/zoë", false),
        ];
        for (os, path, prefix, expected) in table {
            let path_model = PathModel::parse(os, path);
            assert_eq!(
                path_model.starts_with(&PathModel::parse(os, prefix)),
                expected,
                "{os:?} {path} {prefix}"
            );
        }
        assert!(PathModel::parse(Os::Linux, "/").is_root());
        assert_eq!(
            PathModel::parse(Os::Windows, r"C:\Users\z")
                .join("AppData/Local")
                .to_string(),
            r"C:\Users\z\AppData\Local"
        );
    }
}
