//! The new network namespace's loopback device, which starts down.

/// Sets `lo` up (`SIOCSIFFLAGS` with `IFF_UP`), as root of the new user namespace.
pub(super) fn bring_up() -> Result<(), String> {
    use std::os::fd::AsRawFd as _;
    let socket = nix::sys::socket::socket(
        nix::sys::socket::AddressFamily::Inet,
        nix::sys::socket::SockType::Datagram,
        nix::sys::socket::SockFlag::SOCK_CLOEXEC,
        None,
    )
    .map_err(|error| format!("cannot open a socket in the sandbox's network: {error}"))?;
    // SAFETY: `ifreq` is plain data; an all-zero value is valid.
    #[allow(unsafe_code)]
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    request.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    // SAFETY: the socket is open and `request` is a valid, NUL-terminated `ifreq` that lives
    // across the call; SIOCSIFFLAGS reads it only.
    #[allow(unsafe_code)]
    let result = unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &request) };
    if result != 0 {
        return Err(format!(
            "cannot bring up the sandbox's loopback: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}
