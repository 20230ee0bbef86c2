//! Picking the port a marimo server listens on.

use std::net::{Ipv4Addr, TcpListener};

use crate::error::{Error, Result};

/// marimo's usual port.
pub(crate) const DEFAULT_PORT: u16 = 2718;

/// The port to use: `preferred` when it is free on 127.0.0.1, else one the system picks.
/// Returns the port and, when it differs from `preferred`, a note saying so.
///
/// Another program may take the port before marimo binds it; readiness catches that, since it
/// only accepts a server that checks this start's token.
pub(crate) fn choose_port(preferred: u16) -> Result<(u16, Option<String>)> {
    if preferred != 0 && TcpListener::bind((Ipv4Addr::LOCALHOST, preferred)).is_ok() {
        return Ok((preferred, None));
    }
    let port = free_port()?;
    let note = (preferred != 0).then(|| format!("Port {preferred} is busy; using {port}."));
    Ok((port, note))
}

/// A port that is free on 127.0.0.1 right now.
pub fn free_port() -> Result<u16> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| Error::io("could not find a free port on 127.0.0.1", e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_busy_preferred_port_falls_back_with_a_note() {
        let busy = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let busy_port = busy.local_addr().unwrap().port();
        let (port, note) = choose_port(busy_port).unwrap();
        assert_ne!(port, busy_port);
        assert_eq!(
            note,
            Some(format!("Port {busy_port} is busy; using {port}."))
        );
    }

    #[test]
    fn a_free_preferred_port_is_used() {
        let free = free_port().unwrap();
        let (port, note) = choose_port(free).unwrap();
        assert_eq!((port, note), (free, None));
    }
}
