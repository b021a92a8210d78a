//! Parquet, CSV and NDJSON dumps through polars' lazy scanners: only the
//! columns the audit needs are read (projection pushdown).
use super::{InputFormat, decode};
use crate::samples::{Quality, SampleTable, UserMap, col, missing_column, resolve_columns};
use anyhow::{Context, Result, bail};
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

/// Standard input: CSV, NDJSON or a JSON array, gzip/zstd or plain, told by
/// its bytes; a wide CSV (or one with trailing commas or zones) as from a file.
pub fn read_stdin(name: &str, maps: &[UserMap]) -> Result<SampleTable> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("-: cannot read standard input")?;
    read_stdin_bytes(name, bytes, maps)
}

/// [`read_stdin`] on its bytes, read already.
pub fn read_stdin_bytes(name: &str, bytes: Vec<u8>, maps: &[UserMap]) -> Result<SampleTable> {
    let bytes = decode::decompress("-", bytes)?;
    let kind = decode::text_kind(&bytes);
    if kind == decode::Text::Csv && super::wide::wanted_text(&String::from_utf8_lossy(&bytes)) {
        return super::wide::read_text(name, &String::from_utf8_lossy(&bytes), maps);
    }
    let frame = decode::parse("-", bytes, kind)?;
    super::from_frame(name, frame, maps, Quality::default())
}

/// Whether the file starts with gzip or zstd magic bytes (whatever its extension).
pub fn is_compressed(path: &Path) -> Result<bool> {
    if path.is_dir() {
        return Ok(false);
    }
    Ok(decode::Compression::of(&read_head(path, 4)?).is_some())
}

/// A gzip or zstd CSV/NDJSON file, decoded in memory (polars' own decoder is
/// not built in: it would panic). The format comes from the name without the
/// compression suffix, else from the decoded content.
pub fn read_compressed(name: &str, path: &Path, maps: &[UserMap]) -> Result<SampleTable> {
    let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
    let bytes = decode::decompress(name, bytes)?;
    let kind = match InputFormat::from_extension(&decode::inner_name(path)) {
        Some(InputFormat::Csv) => decode::Text::Csv,
        Some(InputFormat::Ndjson) => decode::Text::Ndjson,
        Some(other) => bail!(
            "{name}: compressed {} is not read (decompress it first; compressed CSV and NDJSON are read)",
            other.name()
        ),
        None => decode::text_kind(&bytes),
    };
    let frame = decode::parse(name, bytes, kind)?;
    super::from_frame(name, frame, maps, Quality::default())
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
            .with_separator(decode::separator_of(path))
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

/// A table needs a time and a GPU id column.
pub(crate) fn require_time_and_gpu(
    name: &str,
    columns: &[String],
    resolved: &[crate::samples::Resolved],
) -> Result<()> {
    for needed in [col::TIME, col::GPU] {
        if !resolved.iter().any(|r| r.canonical == needed) {
            let found = preview(columns);
            anyhow::bail!("{name}: {}", missing_column(needed, Some(&found)));
        }
    }
    Ok(())
}

/// The sample table of a frame read with its resolved columns.
fn table_of(
    name: &str,
    frame: &DataFrame,
    resolved: &[crate::samples::Resolved],
    twins: &[crate::samples::Resolved],
    columns: &[String],
    maps: &[UserMap],
) -> Result<SampleTable> {
    let rows_read = frame.height() as u64;
    crate::samples::check_twins(frame, resolved, twins, name)?;
    let (df, quality, decided) = crate::samples::normalize_deciding(frame, resolved, name)?;
    let present = resolved
        .iter()
        .map(|r| r.canonical)
        .chain([col::HOST])
        .collect();
    let mut quality2 = Quality::default();
    quality2.merge(quality);
    quality2.maps_found = crate::samples::maps_found(columns, maps);
    Ok(SampleTable {
        df,
        present,
        quality: quality2,
        sources: vec![name.to_string()],
        rows_read,
        decided,
    })
}

/// Read a tabular dump, projecting to the columns that map onto canonical ones.
pub fn read_tabular(
    name: &str,
    path: &Path,
    format: InputFormat,
    maps: &[UserMap],
) -> Result<SampleTable> {
    let kind = format.name();
    match format {
        // wide GPU columns, a trailing comma on every row, zone abbreviations
        InputFormat::Csv if !path.is_dir() && super::wide::wanted(path)? => {
            return super::wide::read_csv(name, path, maps);
        }
        InputFormat::Csv if !path.is_dir() => decode::check_csv_file(name, path)?,
        // a JSON array of objects reads as NDJSON does
        InputFormat::Ndjson
            if !path.is_dir() && read_head(path, 4096)?.trim_ascii_start().starts_with(b"[") =>
        {
            let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
            let frame = decode::parse(name, bytes, decode::Text::JsonArray)?;
            return super::from_frame(name, frame, maps, Quality::default());
        }
        _ => {}
    }
    let expected = match format {
        InputFormat::Parquet => "a parquet file (or a directory of them)",
        InputFormat::Csv => "a CSV file with a header row",
        InputFormat::Ndjson => "newline-delimited JSON objects",
        _ => "a tabular file",
    };
    // a polars error, cut short; for NDJSON, the line that breaks it when one does
    let refuse = |e: PolarsError| -> anyhow::Error {
        if format == InputFormat::Ndjson
            && let Err(line) = std::fs::read(path)
                .map_err(anyhow::Error::from)
                .and_then(|b| decode::check_ndjson_lines(name, &b))
        {
            return line;
        }
        anyhow::anyhow!("{name}: not {expected}: {}", decode::short(&e.to_string()))
    };
    if format == InputFormat::Ndjson {
        // every line, before polars reads it: a repeated key would otherwise
        // be read with one of its values picked silently
        decode::check_ndjson_file(name, path)?;
    }
    let mut lf = scan(path, format, Some(10_000)).map_err(refuse)?;
    let schema = lf.collect_schema().map_err(refuse)?;
    let columns: Vec<String> = schema.iter_names().map(|s| s.to_string()).collect();
    let resolved = resolve_columns(&columns, maps);
    require_time_and_gpu(name, &columns, &resolved)?;
    let twins = crate::samples::twins(&columns, &resolved);
    let projection: Vec<Expr> = resolved
        .iter()
        .chain(&twins)
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
        (Err(e), InputFormat::Ndjson) => {
            // name the line that breaks it, when one does
            let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
            decode::check_ndjson_lines(name, &bytes)?;
            return Err(anyhow::anyhow!(
                "{name}: not a readable {kind} file: {}",
                decode::short(&e.to_string())
            ));
        }
        (Err(e), _) => {
            return Err(anyhow::anyhow!(
                "{name}: not a readable {kind} file: {}",
                decode::short(&e.to_string())
            ));
        }
    };
    table_of(name, &frame, &resolved, &twins, &columns, maps)
}

pub fn preview(columns: &[String]) -> String {
    // names cut to 40 characters: a 200 MB header is elided, not echoed
    let shown: Vec<String> = columns
        .iter()
        .take(12)
        .map(|c| crate::text::shorten(c, 40))
        .collect();
    let more = if columns.len() > 12 {
        format!(", … ({} in all)", columns.len())
    } else {
        String::new()
    };
    format!("[{}{}]", shown.join(", "), more)
}

/// Every file below `dir`, sorted.
fn files_under(name: &str, dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .with_context(|| format!("{name}: cannot list {}", d.display()))?;
        for e in entries {
            let p = e
                .with_context(|| format!("{name}: cannot list {}", d.display()))?
                .path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The schema of one parquet file.
fn parquet_schema(p: &Path) -> Result<Schema> {
    let not_parquet = |e: PolarsError| {
        anyhow::anyhow!(
            "{}: not a parquet file{}: {}",
            p.display(),
            decode::not_parquet_hint(p),
            decode::short(&e.to_string())
        )
    };
    let mut lf = LazyFrame::scan_parquet(
        PlRefPath::new(p.to_string_lossy().as_ref()),
        ScanArgsParquet::default(),
    )
    .map_err(not_parquet)?;
    Ok(lf.collect_schema().map_err(not_parquet)?.as_ref().clone())
}

/// A directory is one parquet dataset: say in plain words when it is empty,
/// holds no parquet, or holds files whose columns differ (naming the file),
/// before polars answers in its own terms.
pub fn check_dir(name: &str, dir: &Path) -> Result<()> {
    let files = files_under(name, dir)?;
    let is_parquet = |p: &Path| InputFormat::from_extension(p) == Some(InputFormat::Parquet);
    let parquet: Vec<&std::path::PathBuf> = files.iter().filter(|p| is_parquet(p)).collect();
    if files.is_empty() {
        bail!("{name}: the directory is empty (expected parquet files, hive partitions allowed)");
    }
    if parquet.is_empty() {
        bail!(
            "{name}: the directory holds no parquet files ({} other files, such as {}); a directory is read as one parquet dataset: name the files or a glob ('{name}/*.csv') to read them",
            files.len(),
            files[0].display()
        );
    }
    if parquet.len() < files.len() {
        let other = files
            .iter()
            .find(|p| !is_parquet(p))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        bail!(
            "{name}: the directory mixes parquet with other files (such as {other}); name the files or a glob ('{name}/**/*.parquet')"
        );
    }
    let first = parquet[0];
    let want = parquet_schema(first)?;
    for p in parquet.iter().skip(1).take(10_000) {
        let got = parquet_schema(p)?;
        let differs = want
            .iter()
            .find_map(|(n, dt)| match got.get(n) {
                None => Some(format!("lacks column '{n}'")),
                Some(g) if g != dt => Some(format!("stores '{n}' as {g}, not {dt}")),
                Some(_) => None,
            })
            .or_else(|| {
                got.iter_names()
                    .find(|n| want.get(n).is_none())
                    .map(|n| format!("has column '{n}' the first file lacks"))
            });
        if let Some(why) = differs {
            bail!(
                "{name}: {} {why} (unlike {}); files that differ are read one by one as a glob: '{name}/**/*.parquet'",
                p.display(),
                first.display()
            );
        }
    }
    Ok(())
}
