//! One file per subcommand: each turns clap arguments into plain options,
//! runs the computation and hands the result to a renderer.
use crate::cli::{Cli, Command};
use anyhow::Result;

pub mod bracket;
pub mod check;
pub mod common;
pub mod demo;
pub mod mfu;
pub mod peaks;
pub mod progress;
pub mod prometheus;
pub mod report;
pub mod scan;

/// Run a parsed command line; the returned code is the process exit code.
pub fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Report(args) => report::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Mfu(args) => mfu::run(args),
        Command::Peaks(args) => peaks::run(args),
        Command::Scan(args) => scan::run(args),
        Command::Check(args) => check::run(args),
    }
}
