//! The Linux sandbox: the system calls that carry out the plan.
//!
//! The launcher (`launcher`) binds the daemon's loopback port, makes the namespaces and forks the
//! sandbox's first process (`init`), then relays each connection on that port into the
//! sandbox's own loopback (`forward`). `init` builds the root (`mounts`), sets the limits and
//! Landlock (`confine`), and forks the program under seccomp (`filters`).

mod confine;
mod filters;
mod forward;
mod init;
pub(crate) mod launcher;
mod loopback;
mod mounts;

/// The uid and gid the sandbox's processes have inside it: the user's own, except for root,
/// who becomes an ordinary user there so that the program keeps no capability after `exec`.
pub(crate) fn inside_id(outside: u32) -> u32 {
    if outside == 0 { 1000 } else { outside }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_an_ordinary_user_inside() {
        assert_eq!(inside_id(0), 1000);
        assert_eq!(inside_id(1234), 1234);
    }
}
