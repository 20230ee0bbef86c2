//! `hailer`, the terminal client.

fn main() -> std::process::ExitCode {
    hailer_cli::main()
}
