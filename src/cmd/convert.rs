//! `gpuaudit convert`: the canonical sample table of the inputs, written as
//! parquet (a CSV export read once; every report on the copy reads it fast).
use super::common::read_options;
use crate::cli::convert::ConvertArgs;
use anyhow::{Result, bail};

pub fn run(args: ConvertArgs) -> Result<u8> {
    if args.input.live.prometheus.is_some() {
        bail!("convert reads files (or -): --prometheus is for report and check");
    }
    if args.input.engine.given() {
        bail!("convert reads files (or -): --clickhouse and --trino are for report and check");
    }
    let is_parquet = args
        .output
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
    if !is_parquet {
        bail!(
            "-o {}: expected a .parquet file (convert writes the canonical table as parquet)",
            args.output.display()
        );
    }
    let read = read_options(&args.input, args.quiet, &super::env::Tuning::from_env()?)?;
    crate::pipeline::convert(&args.input.inputs, &read, &args.output)?;
    Ok(0)
}
