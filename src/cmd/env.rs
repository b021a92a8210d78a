//! The environment, read once: tuning knobs that are not flags (tests,
//! benchmarks, tracing) become plain option fields here, so nothing below
//! cmd/ reads the environment. (The Prometheus credentials come through
//! clap's `env =` in cli/prometheus.rs, the other door.)
use anyhow::{Context, Result};
use std::path::PathBuf;

/// What the environment sets; None: not set (the built-in choice).
#[derive(Debug, Clone, Default)]
pub struct Tuning {
    /// GPUAUDIT_READ_AHEAD=0/1: decode the next parquet slice while one is
    /// audited, or not (else chosen by the slices' size); =0 also keeps the
    /// text spool's parquet writer on the parsing thread
    pub read_ahead: Option<bool>,
    /// GPUAUDIT_SLICE_ROWS: rows per parquet slice (smaller: slice edges
    /// inside a GPU's run in tests, or less memory)
    pub slice_rows: Option<usize>,
    /// GPUAUDIT_TEXT_BLOCK_BYTES: bytes of CSV/NDJSON parsed at once when
    /// spooled (smaller: block edges inside a GPU's run in tests)
    pub text_block_bytes: Option<usize>,
    /// GPUAUDIT_STREAM_TEXT_ABOVE: the memory bound above which CSV/NDJSON
    /// stream in blocks (a size: `64MiB`, `4MB`, `0`: always)
    pub stream_text_above: Option<u64>,
    /// GPUAUDIT_PROM_TRACE: a file every Prometheus request is appended to
    pub prom_trace: Option<PathBuf>,
}

impl Tuning {
    pub fn from_env() -> Result<Tuning> {
        Ok(Tuning {
            read_ahead: match std::env::var("GPUAUDIT_READ_AHEAD").as_deref() {
                Ok("0") => Some(false),
                Ok("1") => Some(true),
                _ => None,
            },
            slice_rows: positive("GPUAUDIT_SLICE_ROWS"),
            text_block_bytes: positive("GPUAUDIT_TEXT_BLOCK_BYTES"),
            stream_text_above: stream_text_above()?,
            prom_trace: std::env::var_os("GPUAUDIT_PROM_TRACE").map(PathBuf::from),
        })
    }
}

/// A positive whole number, or None (unset or not one: the built-in value).
fn positive(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
}

/// GPUAUDIT_STREAM_TEXT_ABOVE as a size; a value that is not one is refused.
fn stream_text_above() -> Result<Option<u64>> {
    let Ok(text) = std::env::var("GPUAUDIT_STREAM_TEXT_ABOVE") else {
        return Ok(None);
    };
    crate::timeparse::parse_size_bytes(&text)
        .map(Some)
        .with_context(|| {
            format!("GPUAUDIT_STREAM_TEXT_ABOVE={text:?}: expected a size such as 64MiB")
        })
}

/// Sizes polars' own thread pool (the parquet decoder's) to `--threads`
/// before anything uses it: with `--threads 1` the whole run is one thread.
/// The one environment variable written: polars reads it when its pool
/// starts, and offers no other way to size that pool.
pub fn limit_polars_threads(threads: usize) {
    // SAFETY: called once from cmd::run, before any thread of this process
    // starts (nothing else reads or writes the environment then).
    unsafe { std::env::set_var("POLARS_MAX_THREADS", threads.to_string()) };
}
