//! The one home of the held rule (docs/semantics.md §3): which rule an
//! input is held by, what one sample's values say, and what a device read
//! (processes, memory) says for the sources that decide held themselves.
use super::AuditConfig;
use super::model::HeldBasis;
use crate::samples::{col, spellings};
use anyhow::{Result, bail};

/// A held column's words (any case, trimmed): true, and false; anything else
/// is unreadable (held unknown). Numbers 1 and 0 read alike (`1.0` too). The
/// SQL plan (`plan::sql`) reads the same lists.
pub const HELD_TRUE: &[&str] = &["true", "1", "yes", "t", "y"];
pub const HELD_FALSE: &[&str] = &["false", "0", "no", "f", "n"];

/// A comparison a rule makes; the reader evaluates it here and every
/// pushdown dialect writes it with the same operator (`plan::rules`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Above,
    Below,
}

impl Cmp {
    pub fn op(self) -> &'static str {
        match self {
            Cmp::Above => ">",
            Cmp::Below => "<",
        }
    }

    /// The operator of the comparison's complement (what is not idle).
    pub fn negated_op(self) -> &'static str {
        match self {
            Cmp::Above => "<=",
            Cmp::Below => ">=",
        }
    }

    pub fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Cmp::Above => value > bound,
            Cmp::Below => value < bound,
        }
    }
}

/// Idle (docs/semantics.md §5): device activity below --idle-below. The one
/// statement of the comparison: the reader, the leak classes and the
/// SQL/PromQL plans all read it from here.
pub const IDLE_CMP: Cmp = Cmp::Below;

/// Whether a measured device activity counts as idle.
pub fn below_idle(device_util: f64, idle_below: f64) -> bool {
    IDLE_CMP.holds(device_util, idle_below)
}

/// Whether a held sample is idle: held, its device activity known and idle.
pub fn is_idle(held: bool, device_util: Option<f64>, idle_below: f64) -> bool {
    held && device_util.is_some_and(|u| below_idle(u, idle_below))
}

/// Memory used holds a GPU when it is above --held-mem (bytes, exact as f64
/// below 8 PiB).
pub const HELD_MEM_CMP: Cmp = Cmp::Above;

/// --held-mem's default: 1 GiB.
pub const DEFAULT_HELD_MEM_BYTES: u64 = 1 << 30;

/// The held rule's settings (a part of `AuditConfig`): a new setting of the
/// rule is a field here with its default, its flag in `cli/`, one line in
/// `cmd/common.rs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldSettings {
    /// `--held-mem`: memory used above this many bytes holds a GPU
    pub mem_bytes: u64,
    /// `--assume-held`: with no held, job or memory column, every sample is held
    pub assume: bool,
}

impl Default for HeldSettings {
    fn default() -> Self {
        HeldSettings {
            mem_bytes: DEFAULT_HELD_MEM_BYTES,
            assume: false,
        }
    }
}

/// The idle rule's settings (§5), a part of `AuditConfig`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleSettings {
    /// `--idle-below`: device activity below this fraction is idle
    pub below: f64,
    /// `--min-idle`: idle episodes at least this long (ticks) are listed
    pub min_episode_us: i64,
}

impl Default for IdleSettings {
    fn default() -> Self {
        IdleSettings {
            below: 0.01,
            min_episode_us: 30 * super::interval::TICKS_PER_MINUTE,
        }
    }
}

/// What one sample is held by (§3), as data every dialect writes
/// (`plan::rules` re-exports it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HeldTest {
    /// the held column's words (trimmed, any case): `plan::rules::held_words`
    Words,
    /// an owner is named: the job column, or the owner label in PromQL
    Owner,
    /// a canonical column against a bound (memory used above --held-mem, in bytes)
    Threshold {
        column: &'static str,
        cmp: Cmp,
        bound: f64,
    },
    /// --assume-held
    Always,
}

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
            HeldRule::Memory(limit) => {
                mem_used.is_some_and(|m| HELD_MEM_CMP.holds(m as f64, limit as f64))
            }
            HeldRule::Assumed => true,
        }
    }

    /// The rule as a test each dialect writes (`plan::sql`, `plan::promql`).
    pub fn test(self) -> HeldTest {
        match self {
            HeldRule::HeldColumn => HeldTest::Words,
            HeldRule::JobColumn => HeldTest::Owner,
            HeldRule::Memory(limit) => HeldTest::Threshold {
                column: col::MEM_USED_BYTES,
                cmp: HELD_MEM_CMP,
                bound: limit as f64,
            },
            HeldRule::Assumed => HeldTest::Always,
        }
    }

    /// The rule as the partial sums name it (`plan::key::HELD_RULE`):
    /// held, job, memory:BYTES or assumed; [`HeldRule::from_key`] reads it back.
    pub fn key(self) -> String {
        match self {
            HeldRule::HeldColumn => "held".into(),
            HeldRule::JobColumn => "job".into(),
            HeldRule::Memory(bytes) => format!("memory:{bytes}"),
            HeldRule::Assumed => "assumed".into(),
        }
    }

    /// A rule's key read back (None: not a key [`HeldRule::key`] writes).
    pub fn from_key(text: &str) -> Option<HeldRule> {
        match text.split_once(':') {
            None if text == "held" => Some(HeldRule::HeldColumn),
            None if text == "job" => Some(HeldRule::JobColumn),
            None if text == "assumed" => Some(HeldRule::Assumed),
            Some(("memory", bytes)) => bytes.parse().ok().map(HeldRule::Memory),
            _ => None,
        }
    }

    /// The keys' forms, for a message about one that is not.
    pub const KEY_FORMS: &str = "held, job, memory:BYTES or assumed";

    /// The rule as a PromQL pushdown states it: a threshold reads the
    /// exporter's memory series.
    pub fn promql_basis(self) -> HeldBasis {
        match self {
            HeldRule::Memory(b) => HeldBasis::PromMemoryAbove {
                mib: b / (1024 * 1024),
            },
            rule => rule.basis(),
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
        Ok(HeldRule::Memory(cfg.held.mem_bytes))
    } else if cfg.held.assume {
        Ok(HeldRule::Assumed)
    } else {
        bail!(
            "{}: cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column ({}) and no memory column ({}); add one, map one with --map, or pass --assume-held",
            crate::error::echo(&sources.join(", ")),
            // the first few of each: the line stays within the error bound whole
            spellings(col::JOB, 3),
            spellings(col::MEM_USED_BYTES, 2)
        )
    }
}

/// Held, read off a device: a compute process on it; where none is visible
/// (a container's PID namespace hides them from nvidia-smi and NVML),
/// activity above 0 or memory used above `held_mem_bytes` (docs/semantics.md
/// §3). Unknown (None) only when nothing could be read.
pub fn held_by_device(
    has_process: Option<bool>,
    busy: Option<f64>,
    mem_used: Option<u64>,
    held_mem_bytes: u64,
) -> Option<bool> {
    let by_mem = mem_used.map(|m| m > held_mem_bytes);
    let by_busy = busy.filter(|b| b.is_finite()).map(|b| b > 0.0);
    match (has_process, by_busy, by_mem) {
        (Some(true), _, _) | (_, Some(true), _) | (_, _, Some(true)) => Some(true),
        (None, None, None) => None,
        _ => Some(false),
    }
}

/// Held with no compute process visible: by activity or memory alone (the
/// basis "memory; processes not visible", counted in data quality).
pub fn held_without_visible_process(
    has_process: Option<bool>,
    busy: Option<f64>,
    mem_used: Option<u64>,
    held_mem_bytes: u64,
) -> bool {
    has_process != Some(true)
        && held_by_device(has_process, busy, mem_used, held_mem_bytes) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_or_memory_above_the_limit_holds() {
        assert_eq!(held_by_device(Some(true), None, None, 1024), Some(true));
        assert_eq!(
            held_by_device(Some(false), None, Some(2048), 1024),
            Some(true)
        );
        assert_eq!(
            held_by_device(Some(false), Some(0.0), Some(1024), 1024),
            Some(false)
        );
        assert_eq!(
            held_by_device(Some(false), Some(0.65), Some(0), 1024),
            Some(true)
        );
        assert_eq!(held_by_device(None, None, Some(10), 1024), Some(false));
        assert_eq!(held_by_device(None, None, None, 1024), None);
        assert!(held_without_visible_process(
            Some(false),
            Some(0.65),
            None,
            1024
        ));
        assert!(held_without_visible_process(None, None, Some(2048), 1024));
        assert!(!held_without_visible_process(
            Some(true),
            Some(0.65),
            Some(2048),
            1024
        ));
        assert!(!held_without_visible_process(
            Some(false),
            Some(0.0),
            Some(1024),
            1024
        ));
        assert!(HeldRule::Memory(1024).holds(None, false, Some(1025)));
        assert!(!HeldRule::Memory(1024).holds(None, true, None));
    }
}
