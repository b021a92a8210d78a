//! The one home of the held rule (docs/semantics.md §3): which rule an
//! input is held by, what one sample's values say, and what a device read
//! (processes, memory) says for the sources that decide held themselves.
use super::AuditConfig;
use super::model::HeldBasis;
use crate::samples::col;
use anyhow::{Result, bail};

/// How a row is decided held (docs/semantics.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldRule {
    HeldColumn,
    JobColumn,
    Memory(u64),
    Assumed,
}

impl HeldRule {
    /// Whether one sample is held, from the values the rules read: the held
    /// column, whether a job is set, the memory used.
    pub fn holds(self, held: Option<bool>, has_job: bool, mem_used: Option<u64>) -> bool {
        match self {
            HeldRule::HeldColumn => held.unwrap_or(false),
            HeldRule::JobColumn => has_job,
            HeldRule::Memory(limit) => mem_used.is_some_and(|m| m > limit),
            HeldRule::Assumed => true,
        }
    }

    /// The rule as the report states it (its words: render/notes.rs).
    pub fn basis(self) -> HeldBasis {
        match self {
            HeldRule::HeldColumn => HeldBasis::HeldColumn,
            HeldRule::JobColumn => HeldBasis::JobColumn,
            HeldRule::Memory(b) => HeldBasis::MemoryAbove {
                mib: b / (1024 * 1024),
            },
            HeldRule::Assumed => HeldBasis::Assumed,
        }
    }
}

/// The held rule for any source that can say which canonical columns it has.
pub fn held_rule_from(
    has: &dyn Fn(&str) -> bool,
    sources: &[String],
    cfg: &AuditConfig,
) -> Result<HeldRule> {
    if has(col::HELD) {
        Ok(HeldRule::HeldColumn)
    } else if has(col::JOB) {
        Ok(HeldRule::JobColumn)
    } else if has(col::MEM_USED_BYTES) {
        Ok(HeldRule::Memory(cfg.held_mem_bytes))
    } else if cfg.assume_held {
        Ok(HeldRule::Assumed)
    } else {
        bail!(
            "{}: cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column (job, pod, hpc_job) and no memory column (mem_used_bytes, DCGM_FI_DEV_FB_USED, memory.used); add one, map one with --map, or pass --assume-held",
            crate::error::echo(&sources.join(", "))
        )
    }
}

/// Held, read off a device: a compute process on it, or memory used above
/// `held_mem_bytes`. Unknown (None) only when neither could be read; a source
/// that lists processes but reads no memory passes `mem_used: None`.
pub fn held_by_device(
    has_process: Option<bool>,
    mem_used: Option<u64>,
    held_mem_bytes: u64,
) -> Option<bool> {
    let by_mem = mem_used.map(|m| m > held_mem_bytes);
    match (has_process, by_mem) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (None, None) => None,
        _ => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_or_memory_above_the_limit_holds() {
        assert_eq!(held_by_device(Some(true), None, 1024), Some(true));
        assert_eq!(held_by_device(Some(false), Some(2048), 1024), Some(true));
        assert_eq!(held_by_device(Some(false), Some(1024), 1024), Some(false));
        assert_eq!(held_by_device(None, Some(10), 1024), Some(false));
        assert_eq!(held_by_device(None, None, 1024), None);
        assert!(HeldRule::Memory(1024).holds(None, false, Some(1025)));
        assert!(!HeldRule::Memory(1024).holds(None, true, None));
    }
}
