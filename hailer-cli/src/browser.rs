//! Opening a link in the user's browser, best effort: `$BROWSER`, else the desktop's opener.

use std::process::{Command, Stdio};

/// Starts the browser detached; says nothing when there is none (the link is printed anyway).
pub fn open(url: &str) {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|value| !value.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".to_owned()
            } else {
                "xdg-open".to_owned()
            }
        });
    let _ = Command::new(program)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}
