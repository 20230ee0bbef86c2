//! The operating systems Hailer runs on, as a value, so decisions can be tested for each.

/// An operating system family whose conventions Hailer follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux and other Unix systems that follow the XDG conventions.
    Linux,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
}

impl Os {
    /// The system this build runs on (the other Unix systems follow Linux's conventions).
    pub const CURRENT: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::MacOs
    } else {
        Os::Linux
    };

    /// Every system, for tables that cover them all.
    pub const ALL: [Os; 3] = [Os::Linux, Os::MacOs, Os::Windows];
}
