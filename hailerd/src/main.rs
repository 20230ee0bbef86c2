use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = hailerd::RunArgs::parse();
    if let Err(error) = hailerd::hardening::ensure_minimal_environment() {
        eprintln!("hailerd: {error:#}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hailerd: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(hailerd::run(args)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailerd: {error:#}");
            ExitCode::FAILURE
        }
    }
}
