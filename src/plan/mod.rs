//! One logical plan of what the audit needs from the samples, for engines that
//! hold more samples than one machine should pull (docs/semantics.md §14): the
//! audit's own rules (weights §2, held §3, idle §5) as data, and the table of
//! partial sums they produce, one row per (host, gpu, model, group). `sql`
//! renders the plan for an engine; `source::partials` reads its answer back
//! into the same tallies the engine's folds fill, so `report --partials` and
//! `report` build their report in one place (`audit::assemble`).
use crate::audit::{GroupBy, HeldRule};
use crate::metric::{AUDITED, AUDITED_DEFS, Slot};
use crate::samples::col;

pub(crate) mod promql;
pub(crate) mod rules;
pub(crate) mod sql;

/// The fraction metrics the plan reads (units decided per column, §1): the
/// registry's audited metrics, in its order.
pub const FRACTIONS: [&str; AUDITED] = fractions();

const fn fractions() -> [&'static str; AUDITED] {
    let mut out = [""; AUDITED];
    let mut i = 0;
    while i < AUDITED {
        out[i] = AUDITED_DEFS[i].name;
        i += 1;
    }
    out
}

/// The canonical columns the plan can read, in the order a table usually has them.
pub const READS: [&str; 15] = [
    col::TIME,
    col::HOST,
    col::GPU,
    col::MODEL,
    col::HELD,
    col::JOB,
    col::USER,
    col::TEAM,
    col::DEVICE_UTIL,
    col::SM_ACTIVE,
    col::SM_OCCUPANCY,
    col::TENSOR_ACTIVE,
    col::DRAM_ACTIVE,
    col::MEM_USED_BYTES,
    col::MEM_TOTAL_BYTES,
];

/// What a table has when `--columns` does not say: what `gpuaudit demo` writes.
pub const DEFAULT_COLUMNS: [&str; 15] = [
    col::TIME,
    col::HOST,
    col::GPU,
    col::MODEL,
    col::JOB,
    col::USER,
    col::TEAM,
    col::DEVICE_UTIL,
    col::SM_ACTIVE,
    col::SM_OCCUPANCY,
    col::TENSOR_ACTIVE,
    col::DRAM_ACTIVE,
    col::MEM_USED_BYTES,
    col::MEM_TOTAL_BYTES,
    col::POWER_W,
];

/// Which samples a partial sum adds up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Held,
    /// the held value could not be read (§3 rule 1)
    HeldUnknown,
    /// held, with this metric measured
    HeldWith(&'static str),
    /// held, without this metric
    HeldWithout(&'static str),
    /// held and idle (§5)
    Idle,
}

/// What a partial sum adds per sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// 1 per kept sample
    Count,
    /// the weight in ticks (µs): exact integer sums
    Ticks,
    /// the time beyond max gap after the sample, in ticks (unobserved)
    UnobservedTicks,
    /// the weight in hours
    Hours,
    /// the weight in hours times the metric
    HoursTimes(&'static str),
}

/// One column of the partial-sums table.
#[derive(Debug, Clone, Copy)]
pub struct PartialSum {
    pub name: &'static str,
    pub value: Value,
    pub filter: Filter,
}

const fn sum(name: &'static str, value: Value, filter: Filter) -> PartialSum {
    PartialSum {
        name,
        value,
        filter,
    }
}

/// The sums every plan has, before the metrics' own.
const BASE_SUMS: [PartialSum; 7] = [
    sum("samples", Value::Count, Filter::All),
    sum("observed_us", Value::Ticks, Filter::All),
    sum("held_us", Value::Ticks, Filter::Held),
    sum("held_unknown_us", Value::Ticks, Filter::HeldUnknown),
    sum(
        "held_unknown_activity_us",
        Value::Ticks,
        Filter::HeldWithout(col::DEVICE_UTIL),
    ),
    sum("idle_held_us", Value::Ticks, Filter::Idle),
    sum("unobserved_us", Value::UnobservedTicks, Filter::All),
];

const fn count_metric_sums() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < AUDITED {
        if AUDITED_DEFS[i].sums.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
}

/// How many registry metrics the plan sums.
const SUMMED: usize = count_metric_sums();

/// The registry metrics the plan sums (`metric::MetricDef::sums`): (slot, its
/// held hours x value, its measured held hours), by [`SUMS`]' names.
pub const METRIC_SUMS: [(Slot, &str, &str); SUMMED] = metric_sums();

const fn metric_sums() -> [(Slot, &'static str, &'static str); SUMMED] {
    let mut out = [(Slot(0), "", ""); SUMMED];
    let (mut i, mut n) = (0, 0);
    while i < AUDITED {
        if let Some((busy, known)) = AUDITED_DEFS[i].sums {
            out[n] = (Slot(i), busy, known);
            n += 1;
        }
        i += 1;
    }
    out
}

/// The sums of the plan: the tally's fields (`audit::tally::Tally`), each
/// from one value and one filter: [`BASE_SUMS`], then each summed metric's
/// two from the registry. A metric's sums are null where the table does not
/// have the metric (a null layer, never 0).
pub const SUMS: [PartialSum; BASE_SUMS.len() + 2 * SUMMED] = all_sums();

const fn all_sums() -> [PartialSum; BASE_SUMS.len() + 2 * SUMMED] {
    let mut out = [BASE_SUMS[0]; BASE_SUMS.len() + 2 * SUMMED];
    let mut i = 0;
    while i < BASE_SUMS.len() {
        out[i] = BASE_SUMS[i];
        i += 1;
    }
    let mut m = 0;
    while m < SUMMED {
        let (slot, busy, known) = METRIC_SUMS[m];
        let name = AUDITED_DEFS[slot.0].name;
        let at = BASE_SUMS.len() + 2 * m;
        out[at] = sum(busy, Value::HoursTimes(name), Filter::HeldWith(name));
        out[at + 1] = sum(known, Value::Hours, Filter::HeldWith(name));
        m += 1;
    }
    out
}

/// The sum holding a metric's held hours x value (None: not in the plan).
pub fn busy_sum(slot: Slot) -> Option<&'static str> {
    METRIC_SUMS
        .iter()
        .find(|(s, _, _)| *s == slot)
        .map(|(_, busy, _)| *busy)
}

/// Keys of a partial row, then its span and the GPU's own facts (the same
/// on every row of one GPU).
pub mod key {
    pub const HOST: &str = "host";
    pub const GPU: &str = "gpu";
    pub const MODEL: &str = "model";
    /// the `--by` label's value (null: none, or no --by)
    pub const GROUP: &str = "grp";
    /// first sample's time and the latest end of a weight, in ticks
    pub const START_US: &str = "start_us";
    pub const END_US: &str = "end_us";
    /// the latest sample of the row (the GPU's model is its latest one's)
    pub const LAST_US: &str = "last_us";
    pub const DUPLICATES: &str = "gpu_duplicates";
    /// rows outside --since/--until, the whole table's (the same on every row)
    pub const OUTSIDE: &str = "rows_outside_window";
    pub const LAST_HELD: &str = "gpu_last_held";
    pub const LAST_MEM_USED: &str = "gpu_last_mem_used_bytes";
    pub const LAST_MEM_TOTAL: &str = "gpu_last_mem_total_bytes";
    pub const LAST_POWER: &str = "gpu_last_power_w";
    /// JSON arrays of the jobs and users that held the GPU, most recent last
    pub const JOBS: &str = "gpu_jobs";
    pub const USERS: &str = "gpu_users";
    /// 1 when the GPU's only sample is a snapshot weighing --interval (or 1 h),
    /// 2 when it is a lone sample in a series weighing the fleet's step
    pub const SINGLE: &str = "gpu_single";
    /// what a GPU's single sample weighs: --interval, else the fleet's step
    /// (the median of the GPUs' steps), else one hour
    pub const SINGLE_WEIGHT: &str = "single_weight_us";
    /// the held rule the query used: held, job, memory:BYTES or assumed
    pub const HELD_RULE: &str = "held_rule";
    /// the canonical column the query grouped on (`--by`; null: none)
    pub const GROUPED_BY: &str = "grouped_by";
    /// a timeline row: its bucket's index (start ÷ bucket_us; null on GPU rows)
    pub const BUCKET: &str = "bucket";
    /// the query's `--bucket` in ticks (null: no timeline asked)
    pub const BUCKET_US: &str = "bucket_us";
}

/// The audit of a table, as an engine is asked it.
#[derive(Debug, Clone)]
pub struct AuditPlan {
    pub table: String,
    /// canonical name -> the table's column, for the columns the table has
    pub columns: Vec<(String, String)>,
    pub held: HeldRule,
    pub idle_below: f64,
    pub max_gap_us: Option<i64>,
    pub interval_us: Option<i64>,
    pub since_us: Option<i64>,
    pub until_us: Option<i64>,
    pub by: Option<GroupBy>,
    /// `--bucket`: the timeline's sums per bucket as well
    pub bucket_us: Option<i64>,
}

impl AuditPlan {
    /// The table's column for a canonical name, when it has one.
    pub fn source(&self, canonical: &str) -> Option<&str> {
        self.columns
            .iter()
            .find(|(c, _)| c == canonical)
            .map(|(_, s)| s.as_str())
    }

    /// The canonical column `--by` groups on.
    pub fn group_column(&self) -> Option<&'static str> {
        self.by.map(GroupBy::column)
    }

    /// The held rule as the answer names it (`source::partials` reads it back).
    pub fn held_rule_name(&self) -> String {
        self.held.key()
    }
}

/// `--columns` as given: `NAME` (the table spells it canonically) or
/// `CANONICAL=SOURCE`; every name must be one the plan reads, time and gpu required.
pub fn parse_columns(items: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in items {
        let (canonical, source) = match item.split_once('=') {
            Some((c, s)) => (c.trim(), s.trim()),
            None => (item.trim(), item.trim()),
        };
        let known = READS.contains(&canonical) || canonical == col::POWER_W;
        if !known || source.is_empty() {
            anyhow::bail!(
                "--columns: {item:?} is not a canonical column the plan reads (expected NAME or CANONICAL=SOURCE, NAME one of {}, {})",
                READS.join(", "),
                col::POWER_W
            );
        }
        if out.iter().any(|(c, _)| c == canonical) {
            anyhow::bail!("--columns: {canonical} is given twice");
        }
        out.push((canonical.to_string(), source.to_string()));
    }
    for required in [col::TIME, col::GPU] {
        if !out.iter().any(|(c, _)| c == required) {
            anyhow::bail!("--columns must name the {required} column");
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_canonical_names_or_renames_with_time_and_gpu() -> anyhow::Result<()> {
        let c = parse_columns(&["time".into(), "gpu=uuid".into(), " device_util ".into()])?;
        assert_eq!(
            c,
            vec![
                ("time".to_string(), "time".to_string()),
                ("gpu".to_string(), "uuid".to_string()),
                ("device_util".to_string(), "device_util".to_string()),
            ]
        );
        let err = |items: &[&str]| {
            parse_columns(&items.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .map_err(|e| e.to_string())
                .err()
                .unwrap_or_default()
        };
        assert!(err(&["time", "gpu", "util"]).contains("\"util\" is not a canonical column"));
        assert!(err(&["time", "gpu", "gpu=uuid"]).contains("gpu is given twice"));
        assert!(err(&["time", "host"]).contains("must name the gpu column"));
        Ok(())
    }

    #[test]
    fn the_sums_come_from_the_registry_in_the_partials_tables_names() {
        let names: Vec<&str> = SUMS.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "samples",
                "observed_us",
                "held_us",
                "held_unknown_us",
                "held_unknown_activity_us",
                "idle_held_us",
                "unobserved_us",
                "active_h",
                "active_known_h",
                "sm_h",
                "sm_known_h",
                "occ_h",
                "occ_known_h",
                "tensor_h",
                "tensor_known_h",
            ]
        );
        assert_eq!(SUMS[9].value, Value::HoursTimes(col::SM_ACTIVE));
        assert_eq!(SUMS[12].filter, Filter::HeldWith(col::SM_OCCUPANCY));
        assert_eq!(
            FRACTIONS,
            [
                col::DEVICE_UTIL,
                col::SM_ACTIVE,
                col::SM_OCCUPANCY,
                col::TENSOR_ACTIVE,
                col::DRAM_ACTIVE
            ]
        );
        assert_eq!(busy_sum(crate::metric::TENSOR_ACTIVE), Some("tensor_h"));
        assert_eq!(busy_sum(crate::metric::DRAM_ACTIVE), None);
    }

    #[test]
    fn every_sum_is_a_tally_field_with_one_value_and_one_filter() {
        let names: Vec<&str> = SUMS.iter().map(|s| s.name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), SUMS.len());
        // a metric's hours and its known hours share one filter, so a ratio
        // divides like by like (docs/semantics.md §4)
        for (_, sum, known) in METRIC_SUMS {
            let f = |n: &str| SUMS.iter().find(|s| s.name == n).map(|s| s.filter);
            assert_eq!(f(sum), f(known), "{sum}");
        }
    }
}
