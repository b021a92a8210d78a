//! Slurm accounting: `sacct -a -X -P --format=JobID,User,Account,Partition,
//! Submit,Start,End,State,ReqTRES,AllocTRES` (docs/semantics.md §10, Demand).
//! Pipe-separated with a header row; columns are found by name, so any order
//! and extra columns are fine.
use super::Queue;
use crate::audit::diagnosis::demand::PendingRequest;
use crate::audit::model::Note;
use crate::timeparse::parse_timestamp_zoned;
use anyhow::{Result, bail};

/// The columns a request needs (Partition and AllocTRES are not read).
const NEEDED: [&str; 6] = ["JobID", "User", "Submit", "Start", "State", "ReqTRES"];

/// A header row naming JobID, pipe-separated.
pub fn looks_like_sacct(head: &str) -> bool {
    let cols: Vec<&str> = head.trim().split('|').collect();
    cols.len() > 1 && cols.contains(&"JobID")
}

/// Where each column sits in a row.
struct Columns {
    index: Vec<usize>,
    account: Option<usize>,
    end: Option<usize>,
    width: usize,
}

fn columns(name: &str, header: &str) -> Result<Columns> {
    let cols: Vec<&str> = header.trim_end_matches('\r').split('|').collect();
    let find = |c: &str| cols.iter().position(|h| h.trim() == c);
    let mut index = Vec::new();
    for c in NEEDED {
        match find(c) {
            Some(i) => index.push(i),
            None => bail!(
                "{name}:1: the header has no {c} column (expected sacct -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES)"
            ),
        }
    }
    Ok(Columns {
        index,
        account: find("Account"),
        end: find("End"),
        width: cols.len(),
    })
}

/// One field of a row and its 1-based column (in characters) in the line.
#[derive(Clone, Copy)]
struct Field<'a> {
    text: &'a str,
    column: usize,
}

/// Counts for the note.
#[derive(Default)]
struct Tally {
    jobs: usize,
    without_gpus: usize,
    naive_times: usize,
    /// seconds east of UTC of sacct's local times (`--queue-tz`)
    offset_s: i32,
}

/// `offset`: the zone of times printed without one (sacct prints local time).
pub fn read(name: &str, text: &str, offset: chrono::FixedOffset) -> Result<Queue> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        bail!("{name}: empty");
    };
    let cols = columns(name, header)?;
    let mut requests = Vec::new();
    let mut tally = Tally {
        offset_s: offset.local_minus_utc(),
        ..Tally::default()
    };
    for (i, line) in lines {
        let at = |f: Field, what: &str| format!("{name}:{}:{}: {what}", i + 1, f.column);
        let fields = split_fields(line.trim_end_matches('\r'));
        if fields.len() != cols.width {
            bail!(
                "{name}:{}: {} fields where the header has {} (a '|' inside a field? sacct -P separates with '|')",
                i + 1,
                fields.len(),
                cols.width
            );
        }
        if let Some(r) = request(&cols, &fields, &at, &mut tally)? {
            requests.push(r);
        }
    }
    let note = Note::QueueRead {
        file: name.to_string(),
        family: "Slurm sacct".to_string(),
        requests: tally.jobs,
        without_gpus: tally.without_gpus,
        naive_times: tally.naive_times,
        zone: super::zone_name(offset),
    };
    Ok(Queue {
        requests,
        notes: vec![note],
    })
}

fn split_fields(line: &str) -> Vec<Field<'_>> {
    let mut column = 1;
    line.split('|')
        .map(|text| {
            let f = Field { text, column };
            column += text.chars().count() + 1;
            f
        })
        .collect()
}

/// The request of one row; None for a job step or a job that asked for no GPU.
fn request(
    cols: &Columns,
    fields: &[Field],
    at: &dyn Fn(Field, &str) -> String,
    tally: &mut Tally,
) -> Result<Option<PendingRequest>> {
    let get = |i: usize| {
        fields.get(i).copied().unwrap_or(Field {
            text: "",
            column: 1,
        })
    };
    let [job, user, submit, start, state, req] = [0, 1, 2, 3, 4, 5].map(|k| get(cols.index[k]));
    let job_id = job.text.trim();
    // a step (123.batch, 123.0) is part of its job: -X leaves them out anyway
    if job_id.contains('.') {
        return Ok(None);
    }
    let per_task = gpus_of(req, at)?;
    let tasks = array_tasks(job_id);
    if per_task <= 0.0 {
        tally.without_gpus += 1;
        return Ok(None);
    }
    tally.jobs += 1;
    let Some(submit_us) = time_of(submit, "Submit", at, tally)? else {
        return Err(anyhow::anyhow!(at(
            submit,
            &format!(
                "Submit: expected a time like 2026-07-06T10:00:00, found '{}'",
                submit.text
            )
        )));
    };
    let started = time_of(start, "Start", at, tally)?;
    let ended = match cols.end {
        Some(e) => time_of(get(e), "End", at, tally)?,
        None => None,
    };
    let pending = state
        .text
        .trim()
        .to_ascii_uppercase()
        .starts_with("PENDING");
    // never started: a pending job waits on; one that left the queue otherwise
    // (cancelled while pending) waited until it ended
    let start_us = started.or(if pending { None } else { ended });
    let owner = user.text.trim();
    let account = cols.account.map(|a| get(a).text.trim()).unwrap_or("");
    Ok(Some(PendingRequest {
        owner: (!owner.is_empty())
            .then(|| owner.to_string())
            .or_else(|| (!account.is_empty()).then(|| account.to_string())),
        gpus: per_task * tasks as f64,
        submit_us,
        start_us,
    }))
}

/// A time of sacct, or None for `Unknown`, `None` or empty (not started, not ended).
fn time_of(
    f: Field,
    column: &str,
    at: &dyn Fn(Field, &str) -> String,
    tally: &mut Tally,
) -> Result<Option<i64>> {
    let t = f.text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("unknown") || t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match parse_timestamp_zoned(t) {
        Some((us, naive)) => {
            tally.naive_times += usize::from(naive);
            let shift = if naive {
                i64::from(tally.offset_s) * 1_000_000
            } else {
                0
            };
            Ok(Some(us - shift))
        }
        None => bail!(at(
            f,
            &format!(
                "{column}: expected a time like 2026-07-06T10:00:00 (or Unknown), found '{t}'"
            )
        )),
    }
}

/// GPUs a job asked for, from ReqTRES (`gres/gpu=N`; else the sum of
/// `gres/gpu:TYPE=N`, which sacct prints as well or instead). 0 when none.
fn gpus_of(f: Field, at: &dyn Fn(Field, &str) -> String) -> Result<f64> {
    let (mut plain, mut typed) = (None, 0.0);
    for item in f.text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            continue;
        };
        let is_gpu = key == "gres/gpu" || key.starts_with("gres/gpu:");
        if !is_gpu {
            continue;
        }
        let n: f64 = match value.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 => n,
            _ => bail!(at(
                f,
                &format!("ReqTRES: expected a GPU count in '{item}' (gres/gpu=N)")
            )),
        };
        if key == "gres/gpu" {
            plain = Some(n);
        } else {
            typed += n;
        }
    }
    Ok(plain.unwrap_or(typed))
}

/// Tasks of a pending job array row (`123_[0-9,12%4]`: 11); 1 otherwise.
fn array_tasks(job_id: &str) -> u64 {
    let Some(inner) = job_id
        .split_once("_[")
        .and_then(|(_, rest)| rest.strip_suffix(']'))
    else {
        return 1;
    };
    let inner = inner.split('%').next().unwrap_or("");
    // a-b, a-b:step or one index
    let count = |part: &str| -> Option<u64> {
        let (range, step) = match part.split_once(':') {
            Some((r, s)) => (r, s.trim().parse::<u64>().ok()?.max(1)),
            None => (part, 1),
        };
        match range.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?);
                (b >= a).then(|| (b - a) / step + 1)
            }
            None => range.trim().parse::<u64>().ok().map(|_| 1),
        }
    };
    inner
        .split(',')
        .map(|p| count(p).unwrap_or(1))
        .sum::<u64>()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_rows_count_their_tasks() {
        assert_eq!(array_tasks("123"), 1);
        assert_eq!(array_tasks("123_4"), 1);
        assert_eq!(array_tasks("123_[0-9]"), 10);
        assert_eq!(array_tasks("123_[0-9,12%4]"), 11);
        assert_eq!(array_tasks("123_[1,3,5]"), 3);
        assert_eq!(array_tasks("123_[1-9:2]"), 5);
    }

    #[test]
    fn gpus_come_from_the_plain_count_else_the_typed_ones() -> Result<()> {
        let at = |_: Field, w: &str| w.to_string();
        let f = |text| Field { text, column: 1 };
        assert_eq!(
            gpus_of(f("billing=4,cpu=4,gres/gpu=4,mem=16G,node=1"), &at)?,
            4.0
        );
        assert_eq!(
            gpus_of(f("cpu=8,gres/gpu:a100=4,gres/gpu=4,node=1"), &at)?,
            4.0
        );
        assert_eq!(
            gpus_of(f("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1"), &at)?,
            3.0
        );
        assert_eq!(gpus_of(f("billing=1,cpu=1,mem=4G,node=1"), &at)?, 0.0);
        assert!(gpus_of(f("gres/gpu=x"), &at).is_err());
        Ok(())
    }
}
