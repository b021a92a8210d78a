//! CSV for spreadsheets: one table per invocation (`--table`), a header row,
//! plain unrounded numbers, empty cells where a figure is unknown. Written
//! row by row as produced ([`write`]): a table of a million jobs is never
//! one string in memory.
use crate::audit::model::{Layers, Ratios, Report};
use anyhow::{Result, bail};
use std::io::Write;

fn num(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// RFC 3339 never holds a comma or a quote: written bare.
fn rfc3339(t: &chrono::DateTime<chrono::Utc>) -> String {
    crate::timeparse::rfc3339(t)
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn text(v: Option<&str>) -> String {
    v.map(quote).unwrap_or_default()
}

fn line(cells: Vec<String>) -> String {
    let mut s = cells.join(",");
    s.push('\n');
    s
}

/// The dollars of one layers row, in header order after the hours and ratios.
struct Dollars {
    held: Option<f64>,
    idle_held: Option<f64>,
    not_useful: Option<f64>,
    observed: Option<f64>,
    unallocated: Option<f64>,
    not_busy: Option<f64>,
    sm_idle: Option<f64>,
    tensor_idle: Option<f64>,
}

// The first 16 columns are those of the first release, in its order; the
// rest were added after it, so a spreadsheet reading by position still works.
const LAYERS_HEADER: &str = "scope,key,observed_gpu_hours,held_gpu_hours,active_gpu_hours,sm_active_gpu_hours,tensor_active_gpu_hours,useful_gpu_hours,idle_held_gpu_hours,active,sm_active,tensor_active,mfu,held_usd,idle_held_usd,not_useful_usd,unallocated_gpu_hours,observed_usd,unallocated_usd,not_busy_usd,sm_idle_usd,tensor_idle_usd,not_useful_basis,monthly_observed_usd,monthly_held_usd,monthly_idle_held_usd,monthly_unallocated_usd,monthly_not_useful_usd,window_start,window_end,window_hours,snapshot,price_source\n";

fn layers_row(
    report: &Report,
    scope: &str,
    key: &str,
    l: &Layers,
    r: &Ratios,
    d: Dollars,
    fleet: bool,
) -> String {
    let c = &report.cost;
    let m = &c.monthly_run_rate;
    // run-rates and the basis are the fleet's; a group row leaves them empty
    let f = |v: Option<f64>| if fleet { num(v) } else { String::new() };
    let w = &report.window;
    line(vec![
        quote(scope),
        quote(key),
        l.observed_gpu_hours.to_string(),
        l.held_gpu_hours.to_string(),
        num(l.active_gpu_hours),
        num(l.sm_active_gpu_hours),
        num(l.tensor_active_gpu_hours),
        num(l.useful_gpu_hours),
        num(l.idle_held_gpu_hours),
        num(r.active()),
        num(r.sm_active()),
        num(r.tensor_active()),
        num(r.mfu),
        num(d.held),
        num(d.idle_held),
        num(d.not_useful),
        l.unallocated_gpu_hours.to_string(),
        num(d.observed),
        num(d.unallocated),
        num(d.not_busy),
        num(d.sm_idle),
        num(d.tensor_idle),
        if fleet {
            text(c.not_useful_basis.as_deref())
        } else {
            String::new()
        },
        f(m.observed_usd),
        f(m.held_usd),
        f(m.idle_held_usd),
        f(m.unallocated_usd),
        f(m.not_useful_usd),
        rfc3339(&w.start),
        rfc3339(&w.end),
        w.hours.to_string(),
        w.snapshot.to_string(),
        quote(&super::cost::price_source_text(&c.price_source)),
    ])
}

fn layers(report: &Report, fleet: bool, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(LAYERS_HEADER.as_bytes())?;
    if fleet {
        let c = &report.cost;
        let d = Dollars {
            held: c.held_usd,
            idle_held: c.idle_held_usd,
            not_useful: c.not_useful_usd,
            observed: c.observed_usd,
            unallocated: c.unallocated_usd,
            not_busy: c.not_busy_usd,
            sm_idle: c.sm_idle_usd,
            tensor_idle: c.tensor_idle_usd,
        };
        out.write_all(
            layers_row(
                report,
                "fleet",
                "all",
                &report.layers,
                &report.ratios,
                d,
                true,
            )
            .as_bytes(),
        )?;
    }
    for g in report.groups.iter().flatten() {
        let c = &g.cost;
        let d = Dollars {
            held: c.held_usd,
            idle_held: c.idle_held_usd,
            not_useful: c.not_useful_usd,
            observed: c.observed_usd,
            unallocated: c.unallocated_usd,
            not_busy: None,
            sm_idle: None,
            tensor_idle: None,
        };
        out.write_all(
            layers_row(report, &g.by, &g.key, &g.layers, &g.ratios, d, false).as_bytes(),
        )?;
    }
    Ok(())
}

fn episodes(report: &Report, per_gpu: bool, out: &mut dyn Write) -> std::io::Result<()> {
    if per_gpu {
        out.write_all(b"host,gpu,job,user,team,start,end,hours,usd\n")?;
        for e in &report.idle_episodes {
            out.write_all(
                line(vec![
                    quote(&e.host),
                    quote(&e.gpu),
                    text(e.job.as_deref()),
                    text(e.user.as_deref()),
                    text(e.team.as_deref()),
                    rfc3339(&e.start),
                    rfc3339(&e.end),
                    e.hours.to_string(),
                    num(e.usd),
                ])
                .as_bytes(),
            )?;
        }
        return Ok(());
    }
    out.write_all(b"job,user,team,gpus,hosts,start,end,gpu_hours,usd\n")?;
    for e in &report.idle_episode_groups {
        out.write_all(
            line(vec![
                text(e.job.as_deref()),
                text(e.user.as_deref()),
                text(e.team.as_deref()),
                e.gpus.to_string(),
                quote(&e.hosts.join(";")),
                rfc3339(&e.start),
                rfc3339(&e.end),
                e.gpu_hours.to_string(),
                num(e.usd),
            ])
            .as_bytes(),
        )?;
    }
    Ok(())
}

fn gpus(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(
        b"host,gpu,model,samples,jobs,users,observed_gpu_hours,held_gpu_hours,idle_held_gpu_hours,device_util,sm_active,tensor_active,last_mem_used_bytes,last_mem_total_bytes,last_power_w,last_held,usd_per_hour\n",
    )?;
    let int = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    for g in &report.gpus {
        out.write_all(
            line(vec![
                quote(&g.host),
                quote(&g.gpu),
                text(g.model.as_deref()),
                g.samples.to_string(),
                quote(&g.jobs.join(";")),
                quote(&g.users.join(";")),
                g.observed_gpu_hours.to_string(),
                g.held_gpu_hours.to_string(),
                num(g.idle_held_gpu_hours),
                num(g.device_util),
                num(g.sm_active),
                num(g.tensor_active),
                int(g.last_mem_used_bytes),
                int(g.last_mem_total_bytes),
                num(g.last_power_w),
                g.last_held.to_string(),
                num(g.usd_per_hour),
            ])
            .as_bytes(),
        )?;
    }
    Ok(())
}

/// Each job's row is built from the report's packed list as it is written.
fn jobs(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(jobs) = &report.diagnosis.jobs else {
        return Ok(()); // refused before anything is written: [`check`]
    };
    out.write_all(
        b"job,gpus,held_gpu_hours,device_util,sm_active,tensor_active,mfu,useful_gpu_hours,not_useful_usd,shape,declared_kind,hosts,gang,span_hours,idle_share,ett,interruptions,mtbi_hours,mean_recovery_hours,usd\n",
    )?;
    for j in jobs {
        out.write_all(
            line(vec![
                quote(&j.job),
                j.gpus.to_string(),
                j.held_gpu_hours.to_string(),
                num(j.active_share),
                num(j.sm_active_share),
                num(j.tensor_active_share),
                num(j.mfu),
                num(j.useful_gpu_hours),
                num(j.not_useful_usd),
                j.shape.name().to_string(),
                j.declared_kind
                    .map(|k| k.name().to_string())
                    .unwrap_or_default(),
                j.hosts.to_string(),
                j.gang.to_string(),
                j.span_hours.to_string(),
                num(j.idle_share),
                num(j.ett),
                j.interruptions.map(|n| n.to_string()).unwrap_or_default(),
                num(j.mtbi_hours),
                num(j.mean_recovery_hours),
                num(j.usd),
            ])
            .as_bytes(),
        )?;
    }
    Ok(())
}

/// Which table `--format csv` writes (one per invocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Layers,
    Groups,
    Episodes,
    Gpus,
    Jobs,
    Timeline,
}

/// Whether `report` has `table`: the one line that says why not, before
/// anything is written.
pub fn check(report: &Report, table: Table) -> Result<()> {
    match table {
        Table::Groups if report.groups.is_none() => {
            bail!("--table groups lists showback groups; give --by team|user|job|host|model")
        }
        Table::Jobs if report.diagnosis.jobs.is_none() => bail!(
            "--table jobs lists jobs, and no sample carries a job (map one with --map YOURS=job)"
        ),
        Table::Timeline if report.diagnosis.timeline.is_none() => bail!(
            "--table timeline: this report has no timeline (with --pushdown: the bucket is not a multiple of --step; from --partials: partial sums carry none; see the notes)"
        ),
        _ => Ok(()),
    }
}

/// The table, written to `out` row by row (call [`check`] first: a table
/// the report lacks writes nothing here).
pub fn write(
    report: &Report,
    table: Table,
    per_gpu: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match table {
        Table::Layers => layers(report, true, out),
        Table::Groups => layers(report, false, out),
        Table::Episodes => episodes(report, per_gpu, out),
        Table::Gpus => gpus(report, out),
        Table::Jobs => jobs(report, out),
        Table::Timeline => match &report.diagnosis.timeline {
            Some(t) => out.write_all(crate::render::diagnosis::timeline::csv(t).as_bytes()),
            None => Ok(()),
        },
    }
}

/// The table as one string ([`check`], then [`write`]).
pub fn render(report: &Report, table: Table, per_gpu: bool) -> Result<String> {
    check(report, table)?;
    let mut out = Vec::new();
    write(report, table, per_gpu, &mut out)?;
    Ok(String::from_utf8(out)?)
}
