//! The leak map (§9): every observed GPU-hour in exactly one class, by the
//! first row of the cascade that matches, with dollars; fleet-wide, per
//! `--by` group and per job.
use super::Sum;
use crate::audit::GroupBy;
use crate::audit::interval::{ByLabel, Fold, Interval, Names, TICKS_PER_HOUR};
use anyhow::{Context, Result, bail};
use foldhash::HashMap;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The thresholds of the cascade (fractions 0..1). `--leak-thresholds FILE`
/// reads them from TOML; a key left out keeps its default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LeakThresholds {
    /// row 3: device_util below this is idle (the report's --idle-below)
    pub idle_below: f64,
    /// row 4: device_util below this is starved
    pub starved_below: f64,
    /// row 5: sm_active below this is underfilled
    pub underfilled_below: f64,
    /// row 6: dram_active at least this is memory-bound ...
    pub memory_bound_dram_at_least: f64,
    /// ... when tensor_active is unknown or below this
    pub memory_bound_tensor_below: f64,
    /// row 7: tensor_active below this is no_tensor
    pub no_tensor_below: f64,
}

impl Default for LeakThresholds {
    fn default() -> Self {
        LeakThresholds {
            idle_below: 0.01,
            starved_below: 0.50,
            underfilled_below: 0.50,
            memory_bound_dram_at_least: 0.60,
            memory_bound_tensor_below: 0.30,
            no_tensor_below: 0.15,
        }
    }
}

impl LeakThresholds {
    /// Thresholds from TOML text; `origin` names the file in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self> {
        let t: LeakThresholds =
            toml::from_str(text).with_context(|| format!("{origin}: leak thresholds"))?;
        t.validate(origin)?;
        Ok(t)
    }

    pub fn from_file(path: &Path) -> Result<Self> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {origin}"))?;
        Self::from_toml(&text, &origin)
    }

    fn validate(&self, origin: &str) -> Result<()> {
        let fields = [
            ("idle_below", self.idle_below),
            ("starved_below", self.starved_below),
            ("underfilled_below", self.underfilled_below),
            (
                "memory_bound_dram_at_least",
                self.memory_bound_dram_at_least,
            ),
            ("memory_bound_tensor_below", self.memory_bound_tensor_below),
            ("no_tensor_below", self.no_tensor_below),
        ];
        for (name, v) in fields {
            if !(0.0..=1.0).contains(&v) {
                bail!("{origin}: {name} = {v} is not a fraction between 0 and 1");
            }
        }
        if self.idle_below > self.starved_below {
            bail!(
                "{origin}: idle_below ({}) is above starved_below ({}): nothing could be starved",
                self.idle_below,
                self.starved_below
            );
        }
        Ok(())
    }

    /// The class of one interval: the first row of §9 that matches.
    pub fn classify(&self, iv: &Interval) -> LeakClass {
        if iv.held_unknown {
            return LeakClass::HeldUnknown;
        }
        if !iv.held {
            return LeakClass::Unallocated;
        }
        let Some(util) = iv.device_util() else {
            return LeakClass::Unmeasured;
        };
        if crate::audit::held::below_idle(util, self.idle_below) {
            return LeakClass::Idle;
        }
        if util < self.starved_below {
            return LeakClass::Starved;
        }
        // a test whose signal is missing is skipped
        if iv.sm_active().is_some_and(|sm| sm < self.underfilled_below) {
            return LeakClass::Underfilled;
        }
        let dram_bound = iv
            .dram_active()
            .is_some_and(|d| d >= self.memory_bound_dram_at_least);
        let little_tensor = iv
            .tensor_active()
            .is_none_or(|t| t < self.memory_bound_tensor_below);
        if dram_bound && little_tensor {
            return LeakClass::MemoryBound;
        }
        if iv.tensor_active().is_some_and(|t| t < self.no_tensor_below) {
            return LeakClass::NoTensor;
        }
        if iv.sm_active().is_some() && iv.tensor_active().is_some() {
            return LeakClass::Effective;
        }
        LeakClass::BusyUnprofiled
    }
}

/// The classes of §9, in cascade order (`held_unknown` first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeakClass {
    HeldUnknown,
    Unallocated,
    Unmeasured,
    Idle,
    Starved,
    Underfilled,
    MemoryBound,
    NoTensor,
    Effective,
    BusyUnprofiled,
}

impl LeakClass {
    pub const ALL: [LeakClass; 10] = [
        LeakClass::HeldUnknown,
        LeakClass::Unallocated,
        LeakClass::Unmeasured,
        LeakClass::Idle,
        LeakClass::Starved,
        LeakClass::Underfilled,
        LeakClass::MemoryBound,
        LeakClass::NoTensor,
        LeakClass::Effective,
        LeakClass::BusyUnprofiled,
    ];

    /// The classes of held time (rows 2-9 of the cascade).
    pub const HELD: &'static [LeakClass] = {
        let (_, held) = Self::ALL.split_at(2);
        held
    };

    pub fn name(self) -> &'static str {
        match self {
            LeakClass::HeldUnknown => "held_unknown",
            LeakClass::Unallocated => "unallocated",
            LeakClass::Unmeasured => "unmeasured",
            LeakClass::Idle => "idle",
            LeakClass::Starved => "starved",
            LeakClass::Underfilled => "underfilled",
            LeakClass::MemoryBound => "memory_bound",
            LeakClass::NoTensor => "no_tensor",
            LeakClass::Effective => "effective",
            LeakClass::BusyUnprofiled => "busy_unprofiled",
        }
    }

    /// Classes 2-9 of §9: the held ones.
    pub fn is_held(self) -> bool {
        !matches!(self, LeakClass::HeldUnknown | LeakClass::Unallocated)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Ticks and dollars per class for one set of intervals.
#[derive(Debug, Clone, Copy, Default)]
struct ClassSums {
    ticks: [i64; 10],
    usd: [Sum; 10],
    priced: bool,
}

impl ClassSums {
    fn add(&mut self, class: LeakClass, iv: &Interval) {
        let i = class.index();
        if let Some(t) = self.ticks.get_mut(i) {
            *t += iv.weight;
        }
        if let (Some(price), Some(u)) = (iv.price, self.usd.get_mut(i)) {
            u.add(iv.hours() * price);
            self.priced = true;
        }
    }
    fn merge(&mut self, o: &ClassSums) {
        for (a, b) in self.ticks.iter_mut().zip(o.ticks) {
            *a += b;
        }
        for (a, b) in self.usd.iter_mut().zip(o.usd.iter()) {
            a.merge(b);
        }
        self.priced |= o.priced;
    }

    fn rows(&self) -> Vec<LeakRow> {
        rows_of(
            &self.ticks,
            self.priced.then(|| self.usd.map(|u| u.get())).as_ref(),
        )
    }
}

/// One job's sums: only the classes its intervals touched (most jobs of an
/// array-job fleet touch one or two), inline for the first. The dense
/// [`ClassSums`] is 248 bytes; a million jobs held 268 MB of them at the
/// shard merge, most of it zeros.
#[derive(Debug, Clone, Default)]
struct JobClassSums {
    touched: smallvec::SmallVec<[(u8, i64, Sum); 1]>,
    priced: bool,
}

impl JobClassSums {
    fn slot(&mut self, class: u8) -> &mut (u8, i64, Sum) {
        let at = match self.touched.iter().position(|e| e.0 == class) {
            Some(at) => at,
            None => {
                self.touched.push((class, 0, Sum::default()));
                self.touched.len() - 1
            }
        };
        &mut self.touched[at]
    }

    fn add(&mut self, class: LeakClass, iv: &Interval) {
        let entry = self.slot(class.index() as u8);
        entry.1 += iv.weight;
        if let Some(price) = iv.price {
            entry.2.add(iv.hours() * price);
            self.priced = true;
        }
    }

    fn merge(&mut self, other: &JobClassSums) {
        for (class, ticks, usd) in &other.touched {
            let entry = self.slot(*class);
            entry.1 += ticks;
            entry.2.merge(usd);
        }
        self.priced |= other.priced;
    }

    /// The same sums as [`ClassSums`] would hold, bit for bit: each class's
    /// dollars were added in the same order into the same compensated sum.
    fn dense(&self) -> ClassSums {
        let mut sums = ClassSums {
            priced: self.priced,
            ..ClassSums::default()
        };
        for (class, ticks, usd) in &self.touched {
            let i = *class as usize;
            if let (Some(t), Some(u)) = (sums.ticks.get_mut(i), sums.usd.get_mut(i)) {
                *t = *ticks;
                *u = *usd;
            }
        }
        sums
    }
}

/// The ten rows of §9 in cascade order from ticks and (priced) dollars per class.
fn rows_of(ticks: &[i64; 10], usd: Option<&[f64; 10]>) -> Vec<LeakRow> {
    let observed: i64 = ticks.iter().sum();
    let held: i64 = LeakClass::ALL
        .iter()
        .filter(|c| c.is_held())
        .map(|c| ticks.get(c.index()).copied().unwrap_or(0))
        .sum();
    let share = |t: i64, of: i64| (of > 0).then(|| t as f64 / of as f64);
    LeakClass::ALL
        .iter()
        .map(|&class| {
            let t = ticks.get(class.index()).copied().unwrap_or(0);
            LeakRow {
                class,
                gpu_hours: t as f64 / TICKS_PER_HOUR,
                share_of_held: if class.is_held() {
                    share(t, held)
                } else {
                    None
                },
                share_of_observed: share(t, observed),
                usd: usd.map(|u| u.get(class.index()).copied().unwrap_or(0.0)),
            }
        })
        .collect()
}

/// State of the leak map: fleet sums, sums per `--by` group and per job.
#[derive(Debug, Clone)]
pub struct LeakFold {
    thresholds: LeakThresholds,
    by: Option<GroupBy>,
    fleet: ClassSums,
    groups: HashMap<Option<u32>, ClassSums>,
    jobs: ByLabel<JobClassSums>,
}

impl LeakFold {
    pub fn new(thresholds: LeakThresholds, by: Option<GroupBy>) -> Self {
        LeakFold {
            thresholds,
            by,
            fleet: ClassSums::default(),
            groups: HashMap::default(),
            jobs: ByLabel::default(),
        }
    }

    fn group_key(&self, iv: &Interval) -> Option<Option<u32>> {
        Some(match self.by? {
            GroupBy::Team => iv.team,
            GroupBy::User => iv.user,
            GroupBy::Job => iv.job,
            GroupBy::Host => Some(iv.host),
            GroupBy::Model => iv.model,
        })
    }

    /// The jobs' rows of [`LeakFold::finish`], each job's sums freed as its
    /// row is built; the fold keeps no jobs after. With `keep`, only the
    /// rows of the jobs it names (`--top`'s jobs) are built.
    pub fn take_jobs(
        &mut self,
        names: &dyn Names,
        keep: Option<&std::collections::HashSet<&str>>,
    ) -> Vec<JobLeaks> {
        let mut sums: Vec<(u32, JobClassSums)> =
            std::mem::take(&mut self.jobs).into_iter().collect();
        let mut jobs = Vec::with_capacity(if keep.is_some() { 0 } else { sums.len() });
        while let Some((id, s)) = sums.pop() {
            let name = names.label(id);
            if keep.is_none_or(|k| k.contains(name)) {
                jobs.push(JobLeaks::of(name.to_string(), &s.dense()));
            }
            if sums.capacity() - sums.len() >= crate::audit::interval::FREE_EVERY {
                sums.shrink_to_fit();
            }
        }
        jobs.sort_by(|a, b| a.name.cmp(&b.name));
        jobs
    }

    /// The section; groups are sorted by held GPU-hours (most first), then name;
    /// jobs by name. A group without the label is named "-".
    pub fn finish(&self, names: &dyn Names) -> Leaks {
        let held_ticks = |s: &ClassSums| -> i64 {
            LeakClass::ALL
                .iter()
                .filter(|c| c.is_held())
                .map(|c| s.ticks.get(c.index()).copied().unwrap_or(0))
                .sum()
        };
        let mut groups: Vec<(String, i64, LeakGroup)> = self
            .groups
            .iter()
            .map(|(key, sums)| {
                let name = key.map_or_else(|| "-".to_string(), |id| names.label(id).to_string());
                let group = LeakGroup {
                    name: name.clone(),
                    classes: sums.rows(),
                };
                (name, held_ticks(sums), group)
            })
            .collect();
        groups.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut jobs: Vec<JobLeaks> = self
            .jobs
            .iter()
            .map(|(id, sums)| JobLeaks::of(names.label(id).to_string(), &sums.dense()))
            .collect();
        jobs.sort_by(|a, b| a.name.cmp(&b.name));
        Leaks {
            thresholds: self.thresholds,
            classes: self.fleet.rows(),
            by: self.by.map(|b| b.column().to_string()),
            groups: groups.into_iter().map(|g| g.2).collect(),
            jobs,
        }
    }
}

impl LeakFold {
    /// Count `iv` in `class` without classifying it: a Prometheus pushdown
    /// classifies in PromQL and hands over one interval per (class, group, job, model).
    pub(crate) fn add_classified(&mut self, class: LeakClass, iv: &Interval) {
        self.fleet.add(class, iv);
        if let Some(key) = self.group_key(iv) {
            self.groups.entry(key).or_default().add(class, iv);
        }
        if let Some(job) = iv.job {
            self.jobs.entry(job).add(class, iv);
        }
    }
}

impl Fold for LeakFold {
    fn add(&mut self, iv: &Interval) {
        let class = self.thresholds.classify(iv);
        self.add_classified(class, iv);
    }
    fn merge(&mut self, other: Self) {
        self.fleet.merge(&other.fleet);
        for (k, v) in other.groups {
            self.groups.entry(k).or_default().merge(&v);
        }
        self.jobs.merge_from(other.jobs, |s, v| s.merge(&v));
    }
}

/// The `leaks` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Leaks {
    pub thresholds: LeakThresholds,
    /// every class of §9 in cascade order, zero rows included
    pub classes: Vec<LeakRow>,
    /// the `--by` column the groups are of; null without `--by`
    pub by: Option<String>,
    pub groups: Vec<LeakGroup>,
    /// per job label (samples carrying the job, held or not)
    pub jobs: Vec<JobLeaks>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeakRow {
    pub class: LeakClass,
    pub gpu_hours: f64,
    /// null for held_unknown and unallocated (not part of held) and when nothing is held
    pub share_of_held: Option<f64>,
    pub share_of_observed: Option<f64>,
    /// Σ w × price; null when no sample had a price
    pub usd: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LeakGroup {
    pub name: String,
    pub classes: Vec<LeakRow>,
}

/// One job's row of the leak map, kept as its ticks and dollars per class and
/// written as a [`LeakGroup`] (the same JSON): ten [`LeakRow`]s a job were
/// most of the memory of a report on a million jobs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobLeaks {
    pub name: String,
    ticks: [i64; 10],
    /// None when no interval of the job had a price
    usd: Option<[f64; 10]>,
}

impl JobLeaks {
    fn of(name: String, sums: &ClassSums) -> Self {
        JobLeaks {
            name,
            ticks: sums.ticks,
            usd: sums.priced.then(|| sums.usd.map(|u| u.get())),
        }
    }

    /// The job's ten rows, in cascade order.
    pub fn classes(&self) -> Vec<LeakRow> {
        rows_of(&self.ticks, self.usd.as_ref())
    }
}

impl Serialize for JobLeaks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written<'a> {
            name: &'a str,
            classes: Vec<LeakRow>,
        }
        Written {
            name: &self.name,
            classes: self.classes(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JobLeaks {
    /// From the rows a report wrote: ticks back from the GPU-hours (exact to
    /// the tick), dollars where any row had them.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let group = LeakGroup::deserialize(deserializer)?;
        let mut job = JobLeaks {
            name: group.name,
            ..JobLeaks::default()
        };
        let priced = group.classes.iter().any(|r| r.usd.is_some());
        let mut usd = [0.0; 10];
        for r in &group.classes {
            if let Some(t) = job.ticks.get_mut(r.class.index()) {
                *t = (r.gpu_hours * TICKS_PER_HOUR).round() as i64;
            }
            if let Some(u) = usd.get_mut(r.class.index()) {
                *u = r.usd.unwrap_or(0.0);
            }
        }
        job.usd = priced.then_some(usd);
        Ok(job)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{H, TestNames, free, held};
    use super::*;

    fn class_of(iv: &Interval) -> LeakClass {
        LeakThresholds::default().classify(iv)
    }

    fn busy() -> Interval {
        held(0, 0, 0, H, Some(0.9))
    }

    #[test]
    fn each_row_of_the_cascade() {
        let mut unknown = free(0, 0, 0, H);
        unknown.held_unknown = true;
        assert_eq!(class_of(&unknown), LeakClass::HeldUnknown);
        assert_eq!(class_of(&free(0, 0, 0, H)), LeakClass::Unallocated);
        assert_eq!(class_of(&held(0, 0, 0, H, None)), LeakClass::Unmeasured);
        assert_eq!(class_of(&held(0, 0, 0, H, Some(0.005))), LeakClass::Idle);
        // 0.01 is not below 0.01: starved, not idle
        assert_eq!(class_of(&held(0, 0, 0, H, Some(0.01))), LeakClass::Starved);
        assert_eq!(class_of(&held(0, 0, 0, H, Some(0.49))), LeakClass::Starved);
        let underfilled = Interval {
            activity: busy().activity.with(crate::metric::SM_ACTIVE, Some(0.3)),
            ..busy()
        };
        assert_eq!(class_of(&underfilled), LeakClass::Underfilled);
        let memory_bound = Interval {
            activity: busy()
                .activity
                .with(crate::metric::SM_ACTIVE, Some(0.8))
                .with(crate::metric::DRAM_ACTIVE, Some(0.6))
                .with(crate::metric::TENSOR_ACTIVE, Some(0.29)),
            ..busy()
        };
        assert_eq!(class_of(&memory_bound), LeakClass::MemoryBound);
        let no_tensor = Interval {
            activity: busy()
                .activity
                .with(crate::metric::SM_ACTIVE, Some(0.8))
                .with(crate::metric::DRAM_ACTIVE, Some(0.2))
                .with(crate::metric::TENSOR_ACTIVE, Some(0.1)),
            ..busy()
        };
        assert_eq!(class_of(&no_tensor), LeakClass::NoTensor);
        let effective = Interval {
            activity: busy()
                .activity
                .with(crate::metric::SM_ACTIVE, Some(0.8))
                .with(crate::metric::TENSOR_ACTIVE, Some(0.5)),
            ..busy()
        };
        assert_eq!(class_of(&effective), LeakClass::Effective);
        assert_eq!(class_of(&busy()), LeakClass::BusyUnprofiled);
    }

    #[test]
    fn a_missing_signal_skips_its_test() {
        // no sm_active: row 5 skipped, dram with no tensor reading is memory-bound
        let dram_only = Interval {
            activity: busy().activity.with(crate::metric::DRAM_ACTIVE, Some(0.7)),
            ..busy()
        };
        assert_eq!(class_of(&dram_only), LeakClass::MemoryBound);
        // much tensor work keeps high dram out of memory_bound
        let tensor_heavy = Interval {
            activity: busy()
                .activity
                .with(crate::metric::DRAM_ACTIVE, Some(0.7))
                .with(crate::metric::TENSOR_ACTIVE, Some(0.3)),
            ..busy()
        };
        assert_eq!(class_of(&tensor_heavy), LeakClass::BusyUnprofiled);
        // no dram: row 6 skipped; low tensor is no_tensor even without sm
        let low_tensor = Interval {
            activity: busy()
                .activity
                .with(crate::metric::TENSOR_ACTIVE, Some(0.05)),
            ..busy()
        };
        assert_eq!(class_of(&low_tensor), LeakClass::NoTensor);
        // tensor known but sm unknown: not effective
        let tensor_no_sm = Interval {
            activity: busy()
                .activity
                .with(crate::metric::TENSOR_ACTIVE, Some(0.5)),
            ..busy()
        };
        assert_eq!(class_of(&tensor_no_sm), LeakClass::BusyUnprofiled);
        // sm known but tensor unknown: not effective either
        let sm_no_tensor = Interval {
            activity: busy().activity.with(crate::metric::SM_ACTIVE, Some(0.9)),
            ..busy()
        };
        assert_eq!(class_of(&sm_no_tensor), LeakClass::BusyUnprofiled);
    }

    fn row(rows: &[LeakRow], class: LeakClass) -> &LeakRow {
        rows.iter()
            .find(|r| r.class == class)
            .expect("every class is listed")
    }

    #[test]
    fn classes_sum_to_observed_with_shares_and_dollars() {
        let mut f = LeakFold::new(LeakThresholds::default(), Some(GroupBy::Team));
        // team 1: 2 h idle at $2/h on job 3; team 2: 1 h busy at $2/h; 1 h unallocated unpriced
        let mut idle = held(0, 0, 0, 2 * H, Some(0.0));
        idle.price = Some(2.0);
        idle.team = Some(1);
        idle.job = Some(3);
        let mut work = busy();
        work.price = Some(2.0);
        work.team = Some(2);
        f.add(&idle);
        f.add(&work);
        f.add(&free(1, 0, 0, H));
        let l = f.finish(&TestNames);
        assert_eq!(l.classes.len(), 10);
        let total: f64 = l.classes.iter().map(|r| r.gpu_hours).sum();
        assert_eq!(total, 4.0);
        let idle_row = row(&l.classes, LeakClass::Idle);
        assert_eq!(idle_row.gpu_hours, 2.0);
        assert_eq!(idle_row.share_of_held, Some(2.0 / 3.0));
        assert_eq!(idle_row.share_of_observed, Some(0.5));
        assert_eq!(idle_row.usd, Some(4.0));
        let unalloc = row(&l.classes, LeakClass::Unallocated);
        assert_eq!(unalloc.share_of_held, None);
        assert_eq!(unalloc.usd, Some(0.0), "unpriced hours give no dollars");
        assert_eq!(row(&l.classes, LeakClass::Starved).gpu_hours, 0.0);
        // groups: team l1 (2 held h) before team l2 (1 h) before "-" (0 held)
        assert_eq!(l.by.as_deref(), Some("team"));
        let names: Vec<_> = l.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["l1", "l2", "-"]);
        assert_eq!(
            row(&l.groups[0].classes, LeakClass::Idle).share_of_held,
            Some(1.0)
        );
        assert_eq!(l.jobs.len(), 1);
        assert_eq!(l.jobs[0].name, "l3");
        assert_eq!(row(&l.jobs[0].classes(), LeakClass::Idle).gpu_hours, 2.0);
    }

    #[test]
    fn a_jobs_row_is_written_as_its_ten_rows_and_read_back() -> anyhow::Result<()> {
        let mut f = LeakFold::new(LeakThresholds::default(), None);
        let mut priced = busy();
        priced.job = Some(3);
        priced.price = Some(2.5);
        f.add(&priced);
        let mut idle = held(0, 0, H, H / 2, Some(0.0));
        idle.job = Some(3);
        idle.price = Some(2.5);
        f.add(&idle);
        let mut unpriced = busy();
        unpriced.job = Some(4);
        f.add(&unpriced);
        let l = f.finish(&TestNames);
        let kept = std::collections::HashSet::from([l.jobs[0].name.as_str()]);
        assert_eq!(f.clone().take_jobs(&TestNames, Some(&kept)), l.jobs[..1]);
        assert_eq!(f.take_jobs(&TestNames, None), l.jobs);
        for job in &l.jobs {
            let written = serde_json::to_value(job)?;
            let group = LeakGroup {
                name: job.name.clone(),
                classes: job.classes(),
            };
            assert_eq!(written, serde_json::to_value(&group)?);
            assert_eq!(serde_json::from_value::<JobLeaks>(written)?, *job);
        }
        assert_eq!(row(&l.jobs[0].classes(), LeakClass::Idle).usd, Some(1.25));
        assert_eq!(row(&l.jobs[1].classes(), LeakClass::Idle).usd, None);
        Ok(())
    }

    #[test]
    fn a_jobs_sparse_sums_are_the_dense_sums_to_the_bit() {
        // intervals of several classes, some priced, split over two folds
        // merged in either direction: the sparse sums give the dense ones
        let mut ivs = [
            free(0, 0, 0, 3 * H),
            held(0, 0, 0, H, Some(0.0)),
            held(1, 0, 0, 2 * H, None),
            busy(),
            held(2, 1, 0, H / 3, Some(0.0)),
        ];
        for (i, iv) in ivs.iter_mut().enumerate() {
            iv.price = (i % 2 == 0).then_some(0.1 + i as f64 * 1.37);
        }
        let (mut dense_a, mut dense_b) = (ClassSums::default(), ClassSums::default());
        let (mut sparse_a, mut sparse_b) = (JobClassSums::default(), JobClassSums::default());
        for (i, iv) in ivs.iter().enumerate() {
            let class = class_of(iv);
            if i % 2 == 0 {
                dense_a.add(class, iv);
                sparse_a.add(class, iv);
            } else {
                dense_b.add(class, iv);
                sparse_b.add(class, iv);
            }
        }
        assert!(
            sparse_a.touched.len() >= 2,
            "the test touches several classes"
        );
        let (mut dense_ba, mut sparse_ba) = (dense_b, sparse_b.clone());
        dense_ba.merge(&dense_a);
        sparse_ba.merge(&sparse_a);
        dense_a.merge(&dense_b);
        sparse_a.merge(&sparse_b);
        for (dense, sparse) in [(dense_a, sparse_a), (dense_ba, sparse_ba)] {
            let got = sparse.dense();
            assert_eq!(got.ticks, dense.ticks);
            assert_eq!(got.usd, dense.usd);
            assert_eq!(got.priced, dense.priced);
            assert_eq!(got.rows(), dense.rows());
        }
        // untouched classes stay zero and unpriced jobs stay unpriced
        let mut unpriced = JobClassSums::default();
        unpriced.add(LeakClass::Idle, &held(0, 0, 0, H, Some(0.0)));
        assert_eq!(JobLeaks::of("j".into(), &unpriced.dense()).usd, None);
        assert_eq!(unpriced.dense().ticks.iter().sum::<i64>(), H);
    }

    #[test]
    fn no_price_anywhere_gives_null_dollars_and_merge_adds_up() {
        let mut a = LeakFold::new(LeakThresholds::default(), None);
        let mut b = LeakFold::new(LeakThresholds::default(), None);
        a.add(&busy());
        b.add(&busy());
        a.merge(b);
        let l = a.finish(&TestNames);
        let r = row(&l.classes, LeakClass::BusyUnprofiled);
        assert_eq!(r.gpu_hours, 2.0);
        assert_eq!(r.usd, None);
        assert_eq!(r.share_of_held, Some(1.0));
        assert!(l.groups.is_empty() && l.by.is_none());
    }

    #[test]
    fn thresholds_load_from_toml_and_name_the_file_on_error() {
        let t = LeakThresholds::from_toml("starved_below = 0.4\n", "t.toml").expect("valid");
        assert_eq!(t.starved_below, 0.4);
        assert_eq!(t.idle_below, 0.01);
        let typo = LeakThresholds::from_toml("starved = 0.4\n", "t.toml");
        let msg = format!("{:#}", typo.expect_err("unknown key refused"));
        assert!(msg.contains("t.toml") && msg.contains("starved"), "{msg}");
        let out = LeakThresholds::from_toml("no_tensor_below = 15\n", "t.toml");
        let msg = format!("{:#}", out.expect_err("percent refused"));
        assert!(msg.contains("no_tensor_below = 15"), "{msg}");
        let crossed = LeakThresholds::from_toml("idle_below = 0.6\n", "t.toml");
        assert!(crossed.is_err());
    }
}
