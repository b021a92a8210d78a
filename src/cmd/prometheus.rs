//! `gpuaudit report --prometheus URL`: the live-Prometheus arguments as plain
//! options (the pipeline builds the client, the window and the query).
use crate::cli::prometheus::{PromCompressionArg, PrometheusArgs};
use crate::pipeline::PrometheusOptions;
use crate::source::prometheus::http::Compression;

pub fn options(p: &PrometheusArgs, url: &str) -> PrometheusOptions {
    PrometheusOptions {
        url: url.to_string(),
        step: p.step.clone(),
        selector: p.selector.clone(),
        hosts_per_query: p.hosts_per_query,
        concurrency: p.prom_concurrency.clone(),
        pushdown: p.pushdown,
        queue: p.prom_queue,
        token: p.prom_token.clone(),
        user: p.prom_user.clone(),
        password: p.prom_password.clone(),
        timeout: p.prom_timeout.clone(),
        retries: p.prom_retries,
        compression: match p.prom_compression {
            PromCompressionArg::Gzip => Compression::Gzip,
            PromCompressionArg::None => Compression::None,
        },
    }
}
