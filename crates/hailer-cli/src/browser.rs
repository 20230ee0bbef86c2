//! Opening a link in the user's browser, best effort, with `webbrowser`: `$BROWSER` first (a
//! `:`-separated list; `%s` marks where the link goes), else the desktop's default browser.
//!
//! On Linux and the BSDs a machine with no graphical display (a CI runner, an SSH session) and
//! no `$BROWSER` gets no attempt: a text browser must not take over the terminal. The link is
//! always printed too.

/// Starts the browser; says nothing when there is none (the link is printed anyway).
pub(crate) fn open(url: &str) {
    let _ = launch(url);
}

/// Starts the browser on `url`, or says why none could start.
pub(crate) fn launch(url: &str) -> Result<(), String> {
    let has_browser_variable = std::env::var("BROWSER").is_ok_and(|value| !value.trim().is_empty());
    if !has_browser_variable && !display_available(|name| std::env::var_os(name).is_some()) {
        return Err("No graphical display to open a browser on".to_owned());
    }
    let mut options = webbrowser::BrowserOptions::new();
    options.with_suppress_output(true);
    webbrowser::open_browser_with_options(webbrowser::Browser::Default, url, &options)
        .map_err(|_| "No browser could be started".to_owned())
}

/// Whether a desktop browser could show a window here: always on macOS and Windows, and with
/// `DISPLAY` or `WAYLAND_DISPLAY` set elsewhere.
fn display_available(is_set: impl Fn(&str) -> bool) -> bool {
    cfg!(any(target_os = "macos", windows)) || is_set("DISPLAY") || is_set("WAYLAND_DISPLAY")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_display_is_needed_where_desktops_are_optional() {
        let desktop_always = cfg!(any(target_os = "macos", windows));
        assert_eq!(display_available(|_| false), desktop_always);
        assert!(display_available(|name| name == "DISPLAY"));
        assert!(display_available(|name| name == "WAYLAND_DISPLAY"));
    }
}
