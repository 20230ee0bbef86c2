//! `hailerd`, the daemon `hailer` starts.

fn main() -> std::process::ExitCode {
    hailerd::main()
}
