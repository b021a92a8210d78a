//! Writing a canonical sample table back out (.parquet, .csv, .ndjson), so that
//! `gpuaudit report FILE` reads exactly what was audited.
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

/// Write `df` (canonical columns) to `path`, the format chosen by its extension.
pub fn write_samples(df: &DataFrame, path: &Path) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !matches!(ext.as_str(), "parquet" | "csv" | "ndjson" | "jsonl") {
        bail!(
            "--out {}: expected a .parquet, .csv or .ndjson file",
            path.display()
        );
    }
    let mut df = df.clone();
    let mut file =
        File::create(path).with_context(|| format!("--out {}: cannot create", path.display()))?;
    let written = match ext.as_str() {
        "parquet" => ParquetWriter::new(&mut file)
            .with_compression(ParquetCompression::Zstd(None))
            .finish(&mut df)
            .map(|_| ()),
        "csv" => CsvWriter::new(&mut file)
            .include_header(true)
            .finish(&mut df),
        _ => JsonWriter::new(&mut file)
            .with_json_format(JsonFormat::JsonLines)
            .finish(&mut df),
    };
    written
        .map_err(anyhow::Error::from)
        .with_context(|| format!("--out {}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::col;

    #[test]
    fn every_format_reads_back_the_same_rows() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let time = Series::new(
            col::TIME.into(),
            vec![1_780_000_000_000i64, 1_780_000_001_000],
        )
        .cast(&DataType::Datetime(
            TimeUnit::Milliseconds,
            Some(TimeZone::UTC),
        ))?;
        let df = DataFrame::new(
            2,
            vec![
                time.into_column(),
                Column::new(col::GPU.into(), ["GPU-a", "GPU-a"]),
                Column::new(col::DEVICE_UTIL.into(), [Some(0.5), None]),
            ],
        )?;
        for name in ["s.parquet", "s.csv", "s.ndjson"] {
            let path = dir.path().join(name);
            write_samples(&df, &path)?;
            let table = crate::source::load(
                &[path.display().to_string()],
                &crate::source::ReadOptions {
                    quiet: true,
                    ..Default::default()
                },
            )?;
            assert_eq!(table.df.height(), 2, "{name}");
            let u = table.df.column(col::DEVICE_UTIL)?.f64()?.clone();
            assert_eq!(u.get(0), Some(0.5), "{name}");
            assert_eq!(u.get(1), None, "{name}");
        }
        assert!(write_samples(&df, &dir.path().join("s.txt")).is_err());
        Ok(())
    }
}
