//! The audit's per-sample rules as data, each defined once and written by
//! every dialect from here (docs/semantics.md §14): SQL over the canonical
//! columns (`sql`), PromQL/MetricsQL over DCGM series and labels (`promql`).
//! The reader applies the same rules in Rust (`audit::held`,
//! `source::prometheus`); the tests below evaluate these definitions and
//! compare them with the reader's functions over every case.
use crate::audit::HeldRule;
use crate::audit::held::{HELD_FALSE, HELD_TRUE};
use crate::samples::col;

pub use crate::audit::held::Cmp;

pub use crate::audit::held::HeldTest;

/// The held rule as the test each dialect writes (`HeldRule::test`).
pub fn held_test(rule: HeldRule) -> HeldTest {
    rule.test()
}

/// The held column's (true, false) words; an engine that reads a numeric
/// column as text writes 1 and 0 as "1.0" and "0.0", which read alike.
pub fn held_words() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        [HELD_TRUE, &["1.0"]].concat(),
        [HELD_FALSE, &["0.0"]].concat(),
    )
}

/// Idle (§5): a held sample whose device activity is known and below
/// --idle-below.
pub const IDLE_METRIC: &str = col::DEVICE_UTIL;
pub use crate::audit::held::IDLE_CMP;

/// A percent becomes a fraction by this factor, as every reader scales it
/// (`samples::Unit::Percent`): multiplied, so a threshold compares the same
/// double in Rust, SQL and PromQL.
pub const PERCENT: f64 = 0.01;

/// The exporter's own pod names no workload (§3): a pod label, or the
/// container label beside it, containing one of these words in any case.
pub use crate::source::prometheus::EXPORTER_POD_MARKERS;

/// The owner labels a pod's workload is read from, in order, each with the
/// container label the exporter test also reads and its namespace label.
pub const OWNER_PODS: [(&str, &str, &str); 2] = [
    ("exported_pod", "exported_container", "exported_namespace"),
    ("pod", "container", "namespace"),
];

/// The container label read beside a pod label (None: not a pod label).
pub fn container_of(pod_label: &str) -> Option<&'static str> {
    OWNER_PODS
        .iter()
        .find(|(p, _, _)| *p == pod_label)
        .map(|(_, c, _)| *c)
}

/// Whether a label value names the exporter (the reader's test).
pub fn names_exporter(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    EXPORTER_POD_MARKERS.iter().any(|m| v.contains(m))
}

/// The exporter test as an RE2 regular expression (PromQL `=~`, ClickHouse
/// `match`): the markers are plain words, so no escaping is needed.
pub fn exporter_regex() -> String {
    format!("(?i).*({}).*", EXPORTER_POD_MARKERS.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::held::is_idle;

    /// The rule as data, evaluated: what each dialect's rendering means.
    fn held_by_test(t: HeldTest, text: Option<&str>, job: Option<&str>, mem: Option<u64>) -> bool {
        let (yes, _) = held_words();
        match t {
            HeldTest::Words => {
                text.is_some_and(|w| yes.contains(&w.trim().to_ascii_lowercase().as_str()))
            }
            HeldTest::Owner => job.is_some(),
            HeldTest::Threshold { cmp, bound, .. } => {
                mem.is_some_and(|m| cmp.holds(m as f64, bound))
            }
            HeldTest::Always => true,
        }
    }

    #[test]
    fn the_held_test_is_the_readers_held_rule() {
        let texts = [
            None,
            Some("true"),
            Some(" Yes "),
            Some("0"),
            Some("1"),
            Some("maybe"),
        ];
        let mems = [None, Some(0), Some(1 << 30), Some((1 << 30) + 1)];
        for rule in [
            HeldRule::HeldColumn,
            HeldRule::JobColumn,
            HeldRule::Memory(1 << 30),
            HeldRule::Assumed,
        ] {
            for text in texts {
                // the held column as the reader parses it (`samples`)
                let parsed = text.map(|w| w.trim().to_ascii_lowercase()).and_then(|w| {
                    if HELD_TRUE.contains(&w.as_str()) {
                        Some(true)
                    } else if HELD_FALSE.contains(&w.as_str()) {
                        Some(false)
                    } else {
                        None
                    }
                });
                for job in [None, Some("train-1")] {
                    for mem in mems {
                        assert_eq!(
                            held_by_test(held_test(rule), text, job, mem),
                            rule.holds(parsed, job.is_some(), mem),
                            "{rule:?} {text:?} {job:?} {mem:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_idle_test_is_the_readers_idle_rule() {
        for held in [false, true] {
            for util in [
                None,
                Some(0.0),
                Some(0.0099),
                Some(0.01),
                Some(0.07),
                Some(0.5),
            ] {
                for below in [0.01, 0.07] {
                    let ours = held && util.is_some_and(|u| IDLE_CMP.holds(u, below));
                    assert_eq!(ours, is_idle(held, util, below), "{held} {util:?} {below}");
                }
            }
        }
        // 35 % scaled as the readers scale it (× 0.01) is not 35 / 100: one
        // scaling everywhere keeps a threshold of 0.35 on the same side
        assert_ne!(35.0 * PERCENT, 35.0 / 100.0);
    }

    #[test]
    fn the_exporter_test_and_its_regex() {
        for (v, exporter) in [
            ("dcgm-exporter-7x2kq", true),
            ("NVIDIA-DCGM_Exporter", true),
            ("amd-metrics-exporter-abc", true),
            ("train-llm-0", false),
            ("", false),
        ] {
            assert_eq!(names_exporter(v), exporter, "{v}");
        }
        assert_eq!(
            exporter_regex(),
            "(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*"
        );
        assert_eq!(container_of("pod"), Some("container"));
        assert_eq!(container_of("hpc_job"), None);
    }
}
