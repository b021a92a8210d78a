//! Scheduler queues (`--queue FILE`, docs/semantics.md §10, Demand): what
//! asked for GPUs and waited, as [`PendingRequest`]s. One file per family,
//! told apart by content: a Slurm `sacct -P` dump ([`slurm`]) or
//! kube-state-metrics series ([`kube`]) in a text exposition or a Prometheus
//! API response.
use crate::audit::diagnosis::demand::PendingRequest;
use crate::audit::model::Note;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

pub mod kube;
pub mod slurm;

/// Every request read from the `--queue` files, and what the readers say about them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queue {
    pub requests: Vec<PendingRequest>,
    pub notes: Vec<Note>,
}

/// Read every `--queue` file; None when none was given (demand then stays unknown).
pub fn read_queues(paths: &[PathBuf]) -> Result<Option<Queue>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut queue = Queue::default();
    for path in paths {
        let one = read_queue(path)?;
        queue.requests.extend(one.requests);
        queue.notes.extend(one.notes);
    }
    Ok(Some(queue))
}

/// One file, its family sniffed from its first line.
pub fn read_queue(path: &Path) -> Result<Queue> {
    let name = format!("--queue {}", path.display());
    let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name}: not UTF-8 text (byte {}): expected a sacct -P dump or kube-state-metrics series",
            e.utf8_error().valid_up_to() + 1
        )
    })?;
    let head = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if slurm::looks_like_sacct(head) {
        return slurm::read(&name, &text);
    }
    if crate::source::prometheus::json::looks_like_response(head_of(&text))
        || crate::source::prometheus::text::looks_like_exposition(head)
        || head.trim_start().starts_with('#')
    {
        return kube::read(&name, path, &text);
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
