//! `gpuaudit report --prometheus URL`: the live-Prometheus arguments turned
//! into a client and a window, then the pulled audit or the PromQL pushdown.
use super::common::{audit_config, read_options};
use crate::audit::model::Report;
use crate::cli::ReportArgs;
use crate::cli::prometheus::PrometheusArgs;
use crate::samples::SampleTable;
use crate::source::prometheus::http::{Auth, Client, ClientOptions};
use crate::source::prometheus::live::{self as prometheus_live, LiveQuery};
use crate::source::prometheus::pushdown as prometheus_pushdown;
use crate::timeparse::{parse_cli_time, parse_duration_us};
use anyhow::{Context, Result, bail};
use std::time::Duration;

/// The default window of a live query: the last 7 days.
const DEFAULT_SINCE: &str = "7d";

/// A live --since/--until: RFC 3339, a date, `now`, or a span back from NOW
/// (unlike files, where a span counts back from the end of the data).
fn live_time(text: &str, now_us: i64) -> Result<i64> {
    if text.trim().eq_ignore_ascii_case("now") {
        return Ok(now_us);
    }
    parse_cli_time(text, Some(now_us))
}

fn client(p: &PrometheusArgs, url: &str) -> Result<Client> {
    let auth = match (&p.prom_token, &p.prom_user) {
        (Some(_), Some(_)) => {
            bail!("give either a bearer token (--prom-token) or basic auth (--prom-user), not both")
        }
        (Some(t), None) => Auth::Bearer(t.trim().to_string()),
        (None, Some(u)) => Auth::Basic {
            user: u.clone(),
            password: p.prom_password.clone().unwrap_or_default(),
        },
        (None, None) => Auth::None,
    };
    let timeout = parse_duration_us(&p.prom_timeout).context("--prom-timeout")?;
    if timeout <= 0 {
        bail!("--prom-timeout must be positive");
    }
    let opts = ClientOptions {
        timeout: Duration::from_millis(timeout as u64),
        retries: p.prom_retries,
        auth,
    };
    Client::new(url, &opts)
}

pub fn build(args: &ReportArgs, url: &str) -> Result<Report> {
    let p = &args.input.live;
    if !args.input.inputs.is_empty() {
        bail!("give either input files or --prometheus, not both");
    }
    let now = chrono::Utc::now().timestamp_millis();
    let until = live_time(args.audit.until.as_deref().unwrap_or("now"), now).context("--until")?;
    let since =
        live_time(args.audit.since.as_deref().unwrap_or(DEFAULT_SINCE), now).context("--since")?;
    let step = parse_duration_us(&p.step).context("--step")?;
    let q = LiveQuery::new(since, until, step, p.selector.as_deref(), p.hosts_per_query)?;
    let mut client = client(p, url)?;
    let opts = read_options(&args.input, args.quiet)?;
    // The window is applied by the query itself: the audit must not count back from the data.
    let mut audit_args = args.audit.clone();
    audit_args.since = None;
    audit_args.until = None;

    if p.pushdown {
        if args.audit.jobs.is_some() {
            bail!("--jobs needs each job's samples: it cannot be combined with --pushdown");
        }
        let mut cfg = audit_config(&audit_args, &SampleTable::concat(Vec::new())?)?;
        cfg.since = Some(q.since_us);
        cfg.until = Some(q.until_us);
        return prometheus_pushdown::report(
            &mut client,
            &q,
            &cfg,
            opts.job_label.as_deref(),
            opts.team_label.as_deref(),
        );
    }
    let table = prometheus_live::load(&mut client, &q, &opts)?;
    let mut cfg = audit_config(&audit_args, &table)?;
    cfg.since = Some(q.since_us);
    cfg.until = Some(q.until_us);
    let jobs = super::mfu::declared_jobs(args.audit.jobs.as_deref())?;
    crate::audit::audit_with_jobs(&table, &cfg, jobs.as_ref())
}
