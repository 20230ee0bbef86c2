//! Python the tests run in kernels of every runtime, and what `hailer doctor --probe` reports.

/// Forks until the kernel may not, with a cap on the number of forks; the children wait to be
/// killed, so each holds a process slot. Prints the number of children and the refusal's errno.
pub const FORK_BOMB: &str = r"
import os, time
children = []
refused = None
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as error:
        refused = error.errno
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, 9)
for pid in children:
    os.waitpid(pid, 0)
print(len(children), refused)
";

/// The probes `hailer doctor --probe` runs in the kernel, in the order it reports them.
pub const KERNEL_PROBES: [&str; 12] = [
    "uid not 0",
    "no capabilities",
    "read-only root",
    "data not writable",
    "no TCP to the host gateway",
    "no TCP to a public address",
    "no DNS",
    "pids limit holds",
    "memory limit holds",
    "no secret in the environment",
    "no token on disk",
    "Docker socket absent",
];
