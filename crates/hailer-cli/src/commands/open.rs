//! `hailer open`: the browser chat page, signed in with this daemon's token.
//!
//! The token rides in the link's fragment (`#token=...`), which browsers never send to a server
//! and which the page removes from the address bar as soon as it has read it.

use hailer_config::HailerHome;

use crate::daemon_client;
use crate::output::outln;
use crate::session_client::{self, SessionFlags};

pub(crate) async fn open(
    home: &HailerHome,
    flags: &SessionFlags,
    print_only: bool,
) -> anyhow::Result<()> {
    let connected = daemon_client::find_or_start(home).await?;
    let endpoint = &connected.endpoint;
    // Attach the workspace's session, so the page shows it and the agent gets this shell's
    // settings; outside a workspace the page just lists the live sessions.
    let session = match session_client::start(endpoint, flags).await {
        Ok(started) => Some(started.session.id),
        Err(error) => {
            eprintln!("No workspace session attached ({error:#}); the page lists the live ones.");
            None
        }
    };
    let link = signed_link(endpoint.port, &endpoint.token, session.as_deref());
    if print_only {
        outln!("{link}")?;
        return Ok(());
    }
    match crate::browser::launch(&link) {
        Ok(()) => {
            outln!("Opened the chat page in your browser. If it did not appear, open:\n{link}")?;
        }
        Err(reason) => outln!("{reason}; open this link in your browser:\n{link}")?,
    }
    outln!("The link signs in to hailerd until it stops: keep it to yourself.")?;
    Ok(())
}

/// The chat page's link, signed in with the daemon's token, on `session` when given.
pub(crate) fn signed_link(port: u16, token: &str, session: Option<&str>) -> String {
    let mut link = format!("http://127.0.0.1:{port}/#token={token}");
    if let Some(session) = session {
        link.push_str("&session=");
        link.push_str(session);
    }
    link
}

#[cfg(test)]
mod tests {
    use super::signed_link;

    #[test]
    fn the_token_travels_in_the_fragment_only() {
        let link = signed_link(4242, "abc123", Some("s_01"));
        assert_eq!(link, "http://127.0.0.1:4242/#token=abc123&session=s_01");
        assert!(!link.contains('?'));
    }
}
