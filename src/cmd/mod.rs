//! One file per subcommand: each turns clap arguments into plain options,
//! runs the computation and hands the result to a renderer.
use crate::cli::{Cli, Command};
/// What a run says on stderr beside its result; main.rs prints it.
pub use crate::render::diagnostics::Diagnostics;
use anyhow::Result;

pub(crate) mod check;
pub(crate) mod common;
pub(crate) mod convert;
pub(crate) mod demo;
pub(crate) mod env;
pub(crate) mod explain;
pub(crate) mod format;
pub(crate) mod mfu;
pub(crate) mod peaks;
pub(crate) mod prometheus;
pub(crate) mod report;
pub(crate) mod scan;
pub(crate) mod sql;
pub(crate) mod sqlengine;

/// Run a parsed command line; the returned code is the process exit code.
/// `matches`: clap's answer the `cli` came from (which flags were given, not
/// defaulted); what the command has to say on stderr goes to `said`, which
/// main.rs prints.
pub fn run(cli: Cli, matches: &clap::ArgMatches, said: &mut Diagnostics) -> Result<u8> {
    let threads = match &cli.command {
        Command::Report(c) => c.report.audit.threads,
        Command::Check(c) => c.audit.threads,
        Command::Scan(c) => c.audit.threads,
        _ => None,
    };
    if let Some(n) = threads {
        env::limit_polars_threads(n);
    }
    match cli.command {
        Command::Report(args) => report::run(args, said),
        Command::Convert(args) => convert::run(args),
        Command::Demo(args) => demo::run(args, said),
        Command::Mfu(args) => mfu::run(args),
        Command::Peaks(args) => peaks::run(args),
        Command::Scan(args) => scan::run(args, said),
        Command::Check(args) => check::run(args, matches.subcommand_matches("check"), said),
        Command::Explain(args) => explain::run(args),
        Command::Sql(args) => sql::run(args),
    }
}
