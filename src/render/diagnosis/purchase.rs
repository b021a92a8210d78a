//! The purchase answer: the paragraph the report prints first, the rule it
//! applied and the no-queue-data caveat.
use super::{bucket_noun, gpus};
use crate::audit::diagnosis::purchase::{MIN_OBSERVED_BUCKETS, MIN_WINDOW_HOURS, PurchaseRule};
use crate::audit::diagnosis::{Purchase, Verdict};
use serde::{Serialize, Serializer};

/// The rule in words: the JSON's `purchase.rule` and the report's "rule:" line.
pub fn rule_text(rule: &PurchaseRule) -> String {
    match rule {
        PurchaseRule::TooShort {
            observed_buckets,
            window_hours,
        } => format!(
            "too short to decide: {observed_buckets} observed buckets and a {window_hours:.1} h window; {MIN_OBSERVED_BUCKETS} buckets and {MIN_WINDOW_HOURS} h needed"
        ),
        PurchaseRule::ActivityUnmeasured => {
            "device activity not measured: idle held GPUs cannot be counted as spare".to_string()
        }
        PurchaseRule::WantFits { spare_p5, want } => format!(
            "spare_p5 ({spare_p5}) >= want ({want}): the request fits in GPUs that did nothing in 95% of the buckets"
        ),
        PurchaseRule::WantUncovered {
            spare_p5,
            want,
            uncovered,
        } => format!(
            "spare_p5 ({spare_p5}) < want ({want}): {uncovered} GPUs are not covered by idle capacity"
        ),
        PurchaseRule::ShareSpare { spare_p5, floor } => {
            format!("spare_p5 ({spare_p5}) >= 10% of owned ({floor}): no --want given")
        }
        PurchaseRule::ShareShort { spare_p5, floor } => format!(
            "spare_p5 ({spare_p5}) < 10% of owned ({floor}): at most {spare_p5} GPUs were spare in 95% of the buckets"
        ),
        PurchaseRule::Text(text) => text.clone(),
    }
}

/// `purchase.rule` in the JSON is the rule's text, as before it was typed.
impl Serialize for PurchaseRule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&rule_text(self))
    }
}

/// How the deepest layer reads in the sentence.
fn basis_words(basis: &str) -> String {
    match basis {
        "tensor_active" => "tensor-active".to_string(),
        "sm_active" => "SM-active".to_string(),
        "active" => "device-active".to_string(),
        other => other.replace('_', " "),
    }
}

fn verdict_sentence(p: &Purchase, unit: &str) -> String {
    let spare = gpus(p.spare_p5);
    match (p.verdict, p.want) {
        (Verdict::InsufficientData, _) => {
            format!("Verdict: insufficient data — {}.", rule_text(&p.rule))
        }
        (Verdict::ReclaimFirst, Some(n)) => format!(
            "Verdict: reclaim first — the {n} GPUs asked for sat unallocated or idle in 95% of {unit}."
        ),
        (Verdict::ReclaimFirst, None) => format!(
            "Verdict: reclaim first — {spare} GPUs, at least 10% of those observed, sat unallocated or idle in 95% of {unit}."
        ),
        (Verdict::Saturated | Verdict::ReclaimThenBuy | Verdict::Buy, Some(n)) => format!(
            "Verdict: saturated — at most {spare} GPUs were spare in 95% of {unit}; {} of the {n} asked for are not covered by idle capacity.",
            gpus(p.uncovered_gpus)
        ),
        (Verdict::InsufficientCoverage, _) => {
            format!("Verdict: insufficient coverage — {}.", rule_text(&p.rule))
        }
        (Verdict::OptimizeFirst, _) => format!(
            "Verdict: optimize first — the work fits on {} GPUs on the SM basis.",
            gpus(p.optimize_to_gpus)
        ),
        (Verdict::Saturated | Verdict::ReclaimThenBuy | Verdict::Buy, None) => format!(
            "Verdict: saturated — at most {spare} GPUs were spare in 95% of {unit}, under 10% of those observed."
        ),
    }
}

/// "You observed 1,000 GPUs. At the busiest hours 940 were held; ..." with
/// `bucket_seconds` naming the unit ("hours" for 1 h buckets).
pub fn paragraph(p: &Purchase, bucket_seconds: f64) -> String {
    let unit = bucket_noun(bucket_seconds);
    let mut s = format!("You observed {} GPUs. ", gpus(Some(p.gpus_seen as f64)));
    if p.observed_buckets == 0 {
        s.push_str("No bucket had data. ");
    } else {
        s.push_str(&format!(
            "At the busiest {unit} {} were held; ",
            gpus(p.held_max)
        ));
        match p.spare_p5 {
            Some(_) => s.push_str(&format!(
                "in 95% of {unit} at least {} did nothing; ",
                gpus(p.spare_p5)
            )),
            None => s.push_str("idle was not measured (no device activity); "),
        }
        match (&p.output_basis, p.output_equivalent_gpus) {
            (Some(basis), Some(_)) => s.push_str(&format!(
                "their {} work equals {} GPUs fully busy. ",
                basis_words(basis),
                gpus(p.output_equivalent_gpus)
            )),
            _ => s.push_str("their output is not measured. "),
        }
    }
    s.push_str(&verdict_sentence(p, &unit));
    s
}

/// The paragraph, then the rule and the caveat, one line each.
pub fn table(p: &Purchase, bucket_seconds: f64) -> String {
    format!(
        "{}\nrule: {}\nnote: {}\n",
        paragraph(p, bucket_seconds),
        rule_text(&p.rule),
        p.caveat
    )
}

pub fn markdown(p: &Purchase, bucket_seconds: f64) -> String {
    format!(
        "\n### Do we need more GPUs?\n\n{}\n\n*Rule:* {}  \n*Note:* {}\n",
        paragraph(p, bucket_seconds),
        rule_text(&p.rule),
        p.caveat
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::diagnosis::purchase::NO_QUEUE_CAVEAT;

    fn meeting() -> Purchase {
        Purchase {
            owned: Some(1000.0),
            gpus_seen: 1000,
            held_p50: Some(700.0),
            held_p95: Some(900.0),
            held_max: Some(940.0),
            spare_p5: Some(212.0),
            output_equivalent_gpus: Some(96.0),
            output_basis: Some("tensor_active".to_string()),
            want: Some(64),
            verdict: Verdict::ReclaimFirst,
            rule: PurchaseRule::Text("spare_p5 (212) >= want (64)".to_string()),
            uncovered_gpus: None,
            observed_buckets: 336,
            caveat: NO_QUEUE_CAVEAT.to_string(),
            ..Purchase::default()
        }
    }

    #[test]
    fn the_paragraph_reads_as_the_issue_says() {
        assert_eq!(
            paragraph(&meeting(), 3600.0),
            "You observed 1,000 GPUs. At the busiest hours 940 were held; in 95% of hours at least 212 did nothing; their tensor-active work equals 96 GPUs fully busy. Verdict: reclaim first — the 64 GPUs asked for sat unallocated or idle in 95% of hours."
        );
        let text = table(&meeting(), 3600.0);
        assert!(
            text.contains("\nrule: spare_p5 (212) >= want (64)\n"),
            "{text}"
        );
        assert!(
            text.ends_with(&format!("note: {NO_QUEUE_CAVEAT}\n")),
            "{text}"
        );
        assert!(markdown(&meeting(), 3600.0).contains("*Note:* no scheduler queue data"));
    }

    #[test]
    fn saturated_and_insufficient_read_their_numbers() {
        let p = Purchase {
            verdict: Verdict::Saturated,
            spare_p5: Some(20.0),
            uncovered_gpus: Some(44.0),
            ..meeting()
        };
        let text = paragraph(&p, 900.0);
        assert!(
            text.contains("in 95% of 15 min buckets at least 20 did nothing"),
            "{text}"
        );
        assert!(text.ends_with("Verdict: saturated — at most 20 GPUs were spare in 95% of 15 min buckets; 44 of the 64 asked for are not covered by idle capacity."), "{text}");
        let short = Purchase {
            verdict: Verdict::InsufficientData,
            rule: PurchaseRule::Text("too short to decide: 3 observed buckets".to_string()),
            want: None,
            ..meeting()
        };
        assert!(
            paragraph(&short, 3600.0)
                .ends_with("Verdict: insufficient data — too short to decide: 3 observed buckets.")
        );
        let none = Purchase {
            verdict: Verdict::ReclaimFirst,
            want: None,
            ..meeting()
        };
        assert!(paragraph(&none, 86_400.0).contains("reclaim first — 212 GPUs, at least 10% of those observed, sat unallocated or idle in 95% of days."));
    }

    #[test]
    fn the_rule_is_written_as_its_text_and_read_back_as_text() -> anyhow::Result<()> {
        let rule = PurchaseRule::WantUncovered {
            spare_p5: 20.0,
            want: 64,
            uncovered: 44.0,
        };
        let text = "spare_p5 (20) < want (64): 44 GPUs are not covered by idle capacity";
        assert_eq!(rule_text(&rule), text);
        assert_eq!(serde_json::to_string(&rule)?, format!("\"{text}\""));
        let back: PurchaseRule = serde_json::from_str(&format!("\"{text}\""))?;
        assert_eq!(back, PurchaseRule::Text(text.to_string()));
        assert_eq!(
            rule_text(&PurchaseRule::TooShort {
                observed_buckets: 23,
                window_hours: 22.84
            }),
            "too short to decide: 23 observed buckets and a 22.8 h window; 24 buckets and 24 h needed"
        );
        Ok(())
    }
}
