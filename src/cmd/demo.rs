//! `gpuaudit demo`: write the synthetic fleet, in slices so any size fits in memory.
use crate::cli::DemoArgs;
use crate::demo::{DemoSpec, generate};
use crate::render::diagnostics::{Diagnostic, Diagnostics};
use crate::timeparse::{US_PER_DAY, US_PER_SECOND, parse_cli_time, parse_duration_us};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

#[allow(clippy::too_many_lines)] // TODO(issue 34): split
pub fn run(args: DemoArgs, said: &mut Diagnostics) -> Result<u8> {
    let interval_us = parse_duration_us(&args.interval).context("--interval")?;
    if interval_us < US_PER_SECOND {
        bail!("--interval must be at least 1s");
    }
    if args.gpus == 0 {
        bail!("--gpus must be at least 1");
    }
    if args.days.is_nan() || args.days <= 0.0 {
        bail!("--days must be positive");
    }
    let start_us = parse_cli_time(&args.start, None).context("--start")?;
    let ticks = ((args.days * US_PER_DAY as f64) / interval_us as f64).round() as usize;
    let spec = DemoSpec {
        gpus: args.gpus,
        start_us,
        interval_us,
        seed: args.seed,
    };
    let ticks_per_day = (US_PER_DAY / interval_us).max(1) as usize;
    // Slices of at most ~2M rows keep memory flat at any size.
    // each slice is one parquet row group: 2^20 rows at most, pyarrow's default,
    // so a demo file reads like the files most exporters write
    let slice = ((1 << 20) / spec.total_gpus()).clamp(1, ticks_per_day);

    if args.partition_by_day {
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("{}: cannot create directory", args.out.display()))?;
        let mut rows = 0;
        let mut day_start = 0;
        while day_start < ticks {
            let day_end = (day_start + ticks_per_day).min(ticks);
            let day =
                chrono::DateTime::from_timestamp_micros(start_us + day_start as i64 * interval_us)
                    .map(|d| d.format("%Y-%m-%d").to_string())
                    .unwrap_or_default();
            let dir = args.out.join(format!("day={day}"));
            std::fs::create_dir_all(&dir)?;
            rows += write_parquet(
                &dir.join("part-0.parquet"),
                &spec,
                day_start,
                day_end,
                slice,
            )?;
            day_start = day_end;
        }
        said.push(Diagnostic::DemoWritten {
            rows,
            gpus: spec.total_gpus(),
            out: args.out.clone(),
            partitioned: true,
        });
        return Ok(0);
    }
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let mut rows = 0;
    match ext.as_str() {
        "parquet" => rows = write_parquet(&args.out, &spec, 0, ticks, slice)?,
        "csv" | "ndjson" | "jsonl" => {
            let mut file = File::create(&args.out)
                .with_context(|| format!("{}: cannot create", args.out.display()))?;
            let mut from = 0;
            while from < ticks {
                let to = (from + slice).min(ticks);
                let mut df = generate(&spec, from, to)?;
                rows += df.height();
                if ext == "csv" {
                    CsvWriter::new(&mut file)
                        .include_header(from == 0)
                        .finish(&mut df)?;
                } else {
                    JsonWriter::new(&mut file)
                        .with_json_format(JsonFormat::JsonLines)
                        .finish(&mut df)?;
                }
                from = to;
            }
        }
        _ => bail!(
            "--out {}: expected a .parquet, .csv or .ndjson file (or --partition-by-day)",
            args.out.display()
        ),
    }
    said.push(Diagnostic::DemoWritten {
        rows,
        gpus: spec.total_gpus(),
        out: args.out.clone(),
        partitioned: false,
    });
    Ok(0)
}

/// Write ticks `from..to` as one parquet file, slice by slice; returns the rows written.
fn write_parquet(
    path: &Path,
    spec: &DemoSpec,
    from: usize,
    to: usize,
    slice: usize,
) -> Result<usize> {
    let file = File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
    let first = generate(spec, from, (from + slice).min(to))?;
    let mut writer = ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .batched(first.schema())?;
    writer.write_batch(&first)?;
    let mut rows = first.height();
    let mut start = (from + slice).min(to);
    while start < to {
        let end = (start + slice).min(to);
        let df = generate(spec, start, end)?;
        rows += df.height();
        writer.write_batch(&df)?;
        start = end;
    }
    writer.finish()?;
    Ok(rows)
}
