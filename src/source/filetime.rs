//! The time given to samples that carry none: `--at`, else the file's
//! modification time, and the note that says which.
use crate::timeparse::{EpochUs, format_time};
use anyhow::{Context, Result};
use std::path::Path;

/// The time for untimed samples of `path` and a note naming where it came from.
pub fn fallback_time(
    name: &str,
    path: &Path,
    at: Option<EpochUs>,
    what: &str,
) -> Result<(EpochUs, String)> {
    if let Some(t) = at {
        return Ok((
            t,
            format!(
                "{name}: {what} without timestamps took --at {}",
                format_time(t)
            ),
        ));
    }
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).with_context(|| {
        format!("{name}: samples carry no timestamps and the file's modification time cannot be read (give --at TIME)")
    })?;
    let ms = modified
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .with_context(|| {
            format!("{name}: the file's modification time is before 1970 (give --at TIME)")
        })?;
    Ok((
        ms,
        format!(
            "{name}: {what} without timestamps took the file's modification time {} (give --at TIME to set it)",
            format_time(ms)
        ),
    ))
}
