//! The jobs list as the report keeps it: one packed row per job (184 bytes,
//! the names end to end in one string, each model named once), each built
//! into a [`JobRow`] as it is read or written. On a million jobs the rows as
//! `JobRow`s (344 bytes and two strings each) were the largest part of a
//! report's memory; written, the JSON is the same.
use super::{JobRow, Shape};
use serde::{Deserialize, Serialize};

/// The `Option<f64>` figures of a row, in [`Packed::figures`]' order.
const FIGURES: usize = 14;

/// One row, packed: the optional figures as values and a bit each for
/// "measured", the job's name as a place in [`JobRows::names`], its model
/// as an index into [`JobRows::models`].
#[derive(Debug, Clone, Copy, PartialEq)]
struct Packed {
    name_at: u64,
    name_len: u32,
    /// bit i set: `figures[i]` is measured
    known: u16,
    shape: Shape,
    inferred_shape: Shape,
    declared_kind: Option<Shape>,
    gpus: u32,
    hosts: u32,
    gang: u32,
    interruptions: Option<u32>,
    model: Option<u32>,
    span_hours: f64,
    held_gpu_hours: f64,
    idle_held_gpu_hours: f64,
    /// presence, idle_share, device_util, sm_active, tensor_active,
    /// activity_cv, synchrony, ett, mtbi_hours, mean_recovery_hours, mfu,
    /// useful_gpu_hours, not_useful_usd, usd
    figures: [f64; FIGURES],
}

const USD: usize = 13;
const MFU: usize = 10;

fn figures_of(r: &JobRow) -> [Option<f64>; FIGURES] {
    [
        r.presence,
        r.idle_share,
        r.active_share,
        r.sm_active_share,
        r.tensor_active_share,
        r.activity_cv,
        r.synchrony,
        r.ett,
        r.mtbi_hours,
        r.mean_recovery_hours,
        r.mfu,
        r.useful_gpu_hours,
        r.not_useful_usd,
        r.usd,
    ]
}

/// A count as kept (a job on more than 4 billion GPUs is not a fleet's).
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Packed {
    fn figure(&self, i: usize) -> Option<f64> {
        (self.known & (1 << i) != 0).then(|| self.figures[i])
    }

    fn set_figure(&mut self, i: usize, v: Option<f64>) {
        match v {
            Some(x) => {
                self.known |= 1 << i;
                self.figures[i] = x;
            }
            None => {
                self.known &= !(1 << i);
                self.figures[i] = 0.0;
            }
        }
    }

    /// The section's order (§11): dollars (unpriced last), then idle held
    /// GPU-hours, then held GPU-hours, most first; then the job's name.
    fn order(&self, other: &Packed, names: &str) -> std::cmp::Ordering {
        let usd = |p: &Packed| p.figure(USD).unwrap_or(-1.0);
        usd(other)
            .total_cmp(&usd(self))
            .then(
                other
                    .idle_held_gpu_hours
                    .total_cmp(&self.idle_held_gpu_hours),
            )
            .then(other.held_gpu_hours.total_cmp(&self.held_gpu_hours))
            .then_with(|| name_of(names, self).cmp(name_of(names, other)))
    }
}

fn name_of<'a>(names: &'a str, p: &Packed) -> &'a str {
    let at = usize::try_from(p.name_at).unwrap_or(usize::MAX);
    names
        .get(at..at.saturating_add(p.name_len as usize))
        .unwrap_or("")
}

/// The jobs list (JSON `jobs[]`): rows in the order they were pushed until
/// [`JobRows::sort`]; read as [`JobRow`]s by [`JobRows::iter`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobRows {
    rows: Vec<Packed>,
    /// every row's job name, end to end
    names: String,
    /// the models rows name, each once
    models: Vec<String>,
}

impl JobRows {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn push(&mut self, r: &JobRow) {
        let model = r.model.as_deref().map(|m| self.model_id(m));
        let mut p = Packed {
            name_at: self.names.len() as u64,
            name_len: small(r.job.len()),
            known: 0,
            shape: r.shape,
            inferred_shape: r.inferred_shape,
            declared_kind: r.declared_kind,
            gpus: small(r.gpus),
            hosts: small(r.hosts),
            gang: small(r.gang),
            interruptions: r.interruptions.map(small),
            model,
            span_hours: r.span_hours,
            held_gpu_hours: r.held_gpu_hours,
            idle_held_gpu_hours: r.idle_held_gpu_hours,
            figures: [0.0; FIGURES],
        };
        for (i, v) in figures_of(r).into_iter().enumerate() {
            p.set_figure(i, v);
        }
        self.names.push_str(&r.job);
        self.rows.push(p);
    }

    fn model_id(&mut self, model: &str) -> u32 {
        match self.models.iter().position(|m| m == model) {
            Some(at) => small(at),
            None => {
                self.models.push(model.to_string());
                small(self.models.len() - 1)
            }
        }
    }

    /// Row `i` as a [`JobRow`].
    pub fn get(&self, i: usize) -> Option<JobRow> {
        let p = self.rows.get(i)?;
        let f = |k: usize| p.figure(k);
        Some(JobRow {
            job: name_of(&self.names, p).to_string(),
            shape: p.shape,
            inferred_shape: p.inferred_shape,
            declared_kind: p.declared_kind,
            gpus: p.gpus as usize,
            hosts: p.hosts as usize,
            gang: p.gang as usize,
            span_hours: p.span_hours,
            presence: f(0),
            held_gpu_hours: p.held_gpu_hours,
            idle_held_gpu_hours: p.idle_held_gpu_hours,
            idle_share: f(1),
            active_share: f(2),
            sm_active_share: f(3),
            tensor_active_share: f(4),
            activity_cv: f(5),
            synchrony: f(6),
            ett: f(7),
            interruptions: p.interruptions.map(|n| n as usize),
            mtbi_hours: f(8),
            mean_recovery_hours: f(9),
            mfu: f(MFU),
            useful_gpu_hours: f(11),
            not_useful_usd: f(12),
            model: p.model.and_then(|m| self.models.get(m as usize)).cloned(),
            usd: f(USD),
        })
    }

    /// The job name of row `i` ("" past the end).
    pub fn job(&self, i: usize) -> &str {
        self.rows.get(i).map_or("", |p| name_of(&self.names, p))
    }

    /// Every row's job name, in the list's order.
    pub fn jobs(&self) -> impl Iterator<Item = &str> {
        self.rows.iter().map(|p| name_of(&self.names, p))
    }

    /// The rows as [`JobRow`]s, each built as it is reached.
    pub fn iter(&self) -> Iter<'_> {
        Iter { rows: self, at: 0 }
    }

    /// Set row `i`'s MFU, useful GPU-hours and not-useful dollars (the jobs
    /// file's figures, joined on by the engine).
    pub fn set_mfu(
        &mut self,
        i: usize,
        mfu: Option<f64>,
        useful_gpu_hours: Option<f64>,
        not_useful_usd: Option<f64>,
    ) {
        if let Some(p) = self.rows.get_mut(i) {
            p.set_figure(MFU, mfu);
            p.set_figure(11, useful_gpu_hours);
            p.set_figure(12, not_useful_usd);
        }
    }

    /// Into the section's order (§11; every key ends on the job's name, so
    /// the order rows were pushed in does not show).
    pub fn sort(&mut self) {
        let names = &self.names;
        self.rows.sort_by(|a, b| a.order(b, names));
    }

    /// Keep the first `n` rows; the names of those cut go too.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.rows.len() {
            return;
        }
        self.rows.truncate(n);
        let mut names = String::with_capacity(self.rows.iter().map(|p| p.name_len as usize).sum());
        for p in &mut self.rows {
            let name = name_of(&self.names, p);
            let at = names.len() as u64;
            names.push_str(name);
            p.name_at = at;
        }
        self.names = names;
        self.rows.shrink_to_fit();
    }

    /// Sort, then keep the first `n` rows (those `--top n` lists).
    pub fn keep_first_sorted(&mut self, n: usize) {
        self.sort();
        self.truncate(n);
    }
}

/// [`JobRows::iter`]: each row built as a [`JobRow`] when reached.
pub struct Iter<'a> {
    rows: &'a JobRows,
    at: usize,
}

impl Iterator for Iter<'_> {
    type Item = JobRow;
    fn next(&mut self) -> Option<JobRow> {
        let row = self.rows.get(self.at)?;
        self.at += 1;
        Some(row)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.rows.len().saturating_sub(self.at);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a JobRows {
    type Item = JobRow;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<JobRow> for JobRows {
    fn from_iter<I: IntoIterator<Item = JobRow>>(rows: I) -> Self {
        let mut out = JobRows::default();
        for r in rows {
            out.push(&r);
        }
        out
    }
}

/// Written as the array of [`JobRow`]s, each built and written in turn:
/// the document is never the whole list in memory.
impl Serialize for JobRows {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for row in self {
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for JobRows {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<JobRow>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(job: &str, usd: Option<f64>, idle: f64, model: Option<&str>) -> JobRow {
        JobRow {
            job: job.to_string(),
            shape: Shape::Training,
            inferred_shape: Shape::Batch,
            declared_kind: Some(Shape::Training),
            gpus: 8,
            hosts: 2,
            gang: 8,
            span_hours: 3.5,
            presence: Some(0.25),
            held_gpu_hours: 28.0,
            idle_held_gpu_hours: idle,
            idle_share: Some(idle / 28.0),
            active_share: None,
            sm_active_share: Some(0.0),
            tensor_active_share: None,
            activity_cv: Some(0.1),
            synchrony: Some(1.0),
            ett: Some(0.875),
            interruptions: Some(2),
            mtbi_hours: Some(1.5),
            mean_recovery_hours: None,
            mfu: None,
            useful_gpu_hours: None,
            not_useful_usd: Some(-0.0),
            model: model.map(str::to_string),
            usd,
        }
    }

    #[test]
    fn a_row_reads_back_as_pushed_none_zero_and_minus_zero_kept() {
        let r = row("train-a", Some(12.5), 3.0, Some("NVIDIA H100 80GB HBM3"));
        let rows: JobRows = [r.clone(), row("b", None, 0.0, None)].into_iter().collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.get(0), Some(r.clone()));
        assert_eq!(rows.get(1).map(|b| (b.usd, b.model)), Some((None, None)));
        assert_eq!(rows.get(2), None);
        // -0.0 stays -0.0: the JSON writes "-0.0"
        assert_eq!(
            rows.get(0).and_then(|b| b.not_useful_usd).map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(rows.jobs().collect::<Vec<_>>(), ["train-a", "b"]);
        // the same JSON as the rows themselves
        let vec_json =
            serde_json::to_string_pretty(&vec![r, row("b", None, 0.0, None)]).unwrap_or_default();
        let packed_json = serde_json::to_string_pretty(&rows).unwrap_or_default();
        assert_eq!(packed_json, vec_json);
        let back: JobRows = serde_json::from_str(&packed_json).unwrap_or_default();
        assert_eq!(back, rows);
    }

    #[test]
    fn sorted_by_dollars_then_idle_then_name_and_cut_with_names() {
        let mut rows: JobRows = [
            row("c", None, 5.0, None),
            row("a", Some(1.0), 0.0, Some("m1")),
            row("b", Some(9.0), 0.0, Some("m2")),
            row("d", None, 7.0, Some("m1")),
            row("e", None, 5.0, None),
        ]
        .into_iter()
        .collect();
        rows.sort();
        assert_eq!(rows.jobs().collect::<Vec<_>>(), ["b", "a", "d", "c", "e"]);
        rows.truncate(3);
        assert_eq!(rows.jobs().collect::<Vec<_>>(), ["b", "a", "d"]);
        assert_eq!(rows.names, "bad", "the cut rows' names went with them");
        assert_eq!(rows.get(2).and_then(|r| r.model), Some("m1".to_string()));
        rows.set_mfu(1, Some(0.4), Some(11.2), None);
        let a = rows.get(1).unwrap_or_default();
        assert_eq!(
            (a.job.as_str(), a.mfu, a.useful_gpu_hours),
            ("a", Some(0.4), Some(11.2))
        );
        assert_eq!(a.not_useful_usd, None);
    }
}
