//! The report as data: what every renderer formats and what `--format json`
//! serialises as the "gpuaudit.report/1" contract (docs/semantics.md §7).
//! Times are `DateTime<Utc>`, written as the RFC 3339 text report/1 has
//! always carried (`…Z`, a fraction only when present) and sorted as times.
use crate::metric;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "gpuaudit.report/1";

/// Every struct of the model carries `#[serde(default)]`: a field added after
/// `gpuaudit.report/1` was first released never breaks the baselines committed
/// in users' repositories (testdata/compat/ pins that). What makes a document
/// a report is its `schema` string, which `gpuaudit check` tests first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Report {
    pub schema: String,
    pub window: Window,
    pub sources: Sources,
    pub data_quality: DataQuality,
    pub held_rule: HeldBasis,
    pub layers: Layers,
    pub ratios: Ratios,
    pub cost: Cost,
    /// the layers in waterfall order with their shares, for display
    pub waterfall: Vec<WaterfallStep>,
    pub idle_episodes: Vec<IdleEpisode>,
    /// idle episodes found (before --top and --min-idle cut the list)
    pub idle_episodes_total: usize,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub groups: Option<Vec<Group>>,
    /// per GPU (or MIG instance)
    pub gpus: Vec<GpuSummary>,
    pub gpu_count: usize,
    /// idle episodes of one job over the same span, one row for all its GPUs
    /// (before --top cuts the list); absent in documents written before it
    #[serde(default)]
    pub idle_episode_groups: Vec<IdleEpisodeGroup>,
    /// grouped episodes found (before --top)
    #[serde(default)]
    pub idle_episode_groups_total: usize,
    /// a mixed fleet (or one without NVIDIA): a line per vendor family, with
    /// the metric each layer came from (docs/semantics.md §9); absent otherwise
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vendors: Vec<VendorLine>,
    /// timeline, leaks, nodes, purchase (docs/semantics.md §10): top-level keys
    #[serde(flatten)]
    pub diagnosis: super::diagnosis::Sections,
}

/// One vendor family's part of the fleet: its GPUs, held hours, dollars and,
/// per layer, which of the vendor's counters measured it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct VendorLine {
    /// "NVIDIA", "AMD", "Intel", "Google", or "unknown" (a model the catalog does not name)
    pub vendor: String,
    /// the product family: "AMD Instinct", "Intel Gaudi", … ("unknown")
    pub family: String,
    pub gpus: usize,
    /// the model names the data reported, sorted
    pub models: Vec<String>,
    pub observed_gpu_hours: f64,
    pub held_gpu_hours: f64,
    pub held_usd: Option<f64>,
    pub idle_held_usd: Option<f64>,
    pub layers: VendorLayers,
}

/// The device (active), chip (SM) and tensor layers of one vendor line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct VendorLayers {
    pub device: VendorLayer,
    pub chip: VendorLayer,
    pub tensor: VendorLayer,
}

/// One layer of a vendor line: its GPU-hours where measured and its source.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct VendorLayer {
    /// the vendor exporter's series that feeds this layer; null: the vendor
    /// has no such counter (or the model is unknown)
    pub metric: Option<String>,
    /// true when the counter is not the measurement NVIDIA's layer is
    pub approximate: bool,
    /// why it is approximate ("vector-ALU (VALU) busy, …")
    pub note: Option<String>,
    /// layer GPU-hours over the line's held hours where measured; null when none was
    pub gpu_hours: Option<f64>,
    /// the layer over the held hours where it was measured
    pub ratio: Option<f64>,
}

/// How held was decided, as data. Its words are in `render/notes.rs` (its
/// Display); the JSON's `held_rule` is that text, as report/1 always wrote it,
/// and a document read back keeps the text (`Text`).
#[derive(Debug, Clone, PartialEq)]
pub enum HeldBasis {
    HeldColumn,
    JobColumn,
    MemoryAbove {
        mib: u64,
    },
    Assumed,
    /// --pushdown: an owner label is set (PromQL)
    PromLabel(String),
    /// --pushdown: DCGM_FI_DEV_FB_USED above this many MiB (PromQL)
    PromMemoryAbove {
        mib: u64,
    },
    Text(String),
}

impl Default for HeldBasis {
    fn default() -> Self {
        HeldBasis::Text(String::new())
    }
}

impl<'de> Deserialize<'de> for HeldBasis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(HeldBasis::Text)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Window {
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub start: DateTime<Utc>,
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub end: DateTime<Utc>,
    pub hours: f64,
    /// every GPU has a single sample: GPU-hours read as GPUs, dollars as per hour
    pub snapshot: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Sources {
    pub files: Vec<String>,
    pub rows_read: u64,
    pub rows_used: u64,
    /// rows of CSV/NDJSON read in blocks (streamed through a temporary
    /// parquet file) because the text was above the memory bound; absent
    /// when none was
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_rows_streamed: Option<u64>,
}

/// What could not be used and what the readers and the audit decided. Its
/// `Serialize` is in render/json.rs: `notes` are written as their text (the
/// strings of gpuaudit.report/1), `note_codes` as the typed notes.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct DataQuality {
    pub duplicates: u64,
    pub invalid: BTreeMap<String, u64>,
    pub unobserved_gpu_hours: f64,
    pub held_unknown_activity_gpu_hours: f64,
    /// GPU-hours whose held value could not be read ("maybe", empty): neither
    /// held nor unallocated (added after report/1 shipped; struct-level default)
    pub held_unknown_gpu_hours: f64,
    pub rows_outside_window: u64,
    pub rows_dropped: u64,
    /// read back from a document, each note is its text (`Note::Text`)
    pub notes: Vec<Note>,
    /// read back from a document, each warning is its text (`Warning::Text`)
    pub warnings: Vec<Warning>,
}

/// A data-quality note as data: what a reader or the audit decided. Its
/// English text is built in one place, `render::notes::note_text`; the
/// JSON writes both (docs/semantics.md §7). A note read back from a
/// JSON document is its text, `Text`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Note {
    /// timestamps without a UTC offset, taken as UTC
    NaiveTimesAsUtc {
        column: ColumnName,
        count: u64,
    },
    /// a fraction column decided percent from its values
    ReadAsPercent {
        column: ColumnName,
        max: f64,
    },
    /// metrics of one GPU stamped apart, joined into one sample
    MetricsAligned {
        widest_us: i64,
        align_us: i64,
    },
    /// where Prometheus series' owners came from (`examples`: the first few)
    OwnerFrom {
        from: OwnerSource,
        label: Option<String>,
        examples: Vec<String>,
        count: usize,
    },
    /// series without `__name__`, named after their file
    UnnamedSeries {
        file: String,
        count: u64,
        named: String,
    },
    /// rows without timestamps placed at --at or the file's modification time
    UntimedRows {
        file: String,
        rows: UntimedRows,
        time_us: i64,
        from: TimeFrom,
    },
    /// a `--queue` file: requests read, jobs/pods that asked for no GPU,
    /// times without a zone read as UTC (docs/semantics.md §10, Demand)
    QueueRead {
        file: String,
        family: String,
        requests: usize,
        without_gpus: usize,
        naive_times: usize,
        /// the zone they were read in (`--queue-tz`): "UTC" or an offset like "+02:00"
        zone: String,
    },
    /// a layer read from another vendor's nearest counter (Intel EU array
    /// active as SM active): approximate, never silently the same measure
    ApproximateLayer {
        file: String,
        layer: String,
        source: String,
    },
    /// nvidia-smi has no device activity for MIG-enabled GPUs
    MigNoActivity {
        file: String,
        gpus: usize,
    },
    /// nvidia-smi XML: held when a compute process runs
    HeldFromProcesses {
        file: String,
    },
    /// nvidia-smi pmon: held per tick by the processes listed
    HeldFromPmon {
        file: String,
    },
    /// a wide CSV (one column per GPU) reshaped into one row per GPU
    WideReshaped {
        file: String,
        gpus: usize,
        host: Option<String>,
        empty_cells: u64,
    },
    /// every row ended with an empty field (a trailing comma), dropped
    TrailingEmptyField {
        file: String,
    },
    /// timestamps with zone abbreviations, read at their offsets (zone, count)
    ZoneAbbreviations {
        file: String,
        zones: Vec<(String, u64)>,
    },
    /// an nvidia-smi log without an id column, read as GPU '0'
    NoGpuColumn {
        file: String,
    },
    /// an nvidia-smi log's held state from its compute-apps files
    HeldFromApps {
        file: String,
        apps: Vec<String>,
    },
    /// what a pulled Prometheus report read
    PrometheusPulled {
        points: u64,
        requests: u64,
        query: PromQuery,
    },
    /// how --pushdown's layers can differ from a pulled report
    PushdownCaveat,
    PushdownQueried {
        query: PromQuery,
        requests: u64,
    },
    GroupsFromLabel {
        label: String,
    },
    /// --pushdown: the node view and jobs need every sample
    NodesJobsNotWithPushdown,
    /// --pushdown: a bucket that is not a whole number of steps
    PushdownBucketNotStepMultiple {
        bucket_us: i64,
        step_us: i64,
    },
    /// held jobs without a declaration (`examples`: the first few)
    UndeclaredJobs {
        examples: Vec<String>,
        count: usize,
    },
    /// MFU of model_flops declarations is over all the job's samples
    WholeJobMfu,
    /// every GPU has one sample, weighed `weight_us`
    Snapshot {
        weight_us: i64,
    },
    /// samples of one GPU within --align of the one kept, each one sample with it
    SamplesAligned {
        samples: u64,
        align_us: i64,
    },
    /// GPUs with one sample inside a time series, each weighed the fleet's step
    LoneSamples {
        gpus: usize,
        weight_us: i64,
    },
    /// held GPU-hours without the basis metric, counted not useful
    UnmeasuredBasis {
        held_gpu_hours: f64,
        basis: String,
    },
    /// a --prices family row ("H100") that priced the one card of it in the data
    PriceRowFamily {
        file: String,
        line: usize,
        name: String,
        models: Vec<String>,
    },
    /// a --prices file in USD per GPU-month, divided by the hours of a month
    PricesPerMonth {
        file: String,
        hours_per_month: f64,
    },
    /// a live scan metric NVML could not give for one GPU
    MetricUnsupported {
        gpu: String,
        metric: String,
        why: String,
    },
    /// an SM layer read from a vendor metric that only approximates NVIDIA's SM active
    ApproximateSmActive {
        source: String,
        means: String,
    },
    /// a field 0 on every sample of an active GPU: an exporter's "unsupported", not measured
    ZeroFieldUnmeasured {
        metric: String,
        gpus: usize,
    },
    /// an accumulated counter a tool prints beside a percent, never read as one
    CounterNotPercent {
        file: String,
        column: String,
        gpus: usize,
    },
    /// AMD cards in CPX/DPX/QPX mode: each partition a held unit
    PartitionsAsUnits {
        cards: usize,
    },
    /// `report --partials`: the report was built from an engine's partial sums
    PartialsRead {
        file: String,
        rows: u64,
        /// the answer carried the timeline's bucket sums (`sql --bucket`)
        timeline: bool,
    },
    /// a note read back from a document (its text), or a reader's own words
    #[serde(untagged)]
    Text(String),
}

impl Note {
    /// Whether two notes say the same thing for de-duplication: owner notes
    /// of one kind are one note whatever their examples (chunks differ there).
    pub fn same_kind(&self, other: &Note) -> bool {
        match (self, other) {
            (
                Note::OwnerFrom { from, label, .. },
                Note::OwnerFrom {
                    from: f2,
                    label: l2,
                    ..
                },
            ) => from == f2 && label == l2,
            _ => self == other,
        }
    }
}

/// A canonical column and the input column that fed it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ColumnName {
    pub canonical: String,
    pub source: String,
}

/// A counted data-quality warning as data: what was left out or cannot be
/// trusted. Its text is `render::notes::warning_text`; the JSON writes both,
/// as `warnings` and `warning_codes` (docs/semantics.md §7).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Warning {
    /// GPU UUIDs seen under more than one host name, each counted once
    UuidUnderHosts {
        gpus: usize,
        /// the first such GPU and its host spellings (the first is kept)
        example_gpu: String,
        hosts: Vec<String>,
    },
    /// GPUs a third or more of whose steps are beyond max gap: close pairs?
    ClosePairs { gpus: usize },
    /// repeats of one GPU's sample (same instant, or within --align) that disagree
    RepeatsDisagree { samples: u64 },
    /// samples of MIG parents dropped where their instances report
    MigParentDropped { parents: usize, samples: u64 },
    /// samples far outside the bulk of the data's time, left out
    FarOutsideTimes {
        count: u64,
        first_us: i64,
        last_us: i64,
        bulk: TimeBulk,
    },
    /// a metric column without one usable value: not measured
    Unmeasured { column: String, invalid: u64 },
    /// the same, found by a streaming reader in one file
    UnmeasuredInFile { column: String, file: String },
    /// a memory column whose busiest value is under 1 MiB
    BytesImplausible { column: ColumnName, max_bytes: f64 },
    /// Prometheus samples without a GPU label, skipped (`examples`: the first few metrics)
    NoGpuLabel {
        samples: u64,
        examples: Vec<String>,
        count: usize,
    },
    /// Prometheus's own warning or info on an answer (its words)
    PrometheusWarned { text: String },
    /// nvidia-smi XML: UUIDs repeat, GPUs told apart by PCI bus id
    UuidsRepeat { file: String },
    /// held by activity or memory with no compute process visible (a
    /// container's PID namespace): the basis "memory; processes not visible"
    HeldWithoutVisibleProcess {
        source: String,
        gpus: usize,
        samples: u64,
        mib: u64,
    },
    /// a live scan's GPU whose samples stopped at a failure
    GpuFailed {
        gpu: String,
        uuid: Option<String>,
        /// 1-based
        tick: usize,
        ticks: usize,
        /// samples it missed after the failure
        missing: usize,
        error: String,
    },
    /// a signal stopped the live scan
    ScanStopped { signal: String, ticks: usize },
    /// declared jobs without held samples in the window
    DeclaredJobsAbsent { examples: Vec<String>, count: usize },
    /// no dense peak for a model and dtype: those jobs' MFU is n/a
    NoDensePeak {
        model: String,
        dtype: String,
        samples: u64,
        jobs: Vec<String>,
        jobs_count: usize,
    },
    /// jobs declaring more FLOPs than their GPUs' dense peak
    MfuOverOne { jobs: Vec<JobMfuValue> },
    /// GPU-hours whose held value could not be read
    HeldUnreadable { gpu_hours: f64 },
    /// GPU model names that could mean several cards
    AmbiguousModels { models: Vec<AmbiguousModel> },
    /// samples whose values contradict each other, by kind (used as read)
    Contradictions {
        counts: super::contradictions::Contradictions,
    },
    /// a --prices row that prices no model of the data (`means`: the catalog
    /// cards its name could mean; `data_models`: the data's closest names)
    PriceRowUnused {
        file: String,
        line: usize,
        name: String,
        means: Vec<String>,
        data_models: Vec<String>,
    },
    /// a warning read back from a document (its text)
    #[serde(untagged)]
    Text(String),
}

/// Where the bulk of a data set's time lies, as its warning says it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeBulk {
    /// the first and last sample kept (an in-memory table)
    Samples { start_us: i64, end_us: i64 },
    /// the fences the kept samples lie within (a streamed dataset)
    Fences { lo_us: i64, hi_us: i64 },
}

/// A job and its MFU (a fraction).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobMfuValue {
    pub job: String,
    pub mfu: f64,
}

/// Where a Prometheus series' owner came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnerSource {
    /// --job-label
    Label,
    ExportedPod,
    Pod,
    HpcJob,
    /// pod labels naming the exporter itself, not taken as a workload
    ExporterPodIgnored,
}

/// What rows of an input carried no timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UntimedRows {
    Samples {
        count: Option<usize>,
    },
    Snapshots,
    /// nvidia-smi dmon without -o DT: taken 1 s apart
    DmonSamples,
    /// nvidia-smi pmon without -o DT: ticks taken 1 s apart
    PmonTicks,
    /// xpu-smi dump without --date: a time of day, the date from --at or the file
    TimeOfDay,
}

/// Which time untimed rows took.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeFrom {
    At,
    FileModified,
}

/// A Prometheus range query: server, window and step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PromQuery {
    pub base: String,
    pub since_us: i64,
    pub until_us: i64,
    pub step_us: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Layers {
    pub observed_gpu_hours: f64,
    pub held_gpu_hours: f64,
    pub active_gpu_hours: Option<f64>,
    pub sm_active_gpu_hours: Option<f64>,
    pub tensor_active_gpu_hours: Option<f64>,
    pub useful_gpu_hours: Option<f64>,
    pub idle_held_gpu_hours: Option<f64>,
    pub unallocated_gpu_hours: f64,
}

/// The report's ratios. Each registry ratio metric's field (`active`,
/// `sm_active`, `sm_occupancy`, `tensor_active`, ...) is written between
/// `held_of_observed` and `mfu`, in registry order, under the registry's name.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(try_from = "BTreeMap<String, serde_json::Value>")]
pub struct Ratios {
    pub held_of_observed: Option<f64>,
    /// by registry slot ([`crate::metric::Slot`]); None for a metric that is not a ratio
    pub by_metric: [Option<f64>; metric::AUDITED],
    pub mfu: Option<f64>,
    pub idle_held: Option<f64>,
}

impl Ratios {
    pub fn get(&self, s: metric::Slot) -> Option<f64> {
        self.by_metric.get(s.0).copied().flatten()
    }
    /// device activity over the held hours that measured it
    pub fn active(&self) -> Option<f64> {
        self.get(metric::DEVICE_UTIL)
    }
    pub fn sm_active(&self) -> Option<f64> {
        self.get(metric::SM_ACTIVE)
    }
    pub fn tensor_active(&self) -> Option<f64> {
        self.get(metric::TENSOR_ACTIVE)
    }
    /// The ratio named `field` in the JSON, registry metrics and the others alike.
    pub fn field(&self, field: &str) -> Option<f64> {
        match field {
            "held_of_observed" => self.held_of_observed,
            "mfu" => self.mfu,
            "idle_held" => self.idle_held,
            _ => metric::AUDITED_DEFS
                .iter()
                .position(|m| m.ratio == Some(field))
                .and_then(|i| self.by_metric[i]),
        }
    }
}

impl Serialize for Ratios {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(None)?;
        map.serialize_entry("held_of_observed", &self.held_of_observed)?;
        for (m, v) in metric::AUDITED_DEFS.iter().zip(&self.by_metric) {
            if let Some(name) = m.ratio {
                map.serialize_entry(name, v)?;
            }
        }
        map.serialize_entry("mfu", &self.mfu)?;
        map.serialize_entry("idle_held", &self.idle_held)?;
        map.end()
    }
}

impl TryFrom<BTreeMap<String, serde_json::Value>> for Ratios {
    type Error = String;
    /// Missing fields are null (as `#[serde(default)]` reads them); unknown ones are ignored.
    fn try_from(fields: BTreeMap<String, serde_json::Value>) -> Result<Self, String> {
        let num = |name: &str| -> Result<Option<f64>, String> {
            match fields.get(name) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::Number(n)) => Ok(n.as_f64()),
                Some(other) => Err(format!(
                    "ratios.{name}: expected a number or null, got {other}"
                )),
            }
        };
        let mut by_metric = [None; metric::AUDITED];
        for (m, at) in metric::AUDITED_DEFS.iter().zip(by_metric.iter_mut()) {
            if let Some(name) = m.ratio {
                *at = num(name)?;
            }
        }
        Ok(Ratios {
            held_of_observed: num("held_of_observed")?,
            by_metric,
            mfu: num("mfu")?,
            idle_held: num("idle_held")?,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Cost {
    pub currency: String,
    pub price_source: crate::catalog::prices::PriceSource,
    pub observed_usd: Option<f64>,
    pub held_usd: Option<f64>,
    pub idle_held_usd: Option<f64>,
    pub unallocated_usd: Option<f64>,
    pub not_useful_usd: Option<f64>,
    /// the layer not_useful_usd is measured against: useful, tensor_active, sm_active or active
    pub not_useful_basis: Option<String>,
    pub unpriced_gpu_hours: f64,
    pub unpriced_models: Vec<String>,
    pub monthly_run_rate: MonthlyRunRate,
    /// held dollars x (1 - device activity): held but no kernel running (null without device_util)
    #[serde(default)]
    pub not_busy_usd: Option<f64>,
    /// held dollars x (1 - SM active) (null without sm_active)
    #[serde(default)]
    pub sm_idle_usd: Option<f64>,
    /// held dollars x (1 - tensor active) (null without tensor_active); not waste on non-tensor work
    #[serde(default)]
    pub tensor_idle_usd: Option<f64>,
    /// unpriced names that could mean several cards ("NVIDIA H100": PCIe, SXM or NVL?)
    #[serde(default)]
    pub ambiguous_models: Vec<AmbiguousModel>,
}

/// A reported GPU name that is neither priced nor peaked as any one card.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct AmbiguousModel {
    pub name: String,
    /// the catalog cards it could be, by NVML name
    pub candidates: Vec<String>,
    /// observed GPU-hours of GPUs reporting this name
    pub gpu_hours: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct MonthlyRunRate {
    pub observed_usd: Option<f64>,
    pub held_usd: Option<f64>,
    pub idle_held_usd: Option<f64>,
    pub unallocated_usd: Option<f64>,
    pub not_useful_usd: Option<f64>,
    #[serde(default)]
    pub not_busy_usd: Option<f64>,
    #[serde(default)]
    pub sm_idle_usd: Option<f64>,
    #[serde(default)]
    pub tensor_idle_usd: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct WaterfallStep {
    pub layer: Layer,
    pub gpu_hours: Option<f64>,
    pub pct_of_held: Option<f64>,
    pub pct_of_observed: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct IdleEpisode {
    pub host: String,
    pub gpu: String,
    pub job: Option<String>,
    pub user: Option<String>,
    pub team: Option<String>,
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub start: DateTime<Utc>,
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub end: DateTime<Utc>,
    pub hours: f64,
    pub usd: Option<f64>,
}

/// Idle episodes of one owner over one span (job, user, team, start, end), with
/// how many GPUs sat idle together: an 8-GPU notebook is one row, not eight.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct IdleEpisodeGroup {
    pub job: Option<String>,
    pub user: Option<String>,
    pub team: Option<String>,
    /// distinct hosts of its GPUs, sorted
    pub hosts: Vec<String>,
    pub gpus: usize,
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub start: DateTime<Utc>,
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub end: DateTime<Utc>,
    /// the sum of its episodes' hours
    pub gpu_hours: f64,
    /// null when none of its GPUs had a price
    pub usd: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct Group {
    pub by: String,
    pub key: String,
    pub layers: Layers,
    pub ratios: Ratios,
    pub cost: GroupCost,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct GroupCost {
    pub observed_usd: Option<f64>,
    pub held_usd: Option<f64>,
    pub idle_held_usd: Option<f64>,
    pub unallocated_usd: Option<f64>,
    pub not_useful_usd: Option<f64>,
    pub unpriced_gpu_hours: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct GpuSummary {
    pub host: String,
    pub gpu: String,
    pub model: Option<String>,
    pub samples: u64,
    /// owners seen while held (jobs, users), most recent last
    pub jobs: Vec<String>,
    pub users: Vec<String>,
    pub observed_gpu_hours: f64,
    pub held_gpu_hours: f64,
    pub idle_held_gpu_hours: Option<f64>,
    pub device_util: Option<f64>,
    pub sm_active: Option<f64>,
    pub tensor_active: Option<f64>,
    pub last_mem_used_bytes: Option<u64>,
    pub last_mem_total_bytes: Option<u64>,
    pub last_power_w: Option<f64>,
    pub last_held: bool,
    pub usd_per_hour: Option<f64>,
}

/// A job's MFU figures from the jobs file, joined onto its row of the jobs
/// section (`diagnosis::jobs::JobRow`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct JobSummary {
    pub job: String,
    pub gpus: usize,
    pub held_gpu_hours: f64,
    pub device_util: Option<f64>,
    pub sm_active: Option<f64>,
    pub tensor_active: Option<f64>,
    pub mfu: Option<f64>,
    pub useful_gpu_hours: Option<f64>,
    pub not_useful_usd: Option<f64>,
}

/// A layer of the waterfall; serialised by its snake_case name ("idle_held").
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    #[default]
    Observed,
    Held,
    Active,
    SmActive,
    TensorActive,
    Useful,
    IdleHeld,
    /// a layer this release does not know (a document from a newer one)
    #[serde(other)]
    Other,
}

impl Layer {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Observed => "observed",
            Layer::Held => "held",
            Layer::Active => "active",
            Layer::SmActive => "sm_active",
            Layer::TensorActive => "tensor_active",
            Layer::Useful => "useful",
            Layer::IdleHeld => "idle_held",
            Layer::Other => "other",
        }
    }

    /// The name as prose ("idle held").
    pub fn label(self) -> String {
        self.name().replace('_', " ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_report_documents_parse() -> anyhow::Result<()> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/compat");
        let mut parsed = 0;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                let r: Report = serde_json::from_slice(&std::fs::read(&path)?)?;
                assert_eq!(r.schema, SCHEMA, "{}", path.display());
                assert!(r.layers.observed_gpu_hours > 0.0, "{}", path.display());
                parsed += 1;
            }
        }
        assert!(parsed >= 2, "testdata/compat holds {parsed} documents");
        Ok(())
    }

    /// Every time in a frozen document is written back as the same text.
    #[test]
    fn frozen_report_times_write_back_unchanged() -> anyhow::Result<()> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/compat");
        let mut times = 0;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let old: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            let new = serde_json::to_value(serde_json::from_value::<Report>(old.clone())?)?;
            let mut pointers = vec!["/window/start".to_string(), "/window/end".to_string()];
            for list in ["idle_episodes", "idle_episode_groups"] {
                let n = old[list].as_array().map_or(0, Vec::len);
                for i in 0..n {
                    pointers.push(format!("/{list}/{i}/start"));
                    pointers.push(format!("/{list}/{i}/end"));
                }
            }
            for p in pointers {
                let text = old.pointer(&p).and_then(|v| v.as_str());
                assert!(text.is_some(), "{}: {p}", path.display());
                assert_eq!(
                    text,
                    new.pointer(&p).and_then(|v| v.as_str()),
                    "{}: {p}",
                    path.display()
                );
                times += 1;
            }
        }
        assert!(times >= 10, "{times} times compared");
        Ok(())
    }

    /// Report times are RFC 3339 with `Z`: no fraction for whole seconds,
    /// 3 or 6 digits when present; any offset reads, as UTC; other text is refused.
    #[test]
    fn times_serialise_as_rfc3339_and_sort_as_times() -> anyhow::Result<()> {
        use crate::timeparse::to_datetime;
        const T: i64 = 1_783_332_000_000_000; // 2026-07-06T10:00:00Z in µs
        let window = |us: i64| Window {
            start: to_datetime(us),
            end: to_datetime(us),
            ..Window::default()
        };
        for (us, text) in [
            (T, "2026-07-06T10:00:00Z"),
            (T + 500_000, "2026-07-06T10:00:00.500Z"),
            (T + 250, "2026-07-06T10:00:00.000250Z"),
        ] {
            let v = serde_json::to_value(window(us))?;
            assert_eq!(v["start"], text);
            assert_eq!(serde_json::from_value::<Window>(v)?.start, to_datetime(us));
        }
        let w: Window = serde_json::from_str(r#"{"start":"2026-07-06T12:00:00+02:00"}"#)?;
        assert_eq!(w.start, to_datetime(T));
        let bad = serde_json::from_str::<Window>(r#"{"start":"yesterday"}"#);
        assert!(
            bad.as_ref().is_err_and(|e| e
                .to_string()
                .contains("'yesterday' is not an RFC 3339 time")),
            "{bad:?}"
        );
        // as text "…00.500Z" sorts before "…00Z"; as times after it
        let (half, whole) = (window(T + 500_000), window(T));
        assert!(
            serde_json::to_value(&half)?["start"].as_str()
                < serde_json::to_value(&whole)?["start"].as_str()
        );
        assert!(half.start > whole.start);
        Ok(())
    }

    #[test]
    fn layers_serialise_by_their_snake_case_names() -> anyhow::Result<()> {
        for l in [
            Layer::Observed,
            Layer::Held,
            Layer::Active,
            Layer::SmActive,
            Layer::TensorActive,
            Layer::Useful,
            Layer::IdleHeld,
        ] {
            assert_eq!(serde_json::to_string(&l)?, format!("\"{}\"", l.name()));
            assert_eq!(
                serde_json::from_str::<Layer>(&format!("\"{}\"", l.name()))?,
                l
            );
        }
        assert_eq!(serde_json::from_str::<Layer>("\"joules\"")?, Layer::Other);
        assert_eq!(Layer::IdleHeld.label(), "idle held");
        Ok(())
    }

    #[test]
    fn a_document_missing_sections_parses_with_defaults() -> anyhow::Result<()> {
        let r: Report = serde_json::from_str(
            r#"{"schema":"gpuaudit.report/1","window":{"hours":2.5},"layers":{"held_gpu_hours":4.0}}"#,
        )?;
        assert_eq!(r.window.hours, 2.5);
        assert_eq!(r.window.start, DateTime::<Utc>::UNIX_EPOCH);
        assert_eq!(r.layers.held_gpu_hours, 4.0);
        assert_eq!(r.layers.active_gpu_hours, None);
        assert_eq!(r.gpus, Vec::new());
        assert_eq!(r.groups, None);
        Ok(())
    }
}
