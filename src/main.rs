//! Entry point: parse, dispatch, print what the run said and the error once, map it to an exit code.
use clap::{CommandFactory, FromArgMatches};
use gpuaudit::cli::Cli;
use gpuaudit::error::{error_text, exit_code_for, worth_a_word};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let mut said = gpuaudit::cmd::Diagnostics::with_live(Box::new(std::io::stderr()));
    let result = gpuaudit::cmd::run(cli, &matches, &mut said);
    // not eprintln!: a closed stderr must not turn into a panic
    for line in said.lines() {
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // The code was decided before any output: a closed pipe
            // (`gpuaudit check ... | head`) keeps a failure a failure.
            let code = exit_code_for(&err);
            if worth_a_word(&err) {
                let _ = writeln!(std::io::stderr(), "{}", error_text(&err));
            }
            ExitCode::from(code)
        }
    }
}
