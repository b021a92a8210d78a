//! Scheduler queues (`--queue FILE`, docs/semantics.md §10, Demand): what
//! asked for GPUs and waited, as [`PendingRequest`]s. One file per family,
//! told apart by content: a Slurm `sacct -P` dump ([`slurm`]) or
//! kube-state-metrics series ([`kube`]) in a text exposition or a Prometheus
//! API response.
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

pub mod kube;
pub mod slurm;

pub use crate::audit::diagnosis::demand::Queue;

/// Read every `--queue` file; None when none was given (demand then stays unknown).
/// `offset`: the zone of sacct times printed without one (`--queue-tz`).
pub fn read_queues(paths: &[PathBuf], offset: chrono::FixedOffset) -> Result<Option<Queue>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut queue = Queue::default();
    for path in paths {
        let one = read_queue(path, offset)?;
        queue.requests.extend(one.requests);
        queue.notes.extend(one.notes);
    }
    Ok(Some(queue))
}

/// One file, its family sniffed from its first line.
pub fn read_queue(path: &Path, offset: chrono::FixedOffset) -> Result<Queue> {
    let name = format!("--queue {}", path.display());
    let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name}: not UTF-8 text (byte {}): expected a sacct -P dump or kube-state-metrics series",
            e.utf8_error().valid_up_to() + 1
        )
    })?;
    // a byte-order mark (a dump saved by a Windows editor) is not part of the header
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let head = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if slurm::looks_like_sacct(head) {
        return slurm::read(&name, text, offset);
    }
    if crate::source::prometheus::json::looks_like_response(head_of(text))
        || crate::source::prometheus::text::looks_like_exposition(head)
        || head.trim_start().starts_with('#')
    {
        return kube::read(&name, path, text);
    }
    bail!(
        "{name}:1: not a queue: expected a sacct -P dump (header JobID|User|...|ReqTRES) or kube-state-metrics series"
    )
}

/// The first 4096 characters (on a character boundary), for sniffing.
fn head_of(text: &str) -> &str {
    let end = text.char_indices().nth(4096).map_or(text.len(), |(i, _)| i);
    text.get(..end).unwrap_or(text)
}

/// `--queue-tz`: `UTC` (or `Z`) or a fixed offset from UTC, `+02:00`, `-0500`.
pub fn parse_zone(text: &str) -> Result<chrono::FixedOffset> {
    let t = text.trim();
    let fail = || {
        anyhow::anyhow!("--queue-tz: expected UTC or an offset like +02:00 or -05:00, found '{t}'")
    };
    if t.eq_ignore_ascii_case("utc") || t.eq_ignore_ascii_case("z") {
        return chrono::FixedOffset::east_opt(0).ok_or_else(fail);
    }
    let (sign, rest) = match t.split_at_checked(1) {
        Some(("+", r)) => (1, r),
        Some(("-", r)) => (-1, r),
        _ => return Err(fail()),
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(fail());
    }
    let (h, m) = digits.split_at(2);
    let (h, m): (i32, i32) = (
        h.parse().map_err(|_| fail())?,
        m.parse().map_err(|_| fail())?,
    );
    if h > 23 || m > 59 {
        return Err(fail());
    }
    chrono::FixedOffset::east_opt(sign * (h * 3600 + m * 60)).ok_or_else(fail)
}

/// "UTC" for a zero offset, else `+02:00`.
pub fn zone_name(offset: chrono::FixedOffset) -> String {
    if offset.local_minus_utc() == 0 {
        "UTC".to_string()
    } else {
        offset.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_utc_or_fixed_offsets() -> Result<()> {
        assert_eq!(parse_zone("UTC")?.local_minus_utc(), 0);
        assert_eq!(parse_zone("+02:00")?.local_minus_utc(), 7200);
        assert_eq!(parse_zone("-0530")?.local_minus_utc(), -19800);
        assert_eq!(zone_name(parse_zone("+02:00")?), "+02:00");
        assert_eq!(zone_name(parse_zone("z")?), "UTC");
        for bad in ["Europe/Paris", "+2", "+25:00", "02:00", ""] {
            assert!(parse_zone(bad).is_err(), "{bad}");
        }
        Ok(())
    }
}
