//! Parquet datasets read slice by slice, for the two-pass streaming audit:
//! memory stays bounded by the slice size and the number of GPUs, whatever
//! the number of rows. Only parquet streams: its row groups can be read at
//! any offset without reading what comes before.
use super::Input;
use crate::audit::ChunkSource;
use crate::samples::{Quality, Resolved, UserMap, col, normalize, resolve_columns};
use anyhow::{Context, Result, anyhow, bail};
use polars::prelude::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Rows per slice: ~100 bytes a row after projection keeps a slice near 100 MB.
pub const SLICE_ROWS: usize = 1_000_000;

struct Part {
    name: String,
    path: PathBuf,
    resolved: Vec<Resolved>,
    rows: usize,
}

pub struct ParquetStream {
    parts: Vec<Part>,
    present: BTreeSet<&'static str>,
    slice_rows: usize,
}

fn scan(path: &std::path::Path) -> PolarsResult<LazyFrame> {
    let args = ScanArgsParquet {
        hive_options: HiveOptions::new_enabled(),
        ..Default::default()
    };
    LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), args)
}

impl ParquetStream {
    /// A stream over the inputs when every one is parquet (a file or a
    /// directory of them); None otherwise.
    pub fn open(
        inputs: &[(String, Input)],
        maps: &[UserMap],
        forced_other: bool,
    ) -> Result<Option<Self>> {
        if forced_other || inputs.is_empty() {
            return Ok(None);
        }
        let mut parts = Vec::new();
        let mut present = BTreeSet::new();
        present.insert(col::HOST);
        for (name, input) in inputs {
            let path = match input {
                Input::ParquetDir(p) => p.clone(),
                Input::File(p)
                    if super::InputFormat::from_extension(p)
                        == Some(super::InputFormat::Parquet) =>
                {
                    p.clone()
                }
                _ => return Ok(None),
            };
            let mut lf = scan(&path)
                .map_err(|e| anyhow!("{name}: not a parquet file (or a directory of them): {e}"))?;
            let schema = lf
                .collect_schema()
                .map_err(|e| anyhow!("{name}: not a parquet file (or a directory of them): {e}"))?;
            let columns: Vec<String> = schema.iter_names().map(|s| s.to_string()).collect();
            let resolved = resolve_columns(&columns, maps);
            for needed in [col::TIME, col::GPU] {
                if !resolved.iter().any(|r| r.canonical == needed) {
                    bail!(
                        "{name}: no {needed} column (found {}; use --map YOURS={needed})",
                        columns
                            .iter()
                            .take(12)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
            }
            let rows_df = lf
                .select([len().alias("rows")])
                .collect()
                .map_err(|e| anyhow!("{name}: not a readable parquet file: {e}"))?;
            let rows = rows_df
                .column("rows")
                .map_err(anyhow::Error::from)?
                .cast(&DataType::UInt64)
                .map_err(anyhow::Error::from)?
                .u64()
                .map_err(anyhow::Error::from)?
                .get(0)
                .unwrap_or(0) as usize;
            present.extend(resolved.iter().map(|r| r.canonical));
            parts.push(Part {
                name: name.clone(),
                path,
                resolved,
                rows,
            });
        }
        // GPUAUDIT_SLICE_ROWS: smaller slices for tests (slice edges inside a
        // GPU's run) or less memory; not a user-facing option
        let slice_rows = std::env::var("GPUAUDIT_SLICE_ROWS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(SLICE_ROWS);
        Ok(Some(ParquetStream {
            parts,
            present,
            slice_rows,
        }))
    }

    /// The latest sample time, for relative --since/--until (parquet statistics make it cheap).
    pub fn max_time(&self) -> Result<Option<i64>> {
        let mut max: Option<i64> = None;
        for p in &self.parts {
            let Some(time) = p.resolved.iter().find(|r| r.canonical == col::TIME) else {
                continue;
            };
            let mut frame = scan(&p.path)
                .and_then(|lf| {
                    lf.select([polars::prelude::col(time.source.as_str()).max()])
                        .collect()
                })
                .map_err(|e| anyhow!("{}: {e}", p.name))?;
            if frame.height() == 0
                || frame
                    .column(&time.source)
                    .map(|c| c.null_count() > 0)
                    .unwrap_or(true)
            {
                continue;
            }
            frame
                .with_column(Column::new("__gpu".into(), vec!["-"; frame.height()]))
                .map_err(anyhow::Error::from)?;
            let rs = vec![
                time.clone(),
                Resolved {
                    source: "__gpu".to_string(),
                    canonical: col::GPU,
                    unit: crate::samples::Unit::AsIs,
                },
            ];
            let (df, _) = normalize(&frame, &rs, &p.name)?;
            let t = df
                .column(col::TIME)
                .map_err(anyhow::Error::from)?
                .cast(&DataType::Int64)
                .map_err(anyhow::Error::from)?;
            if let Some(m) = t.i64().map_err(anyhow::Error::from)?.get(0) {
                max = Some(max.map_or(m, |x: i64| x.max(m)));
            }
        }
        Ok(max)
    }
}

impl ChunkSource for ParquetStream {
    fn has(&self, column: &str) -> bool {
        self.present.contains(column)
    }

    fn sources(&self) -> Vec<String> {
        self.parts.iter().map(|p| p.name.clone()).collect()
    }

    fn rows_read(&self) -> u64 {
        self.parts.iter().map(|p| p.rows as u64).sum()
    }

    fn for_each_chunk(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<Quality> {
        // Read ahead: one thread decodes and normalizes the next slice while
        // this one audits the current (the audit is sequential per GPU, the
        // decoding is not). A rendezvous channel: at most two slices are
        // alive, the one being audited and the next (decoding or handed over).
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<DataFrame>>(0);
            let reader = scope.spawn(move || self.read_slices(keys_only, &tx));
            let mut audited = Ok(());
            for slice in rx.iter() {
                if let Err(e) = slice.and_then(|df| f(&df)) {
                    audited = Err(e);
                    break; // dropping the receiver stops the reader at its next send
                }
            }
            let quality = reader
                .join()
                .map_err(|_| anyhow!("the parquet reader thread panicked"))?;
            audited?;
            quality
        })
    }
}

impl ParquetStream {
    /// Sends each normalized slice, in order; returns what normalisation
    /// counted. Stops early when the receiver is gone (the audit failed).
    fn read_slices(
        &self,
        keys_only: bool,
        tx: &std::sync::mpsc::SyncSender<Result<DataFrame>>,
    ) -> Result<Quality> {
        let mut quality = Quality::default();
        for p in &self.parts {
            let resolved: Vec<Resolved> = if keys_only {
                p.resolved
                    .iter()
                    .filter(|r| matches!(r.canonical, c if c == col::TIME || c == col::HOST || c == col::GPU))
                    .cloned()
                    .collect()
            } else {
                p.resolved.clone()
            };
            let projection: Vec<Expr> = resolved
                .iter()
                .map(|r| polars::prelude::col(r.source.as_str()))
                .collect();
            let lf = scan(&p.path).map_err(|e| anyhow!("{}: {e}", p.name))?;
            let mut offset = 0usize;
            while offset < p.rows {
                let slice = lf
                    .clone()
                    .slice(offset as i64, self.slice_rows as IdxSize)
                    .select(projection.clone())
                    .collect()
                    .map_err(|e| anyhow!("{}: not a readable parquet file: {e}", p.name))
                    .and_then(|frame| {
                        let (df, q) = normalize(&frame, &resolved, &p.name)
                            .with_context(|| format!("reading {}", p.name))?;
                        Ok((frame.height(), df, q))
                    });
                match slice {
                    Ok((0, _, _)) => break,
                    Ok((height, df, q)) => {
                        quality.merge(q);
                        if tx.send(Ok(df)).is_err() {
                            return Ok(quality);
                        }
                        offset += height;
                    }
                    Err(e) => {
                        // the audit reports it; nothing after it is read
                        let _ = tx.send(Err(e));
                        return Ok(quality);
                    }
                }
            }
        }
        Ok(quality)
    }
}
