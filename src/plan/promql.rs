//! The plan's per-sample rules written in PromQL (`--pushdown`), from their
//! one definition in [`super::rules`]. The text is also MetricsQL:
//! VictoriaMetrics runs it unchanged and gives the same sums, because every
//! function it uses reads samples as they are (`last_over_time`,
//! `sum_over_time` over a subquery, aggregations), none extrapolates
//! (`rate`/`increase`, where the two engines differ, are never used), and
//! each lookback is explicit (docs/semantics.md §14).
use super::rules::{self, Cmp, HeldTest};
use crate::audit::HeldRule;

/// The DCGM series' memory unit (MiB) in bytes, the unit the rule's bound is in.
const MIB: u64 = 1 << 20;

/// How the pushdown decides a point held: an owner label, or a rule's test.
#[derive(Debug, Clone, PartialEq)]
pub enum Held {
    /// the owner label is set and names no exporter; `container`: the reader
    /// also reads the container label beside a pod label (not with --job-label)
    Owner { label: String, container: bool },
    /// the held rule's test on the exporter's series
    Rule(HeldRule),
}

/// The weight rule in PromQL: `metric` at an evaluation point (a multiple of
/// `step_us`) is its last sample within the step before it, so each sample
/// stands for at most one point and weighs one step (the reader weighs it the
/// time to the next sample, up to max gap: docs/semantics.md §12). Never the
/// engine's implicit lookback (5 m in Prometheus, derived from the scrape
/// interval in VictoriaMetrics): both engines see the same points.
pub fn point(metric: &str, matchers: &[&str], step_us: i64) -> String {
    let m: Vec<&str> = matchers.iter().copied().filter(|s| !s.is_empty()).collect();
    // (t − step, t] holds one step's samples: 1 ms less keeps a sample on the
    // previous point out of Prometheus 2.x's closed window
    format!(
        "last_over_time({metric}{{{}}}[{}ms])",
        m.join(", "),
        crate::source::prometheus::live::promql_millis(step_us) - 1
    )
}

/// The label matchers that keep a series' points held by its owner label:
/// set, and (for a pod label) not the exporter's own pod.
pub fn owner_matchers(label: &str, container: bool) -> Vec<String> {
    let mut m = vec![format!("{label}!=\"\"")];
    if let Some(c) = rules::container_of(label) {
        let re = rules::exporter_regex();
        m.push(format!("{label}!~\"{re}\""));
        if container {
            m.push(format!("{c}!~\"{re}\""));
        }
    }
    m
}

/// `metric` at the points where its GPU is held. `sel(metric, matchers)`
/// writes a series' last sample within the step; `on` are the GPU key labels
/// a test on another series joins by; `fb` the memory series.
pub fn held(
    metric: &str,
    rule: &Held,
    sel: &dyn Fn(&str, &str) -> String,
    on: &[String],
    fb: &str,
) -> String {
    match rule {
        Held::Owner { label, container } => {
            sel(metric, &owner_matchers(label, *container).join(", "))
        }
        Held::Rule(r) => match r.test() {
            HeldTest::Threshold { cmp, bound, .. } => format!(
                "({} and on ({}) ({} * {MIB} {} {}))",
                sel(metric, ""),
                on.join(", "),
                sel(fb, ""),
                cmp.op(),
                number(bound)
            ),
            // no held column or job column in DCGM series: every point is held
            HeldTest::Always | HeldTest::Words | HeldTest::Owner => sel(metric, ""),
        },
    }
}

/// A percent series as a fraction, scaled as the readers scale it.
pub fn percent(series: &str) -> String {
    format!("({series}) * {}", number(rules::PERCENT))
}

/// The idle test (§5) on a held device-activity percent series: kept where
/// it is below --idle-below.
pub fn idle(held_util: &str, idle_below: f64) -> String {
    compare(&percent(held_util), rules::IDLE_CMP, idle_below)
}

/// `expr` kept where it compares so with `bound` (PromQL's filtering comparison).
pub fn compare(expr: &str, cmp: Cmp, bound: f64) -> String {
    format!("{expr} {} {}", cmp.op(), number(bound))
}

/// A float as PromQL reads it back to the same double.
fn number(x: f64) -> String {
    format!("{x:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::HeldRule;

    fn sel(metric: &str, extra: &str) -> String {
        format!("last_over_time({metric}{{{extra}}}[59999ms])")
    }

    #[test]
    fn a_point_reads_the_last_sample_within_its_step() {
        assert_eq!(
            point("U", &["cluster=\"a\"", "", "pod!=\"\""], 30_000_000),
            "last_over_time(U{cluster=\"a\", pod!=\"\"}[29999ms])"
        );
    }

    #[test]
    fn the_held_rules_in_promql() {
        let on = ["Hostname".to_string(), "UUID".to_string()];
        let fb = "DCGM_FI_DEV_FB_USED";
        let pod = Held::Owner {
            label: "exported_pod".into(),
            container: true,
        };
        assert_eq!(
            held("U", &pod, &sel, &on, fb),
            "last_over_time(U{exported_pod!=\"\", exported_pod!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\", exported_container!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\"}[59999ms])"
        );
        let job = Held::Owner {
            label: "hpc_job".into(),
            container: true,
        };
        assert_eq!(
            held("U", &job, &sel, &on, fb),
            "last_over_time(U{hpc_job!=\"\"}[59999ms])"
        );
        // bytes, as the reader compares them: 1.5 GiB is no whole MiB count
        let mem = Held::Rule(HeldRule::Memory(3 << 29));
        assert_eq!(
            held("U", &mem, &sel, &on, fb),
            "(last_over_time(U{}[59999ms]) and on (Hostname, UUID) (last_over_time(DCGM_FI_DEV_FB_USED{}[59999ms]) * 1048576 > 1610612736.0))"
        );
        assert_eq!(idle("X", 0.07), "(X) * 0.01 < 0.07");
    }
}
