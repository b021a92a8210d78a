//! Parquet, CSV and NDJSON dumps through polars' lazy scanners: only the
//! columns the audit needs are read (projection pushdown).
use super::InputFormat;
use crate::samples::{Quality, SampleTable, UserMap, col, normalize, resolve_columns};
use anyhow::{Context, Result};
use polars::prelude::*;
use std::io::Read;
use std::path::Path;

pub fn read_head(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut f =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut buf = vec![0u8; n];
    let mut filled = 0;
    loop {
        let k = f
            .read(&mut buf[filled..])
            .with_context(|| format!("{}: cannot read", path.display()))?;
        if k == 0 {
            break;
        }
        filled += k;
        if filled == n {
            break;
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

pub fn read_stdin_csv() -> Result<DataFrame> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("-: cannot read standard input")?;
    let cursor = std::io::Cursor::new(bytes);
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(10_000))
        .into_reader_with_file_handle(cursor)
        .finish()
        .map_err(anyhow::Error::from)
        .context("-: standard input is not a CSV with a header row")
}

fn scan(path: &Path, format: InputFormat, infer_rows: Option<usize>) -> PolarsResult<LazyFrame> {
    let pl_path = PlRefPath::new(path.to_string_lossy().as_ref());
    match format {
        InputFormat::Parquet => {
            let args = ScanArgsParquet {
                hive_options: HiveOptions::new_enabled(),
                ..Default::default()
            };
            LazyFrame::scan_parquet(pl_path, args)
        }
        InputFormat::Csv => LazyCsvReader::new(pl_path)
            .with_has_header(true)
            .with_infer_schema_length(infer_rows)
            .with_try_parse_dates(false)
            .finish(),
        InputFormat::Ndjson => LazyJsonLineReader::new(pl_path)
            .with_infer_schema_length(std::num::NonZeroUsize::new(10_000))
            .finish(),
        // scrapes and nvidia-smi logs have their own readers
        other => Err(polars::prelude::PolarsError::ComputeError(
            format!("{} is not a tabular format", other.name()).into(),
        )),
    }
}

/// Read a tabular dump, projecting to the columns that map onto canonical ones.
pub fn read_tabular(
    name: &str,
    path: &Path,
    format: InputFormat,
    maps: &[UserMap],
) -> Result<SampleTable> {
    let kind = format.name();
    let expected = match format {
        InputFormat::Parquet => "a parquet file (or a directory of them)",
        InputFormat::Csv => "a CSV file with a header row",
        InputFormat::Ndjson => "newline-delimited JSON objects",
        _ => "a tabular file",
    };
    let mut lf = scan(path, format, Some(10_000))
        .map_err(anyhow::Error::from)
        .with_context(|| format!("{name}: not {expected}"))?;
    let schema = lf
        .collect_schema()
        .map_err(|e| anyhow::anyhow!("{name}: not {expected}: {e}"))?;
    let columns: Vec<String> = schema.iter_names().map(|s| s.to_string()).collect();
    let resolved = resolve_columns(&columns, maps);
    if !resolved.iter().any(|r| r.canonical == col::TIME) {
        anyhow::bail!(
            "{name}: no time column (expected one of: time, timestamp, ts; found {}; or --map YOURS=time)",
            preview(&columns)
        );
    }
    if !resolved.iter().any(|r| r.canonical == col::GPU) {
        anyhow::bail!(
            "{name}: no GPU id column (expected one of: gpu, uuid, gpu_uuid, index; found {}; or --map YOURS=gpu)",
            preview(&columns)
        );
    }
    let projection: Vec<Expr> = resolved
        .iter()
        .map(|r| polars::prelude::col(r.source.as_str()))
        .collect();
    let collected = lf.clone().select(projection.clone()).collect();
    let frame = match (collected, format) {
        (Ok(f), _) => f,
        // A CSV whose later rows break the inferred types: read every column as text
        // and let normalisation count what does not parse.
        (Err(_), InputFormat::Csv) => scan(path, format, Some(0))
            .and_then(|lf| lf.select(projection).collect())
            .map_err(|e| anyhow::anyhow!("{name}: not {expected}: {e}"))?,
        (Err(e), _) => return Err(anyhow::anyhow!("{name}: not a readable {kind} file: {e}")),
    };
    let rows_read = frame.height() as u64;
    let (df, quality) = normalize(&frame, &resolved, name)?;
    let present = resolved
        .iter()
        .map(|r| r.canonical)
        .chain([col::HOST])
        .collect();
    let mut quality2 = Quality::default();
    quality2.merge(quality);
    Ok(SampleTable {
        df,
        present,
        quality: quality2,
        sources: vec![name.to_string()],
        rows_read,
    })
}

fn preview(columns: &[String]) -> String {
    let shown: Vec<&str> = columns.iter().take(12).map(String::as_str).collect();
    let more = if columns.len() > 12 {
        format!(", … ({} in all)", columns.len())
    } else {
        String::new()
    };
    format!("[{}{}]", shown.join(", "), more)
}
