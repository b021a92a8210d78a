//! `gpuaudit demo`: write the synthetic fleet, in slices so any size fits in memory.
use crate::cli::DemoArgs;
use crate::demo::{DemoSpec, generate};
use crate::render::diagnostics::{Diagnostic, Diagnostics};
use crate::timeparse::{US_PER_DAY, US_PER_SECOND, parse_cli_time, parse_duration_us};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

/// The fleet to write and how it is cut: ticks in all, per day, per slice.
struct Plan {
    spec: DemoSpec,
    ticks: usize,
    ticks_per_day: usize,
    slice: usize,
}

pub fn run(args: DemoArgs, said: &mut Diagnostics) -> Result<u8> {
    let plan = plan_of(&args)?;
    let partitioned = args.partition_by_day;
    let rows = if partitioned {
        write_days(&args.out, &plan)?
    } else {
        write_file(&args.out, &plan)?
    };
    said.push(Diagnostic::DemoWritten {
        rows,
        gpus: plan.spec.total_gpus(),
        out: args.out,
        partitioned,
    });
    Ok(0)
}

/// The flags checked and turned into a plan.
fn plan_of(args: &DemoArgs) -> Result<Plan> {
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
    Ok(Plan {
        spec,
        ticks,
        ticks_per_day,
        slice,
    })
}

/// `--partition-by-day`: one `day=YYYY-MM-DD/part-0.parquet` per day; returns the rows written.
fn write_days(out: &Path, plan: &Plan) -> Result<usize> {
    std::fs::create_dir_all(out)
        .with_context(|| format!("{}: cannot create directory", out.display()))?;
    let (spec, interval_us) = (&plan.spec, plan.spec.interval_us);
    let mut rows = 0;
    let mut day_start = 0;
    while day_start < plan.ticks {
        let day_end = (day_start + plan.ticks_per_day).min(plan.ticks);
        let day =
            chrono::DateTime::from_timestamp_micros(spec.start_us + day_start as i64 * interval_us)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
        let dir = out.join(format!("day={day}"));
        std::fs::create_dir_all(&dir)?;
        rows += write_parquet(
            &dir.join("part-0.parquet"),
            spec,
            day_start,
            day_end,
            plan.slice,
        )?;
        day_start = day_end;
    }
    Ok(rows)
}

/// One file, its format by its extension; returns the rows written.
fn write_file(out: &Path, plan: &Plan) -> Result<usize> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "parquet" => write_parquet(out, &plan.spec, 0, plan.ticks, plan.slice),
        "csv" | "ndjson" | "jsonl" => write_text(out, plan, ext == "csv"),
        _ => bail!(
            "--out {}: expected a .parquet, .csv or .ndjson file (or --partition-by-day)",
            out.display()
        ),
    }
}

/// CSV (one header) or NDJSON, slice by slice; returns the rows written.
fn write_text(out: &Path, plan: &Plan, csv: bool) -> Result<usize> {
    let mut file =
        File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut rows = 0;
    let mut from = 0;
    while from < plan.ticks {
        let to = (from + plan.slice).min(plan.ticks);
        let mut df = generate(&plan.spec, from, to)?;
        rows += df.height();
        if csv {
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
    Ok(rows)
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
