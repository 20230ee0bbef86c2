//! Starting a program that outlives the terminal that started it.
//!
//! Unix: its own process group and session, so Ctrl+C in the terminal and the terminal's hang-up
//! do not reach it. Windows: a detached process in a new process group with no console window,
//! so closing the console does not end it and no window flashes up.

use std::process::Command;

/// Makes `command` start its program detached from this process's terminal.
pub fn detach(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // setsid() in the child: a new session (and with it a new process group) with no
        // controlling terminal.
        #[allow(unsafe_code)]
        // SAFETY: setsid is async-signal-safe, which is all pre_exec requires.
        unsafe {
            command.pre_exec(|| {
                nix::unistd::setsid()
                    .map(drop)
                    .map_err(std::io::Error::from)
            });
        }
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt as _;
        use windows_sys::Win32::System::Threading::{
            CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, DETACHED_PROCESS,
        };
        // DETACHED_PROCESS and CREATE_NO_WINDOW are both honoured: no console is inherited and
        // none is created.
        command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
    }
    command
}
