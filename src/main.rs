//! Entry point: parse, dispatch, print the error once, map it to an exit code.
use clap::Parser;
use gpuaudit::cli::Cli;
use gpuaudit::error::exit_code_for;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match gpuaudit::cmd::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let code = exit_code_for(&err);
            // A closed pipe (`gpuaudit report x | head`) is not an error worth a word.
            if code != 0 {
                eprintln!("gpuaudit: {err:#}");
            }
            ExitCode::from(code)
        }
    }
}
