//! `gpuaudit report --prometheus URL`: the live-Prometheus arguments as typed
//! options (the pipeline builds the client, the window and the query).
use super::env::Tuning;
use crate::cli::prometheus::{PromCompressionArg, PrometheusArgs};
use crate::pipeline::PrometheusOptions;
use crate::source::prometheus::http::{Auth, Compression};
use anyhow::{Result, bail};
use std::time::Duration;

pub fn options(p: &PrometheusArgs, url: &str, tuning: &Tuning) -> Result<PrometheusOptions> {
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
    Ok(PrometheusOptions {
        url: url.to_string(),
        step_us: p.step,
        selector: p.selector.clone(),
        hosts_per_query: p.hosts_per_query,
        concurrency: p.prom_concurrency,
        pushdown: p.pushdown,
        queue: p.prom_queue,
        auth,
        // positive: clap's parser refused anything else
        timeout: Duration::from_micros(p.prom_timeout.unsigned_abs()),
        retries: p.prom_retries,
        compression: match p.prom_compression {
            PromCompressionArg::Gzip => Compression::Gzip,
            PromCompressionArg::None => Compression::None,
        },
        trace: tuning.prom_trace.clone(),
    })
}
