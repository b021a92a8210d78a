//! Writing a canonical sample table back out (.parquet, .csv, .ndjson), so that
//! `gpuaudit report FILE` reads exactly what was audited.
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

/// Write `df` (canonical columns) to `path`, the format chosen by its extension.
/// Written to a temporary file beside it and renamed into place, so `path` is
/// either the old file or the whole new one, never half a file (a scan stopped
/// by a signal, a full disk).
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
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        bail!("--out {}: not a file name", path.display());
    };
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = write_as(df, &temp, &ext).and_then(|()| {
        std::fs::rename(&temp, path).with_context(|| {
            format!(
                "--out {}: cannot rename {} into place",
                path.display(),
                temp.display()
            )
        })
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A parquet file written chunk by chunk (one row group each), to a
/// temporary file beside `path` renamed into place by [`ParquetSink::finish`]
/// (dropped unfinished, it is removed).
pub struct ParquetSink {
    path: std::path::PathBuf,
    temp: std::path::PathBuf,
    writer: Option<polars::io::parquet::write::BatchedWriter<std::io::BufWriter<File>>>,
}

impl ParquetSink {
    pub fn create(path: &Path, schema: &Schema) -> Result<Self> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .with_context(|| format!("-o {}: not a file name", path.display()))?;
        let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file =
            File::create(&temp).with_context(|| format!("-o: cannot create {}", temp.display()))?;
        let writer = ParquetWriter::new(std::io::BufWriter::with_capacity(1 << 20, file))
            .with_compression(ParquetCompression::Zstd(None))
            .batched(schema)
            .map_err(anyhow::Error::from)
            .with_context(|| format!("-o: cannot write {}", temp.display()))?;
        Ok(ParquetSink {
            path: path.to_path_buf(),
            temp,
            writer: Some(writer),
        })
    }

    pub fn write(&mut self, df: &DataFrame) -> Result<()> {
        let mut df = df.clone();
        df.rechunk_mut();
        if let Some(w) = self.writer.as_mut() {
            w.write_batch(&df)
                .map_err(anyhow::Error::from)
                .with_context(|| format!("-o: cannot write {}", self.temp.display()))?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        if let Some(w) = self.writer.take() {
            w.finish()
                .map_err(anyhow::Error::from)
                .with_context(|| format!("-o: cannot write {}", self.temp.display()))?;
        }
        std::fs::rename(&self.temp, &self.path).with_context(|| {
            format!(
                "-o {}: cannot rename {} into place",
                self.path.display(),
                self.temp.display()
            )
        })
    }
}

impl Drop for ParquetSink {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

fn write_as(df: &DataFrame, temp: &Path, ext: &str) -> Result<()> {
    let mut df = df.clone();
    let mut file =
        File::create(temp).with_context(|| format!("--out: cannot create {}", temp.display()))?;
    let written = match ext {
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
        .with_context(|| format!("--out: cannot write {}", temp.display()))?;
    // on disk before the rename makes it the file
    file.sync_all()
        .with_context(|| format!("--out: cannot write {}", temp.display()))
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
            vec![1_780_000_000_000_000i64, 1_780_000_001_000_250],
        )
        .cast(&DataType::Datetime(
            TimeUnit::Microseconds,
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
            // microseconds survive every format
            let t = table.df.column(col::TIME)?.cast(&DataType::Int64)?;
            let t: Vec<Option<i64>> = t.i64()?.iter().collect();
            assert_eq!(
                t,
                vec![Some(1_780_000_000_000_000), Some(1_780_000_001_000_250)],
                "{name}"
            );
        }
        assert!(write_samples(&df, &dir.path().join("s.txt")).is_err());
        // no temporary file left beside the output
        let left: Vec<_> = std::fs::read_dir(dir.path())?
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 3, "{left:?}");
        // a write that cannot happen names the output and leaves nothing behind
        let err = write_samples(&df, &dir.path().join("missing-dir").join("s.parquet"))
            .expect_err("no such dir");
        assert!(format!("{err:#}").contains("missing-dir"), "{err:#}");
        Ok(())
    }
}
