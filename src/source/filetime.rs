//! The time given to samples that carry none: `--at`, else the file's
//! modification time, and the note that says which.
use crate::audit::model::{Note, TimeFrom, UntimedRows};
use crate::timeparse::EpochUs;
use anyhow::{Context, Result};
use std::path::Path;

/// The time for untimed samples of `path` and a note naming where it came from.
pub fn fallback_time(
    name: &str,
    path: &Path,
    at: Option<EpochUs>,
    rows: UntimedRows,
) -> Result<(EpochUs, Note)> {
    let note = |time_us, from| Note::UntimedRows {
        file: name.to_string(),
        rows,
        time_us,
        from,
    };
    if let Some(t) = at {
        return Ok((t, note(t, TimeFrom::At)));
    }
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).with_context(|| {
        format!("{name}: samples carry no timestamps and the file's modification time cannot be read (give --at TIME)")
    })?;
    let us = modified
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .with_context(|| {
            format!("{name}: the file's modification time is before 1970 (give --at TIME)")
        })?;
    Ok((us, note(us, TimeFrom::FileModified)))
}
