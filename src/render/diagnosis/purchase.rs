//! The purchase answer: the paragraph the report prints first, the plan
//! (reclaim by owner, the uncovered rest and its price), the rule it applied,
//! and the no-queue-data caveat.
use super::{bucket_noun, gpus};
use crate::audit::diagnosis::purchase::{
    MIN_OBSERVED_BUCKETS, Need, OPTIMIZE_MAX_SHARE, OPTIMIZE_SM_TARGET, PurchaseCaveat,
    PurchaseRule, Reclaim, ReclaimSource, Spare,
};
use crate::audit::diagnosis::{Purchase, Verdict};
use crate::render::fmt::{pct, usd};
use serde::{Serialize, Serializer};

/// "11 GPUs spare in 95% of hours".
fn spare_words(s: &Spare) -> String {
    format!(
        "{} GPUs spare in 95% of {}",
        gpus(Some(s.gpus)),
        bucket_noun(s.bucket_seconds)
    )
}

/// "the 16 asked for" / "the 3 pending in the queue at p95".
fn need_words(n: &Need) -> String {
    match n {
        Need::Want(w) => format!("the {w} asked for"),
        Need::Pending(p) => format!("the {} pending in the queue at p95", gpus(Some(*p))),
    }
}

/// A number of hours for a sentence: "24", "22.8".
fn hours_words(h: f64) -> String {
    if (h - h.round()).abs() < 0.05 {
        format!("{}", h.round())
    } else {
        format!("{h:.1}")
    }
}

/// The rule in words: the JSON's `purchase.rule` and the report's "rule:" line.
pub fn rule_text(rule: &PurchaseRule) -> String {
    match rule {
        PurchaseRule::TooShort {
            observed_buckets,
            window_hours,
            min_window_hours,
        } => {
            let hint = if *observed_buckets >= MIN_OBSERVED_BUCKETS {
                " (--min-window accepts a shorter window, provisionally)"
            } else {
                ""
            };
            format!(
                "too short to decide: {observed_buckets} observed buckets and a {window_hours:.1} h window; {MIN_OBSERVED_BUCKETS} buckets and {} h needed{hint}",
                hours_words(*min_window_hours)
            )
        }
        PurchaseRule::LowCoverage {
            coverage,
            held_known_share,
        } => format!(
            "coverage {} of the GPUs' window, held known for {} of the observed time; 50% of each needed",
            pct(Some(*coverage)),
            pct(Some(*held_known_share))
        ),
        PurchaseRule::ActivityUnmeasured => {
            "device activity not measured: idle held GPUs cannot be counted as spare".to_string()
        }
        PurchaseRule::Text(text) => text.clone(),
        decided => decision_text(decided),
    }
}

/// The rules that decided on the spare GPUs, in words.
fn decision_text(rule: &PurchaseRule) -> String {
    match rule {
        PurchaseRule::ReclaimCovers { spare, need } => {
            format!("{} ≥ {}", spare_words(spare), need_words(need))
        }
        PurchaseRule::ReclaimPart {
            spare,
            need,
            uncovered,
        } => format!(
            "{} < {}: {} not covered",
            spare_words(spare),
            need_words(need),
            gpus(Some(*uncovered))
        ),
        PurchaseRule::ShareSpare {
            spare,
            floor,
            owned,
        } => format!(
            "{} ≥ {}, 10% of the {} observed",
            spare_words(spare),
            gpus(Some(*floor)),
            gpus(Some(*owned))
        ),
        PurchaseRule::Optimize {
            spare,
            sm_p95,
            held_p95,
            optimize_to,
        } => format!(
            "{}; SM-active work at p95 equals {} GPUs, on cards {} SM-active {} GPUs ≤ {} of the {} held at p95",
            spare_words(spare),
            gpus(Some(*sm_p95)),
            pct(Some(OPTIMIZE_SM_TARGET)),
            gpus(Some(*optimize_to)),
            pct(Some(OPTIMIZE_MAX_SHARE)),
            gpus(Some(*held_p95))
        ),
        PurchaseRule::Buy {
            spare,
            need,
            sm_p95,
        } => format!(
            "{}, {}, and {} are not covered",
            spare_words(spare),
            match sm_p95 {
                Some(_) => format!(
                    "SM activity fits no fewer than {} of the held cards",
                    pct(Some(OPTIMIZE_MAX_SHARE))
                ),
                None => "SM activity not measured".to_string(),
            },
            need_words(need)
        ),
        PurchaseRule::DemandUnknown {
            spare,
            floor,
            owned,
        } => format!(
            "{} < {}, 10% of the {} observed, and no clearly smaller fleet on SM activity; no --want and no --queue say what is needed",
            spare_words(spare),
            gpus(Some(*floor)),
            gpus(Some(*owned))
        ),
        PurchaseRule::NoDemand { spare, want } => format!(
            "{}, and nothing waited in the queue{}: no purchase is indicated",
            spare_words(spare),
            want.map(|w| format!(" for the {w} asked for"))
                .unwrap_or_default()
        ),
        _ => String::new(),
    }
}

/// `purchase.rule` in the JSON is the rule's text, as before it was typed.
/// The caveat in words (the JSON's `caveat`: "" when there is none).
impl std::fmt::Display for PurchaseCaveat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PurchaseCaveat::None => Ok(()),
            PurchaseCaveat::NoQueue => write!(
                f,
                "no scheduler queue data: demand that never got a GPU is not visible here"
            ),
            PurchaseCaveat::Text(t) => write!(f, "{t}"),
        }
    }
}

impl Serialize for PurchaseCaveat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for PurchaseRule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&rule_text(self))
    }
}

/// The need a verdict answers: `--want`, else the queue's pending p95.
fn need_of(p: &Purchase) -> String {
    match (p.want, p.pending_gpus_p95) {
        (Some(n), _) => format!("the {n} asked for"),
        (None, Some(q)) => format!(
            "the {} waiting in the queue at p95",
            gpus(Some((q - 1e-9).ceil()))
        ),
        (None, None) => "what is needed".to_string(),
    }
}

fn verdict_sentence(p: &Purchase, unit: &str) -> String {
    let reclaim = gpus(p.reclaimable_gpus);
    let need = need_of(p);
    match p.verdict {
        Verdict::InsufficientData => {
            format!("Verdict: insufficient data — {}.", rule_text(&p.rule))
        }
        Verdict::InsufficientCoverage => format!(
            "Verdict: insufficient coverage — the data saw {} of the time of the {} GPUs it names, and held was known for {} of what it saw; a verdict needs 50% of each.",
            pct(p.coverage),
            gpus(Some(p.gpus_seen as f64)),
            pct(p.held_known_share)
        ),
        Verdict::ReclaimFirst if p.covered_by_reclaim.is_some() => format!(
            "Verdict: reclaim first — {need} fit in the {reclaim} GPUs that sat unallocated or idle in 95% of {unit}."
        ),
        Verdict::ReclaimFirst => format!(
            "Verdict: reclaim first — {reclaim} GPUs, at least 10% of those observed, sat unallocated or idle in 95% of {unit}."
        ),
        Verdict::ReclaimThenBuy => format!(
            "Verdict: reclaim, then buy — reclaiming covers {} of {need}; {} remain uncovered.",
            gpus(p.covered_by_reclaim),
            gpus(p.uncovered_gpus)
        ),
        Verdict::OptimizeFirst => format!(
            "Verdict: optimize first — no GPU is spare in 95% of {unit}, but the SM-active work fits on {} of the {} cards held at p95.",
            gpus(p.optimize_to_gpus),
            gpus(p.held_p95)
        ),
        Verdict::Buy => format!(
            "Verdict: buy — no GPU is spare in 95% of {unit}, the work is efficient, and {} of {need} are not covered.",
            gpus(p.uncovered_gpus)
        ),
        Verdict::Saturated => format!(
            "Verdict: saturated — at most {} GPUs were spare in 95% of {unit}.",
            gpus(p.spare_p5)
        ),
    }
}

/// "their work equals 20 GPUs busy at p95 (23 at the peak) on device activity".
fn work_words(p: &Purchase) -> String {
    match p.busy_equivalent_gpus_p95 {
        Some(_) => format!(
            "their work equals {} GPUs busy at p95 ({} at the peak) on device activity. ",
            gpus(p.busy_equivalent_gpus_p95),
            gpus(p.busy_equivalent_gpus_peak)
        ),
        None => "their work is not measured (no device activity). ".to_string(),
    }
}

/// "You observed 40 GPUs (40 per hour at p95). ..." with `bucket_seconds`
/// naming the unit ("hours" for 1 h buckets).
pub fn paragraph(p: &Purchase, bucket_seconds: f64) -> String {
    let unit = bucket_noun(bucket_seconds);
    let mut s = format!("You observed {} GPUs", gpus(Some(p.gpus_seen as f64)));
    match p.owned {
        Some(o) if (o - p.gpus_seen as f64).abs() >= 0.5 => s.push_str(&format!(
            ", at most {} at once in 95% of {unit}. ",
            gpus(Some(o))
        )),
        _ => s.push_str(". "),
    }
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
        s.push_str(&work_words(p));
    }
    s.push_str(&verdict_sentence(p, &unit));
    s
}

/// Owner names in the plan's sentence are cut to this many characters (head…tail).
const OWNER_CHARS: usize = 40;

/// "8 from jupyter-bob-0 (parked, $17,532/month)".
fn reclaim_words(r: &Reclaim) -> String {
    let g = gpus(Some(r.gpus));
    let owner = crate::text::shorten(&r.owner, OWNER_CHARS);
    let what = match r.source {
        ReclaimSource::Parked => format!("{g} from {owner} (parked"),
        ReclaimSource::GangMemberIdle => format!("{g} from {owner} (idle gang members"),
        ReclaimSource::IdleHeld => format!("{g} from {owner} (idle held"),
        ReclaimSource::Stranded => format!("{g} stranded on {owner} (node held"),
        ReclaimSource::Unallocated => format!("{g} unallocated on {owner} (node free"),
        ReclaimSource::Scattered => format!("{g} scattered (no single owner"),
    };
    match r.usd {
        Some(u) => format!("{what}, {}/month)", usd(Some(u))),
        None => format!("{what})"),
    }
}

/// The plan's lines: what reclaiming covers by owner, the uncovered rest and
/// its price both ways, the own cost, the efficiency and demand figures, the
/// provisional window and the coverage warning.
pub fn plan_lines(p: &Purchase) -> Vec<String> {
    let mut out = Vec::new();
    // a plan only where the data decided
    let decided = !matches!(
        p.verdict,
        Verdict::InsufficientData | Verdict::InsufficientCoverage
    );
    if decided && !p.reclaim.is_empty() {
        let parts: Vec<String> = p.reclaim.iter().map(reclaim_words).collect();
        out.push(format!(
            "reclaim {}: {}",
            gpus(p.reclaimable_gpus),
            parts.join(", ")
        ));
    }
    if let Some(b) = &p.buy {
        let mut line = format!(
            "buy {}: {}/month at cloud prices",
            gpus(Some(b.gpus)),
            usd(b.cloud_usd_per_month)
        );
        if let (Some(own), Some(capex)) = (b.own_usd_per_month, b.own_capex_usd) {
            line.push_str(&format!(
                "; owned {}/month amortized ({} up front)",
                usd(Some(own)),
                usd(Some(capex))
            ));
        }
        out.push(line);
    }
    if let Some(o) = &p.own_cost {
        out.push(own_cost_line(o));
    }
    // efficiency lines need SM or tensor activity beside the device's
    let efficiency = p.sm_equivalent_gpus_p95.is_some() || p.tensor_equivalent_gpus_p95.is_some();
    if p.busy_equivalent_gpus_p95.is_some() && efficiency {
        out.push(format!(
            "efficiency at p95: of {} busy GPUs, the SM-active work equals {}, the tensor-active {} (not the need)",
            gpus(p.busy_equivalent_gpus_p95),
            gpus(p.sm_equivalent_gpus_p95),
            gpus(p.tensor_equivalent_gpus_p95)
        ));
    }
    out.extend(demand_line(p));
    if let Some(v) = &p.provisional {
        out.push(format!(
            "provisional: a {} h window, shorter than the 24 h a verdict needs; accepted by --min-window {} h",
            hours_words(v.window_hours),
            hours_words(v.min_window_hours)
        ));
    }
    if p.unobserved_gpu_hours > p.observed_gpu_hours {
        out.push(format!(
            "warning: unobserved time is {:.0}x the observed: the data saw {} of the window of the {} GPUs it names",
            p.unobserved_gpu_hours / p.observed_gpu_hours.max(f64::MIN_POSITIVE),
            pct(p.coverage),
            gpus(Some(p.gpus_seen as f64))
        ));
    }
    out
}

fn own_cost_line(o: &crate::audit::diagnosis::purchase::OwnCostFigures) -> String {
    let power = match (o.power_w, o.power_usd_per_kwh) {
        (Some(w), Some(kwh)) => format!(" + power {:.0} W at ${kwh}/kWh", w),
        (None, Some(_)) => " (power not measured)".to_string(),
        _ => String::new(),
    };
    format!(
        "own cost: {}/GPU-h amortized (capex {} over {} years{power}, +{:.0}% overhead)",
        usd(Some(o.usd_per_gpu_hour)),
        usd(Some(o.capex_usd)),
        hours_words(o.years),
        o.overhead * 100.0
    )
}

/// The queue's figures and, when GPUs sat spare while requests waited, why that is no shortage.
fn demand_line(p: &Purchase) -> Vec<String> {
    let Some(h) = p.pending_gpu_hours else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "demand: {} GPU-h pending; {} GPUs pending at p95, waits p50 {} h, p95 {} h; held + pending at p95: {}",
        gpus(Some(h)),
        gpus(p.pending_gpus_p95),
        p.wait_hours_p50.map_or("n/a".to_string(), hours_words),
        p.wait_hours_p95.map_or("n/a".to_string(), hours_words),
        gpus(p.demand_p95)
    )];
    if p.spare_with_queue {
        out.push(
            "spare GPUs sat beside a queue: a scheduling or fragmentation problem, not a shortage"
                .to_string(),
        );
    }
    out
}

/// The paragraph, the plan, then the rule and the caveat, one line each.
pub fn table(p: &Purchase, bucket_seconds: f64) -> String {
    let mut s = format!("{}\n", paragraph(p, bucket_seconds));
    for line in plan_lines(p) {
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(&format!("rule: {}\n", rule_text(&p.rule)));
    if !p.caveat.is_empty() {
        s.push_str(&format!("note: {}\n", p.caveat));
    }
    s
}

pub fn markdown(p: &Purchase, bucket_seconds: f64) -> String {
    let mut s = format!(
        "\n### Do we need more GPUs?\n\n{}\n\n",
        paragraph(p, bucket_seconds)
    );
    for line in plan_lines(p) {
        s.push_str(&format!("- {line}\n"));
    }
    s.push_str(&format!("\n*Rule:* {}", rule_text(&p.rule)));
    if !p.caveat.is_empty() {
        s.push_str(&format!("  \n*Note:* {}", p.caveat));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::diagnosis::purchase::BuyPrice;

    fn spare(gpus: f64) -> Spare {
        Spare {
            gpus,
            bucket_seconds: 3600.0,
        }
    }

    /// The demo fleet's answer with --want 16 (figures as the binary gives them).
    fn meeting() -> Purchase {
        Purchase {
            owned: Some(40.0),
            gpus_seen: 40,
            held_max: Some(38.0),
            held_p95: Some(38.0),
            spare_p5: Some(11.0),
            busy_equivalent_gpus_p95: Some(21.97),
            busy_equivalent_gpus_peak: Some(22.85),
            sm_equivalent_gpus_p95: Some(10.48),
            tensor_equivalent_gpus_p95: Some(4.06),
            want: Some(16),
            verdict: Verdict::ReclaimThenBuy,
            rule: PurchaseRule::ReclaimPart {
                spare: spare(11.0),
                need: Need::Want(16),
                uncovered: 5.0,
            },
            reclaimable_gpus: Some(11.0),
            reclaim: vec![
                Reclaim {
                    source: ReclaimSource::Parked,
                    owner: "jupyter-bob-0".to_string(),
                    gpus: 8.0,
                    usd: Some(14_603.6),
                },
                Reclaim {
                    source: ReclaimSource::Stranded,
                    owner: "node-003".to_string(),
                    gpus: 2.0,
                    usd: None,
                },
                Reclaim {
                    source: ReclaimSource::Scattered,
                    owner: String::new(),
                    gpus: 1.0,
                    usd: None,
                },
            ],
            covered_by_reclaim: Some(11.0),
            uncovered_gpus: Some(5.0),
            buy: Some(BuyPrice {
                gpus: 5.0,
                cloud_usd_per_month: Some(9127.3),
                own_usd_per_month: Some(4000.0),
                own_capex_usd: Some(150_000.0),
            }),
            observed_gpu_hours: 6705.0,
            unobserved_gpu_hours: 15.0,
            observed_buckets: 168,
            caveat: PurchaseCaveat::NoQueue,
            ..Purchase::default()
        }
    }

    #[test]
    fn the_paragraph_and_plan_read_as_the_issue_says() {
        assert_eq!(
            paragraph(&meeting(), 3600.0),
            "You observed 40 GPUs. At the busiest hours 38 were held; in 95% of hours at least 11 did nothing; their work equals 22 GPUs busy at p95 (23 at the peak) on device activity. Verdict: reclaim, then buy — reclaiming covers 11 of the 16 asked for; 5 remain uncovered."
        );
        assert_eq!(
            plan_lines(&meeting()),
            vec![
                "reclaim 11: 8 from jupyter-bob-0 (parked, $14,604/month), 2 stranded on node-003 (node held), 1 scattered (no single owner)",
                "buy 5: $9,127/month at cloud prices; owned $4,000/month amortized ($150,000 up front)",
                "efficiency at p95: of 22 busy GPUs, the SM-active work equals 10, the tensor-active 4.1 (not the need)",
            ]
        );
        let text = table(&meeting(), 3600.0);
        assert!(
            text.contains(
                "\nrule: 11 GPUs spare in 95% of hours < the 16 asked for: 5 not covered\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "note: no scheduler queue data: demand that never got a GPU is not visible here\n"
            ),
            "{text}"
        );
        let md = markdown(&meeting(), 3600.0);
        assert!(md.contains("\n- buy 5: $9,127/month"), "{md}");
        assert!(md.contains("*Note:* no scheduler queue data"), "{md}");
    }

    #[test]
    fn every_verdict_has_its_sentence() {
        let with = |verdict, f: &dyn Fn(&mut Purchase)| {
            let mut p = Purchase {
                verdict,
                ..meeting()
            };
            f(&mut p);
            verdict_sentence(&p, "hours")
        };
        assert_eq!(
            with(Verdict::ReclaimFirst, &|p| p.want = Some(8)),
            "Verdict: reclaim first — the 8 asked for fit in the 11 GPUs that sat unallocated or idle in 95% of hours."
        );
        assert_eq!(
            with(Verdict::ReclaimFirst, &|p| {
                p.want = None;
                p.covered_by_reclaim = None;
            }),
            "Verdict: reclaim first — 11 GPUs, at least 10% of those observed, sat unallocated or idle in 95% of hours."
        );
        assert_eq!(
            with(Verdict::OptimizeFirst, &|p| p.optimize_to_gpus = Some(21.0)),
            "Verdict: optimize first — no GPU is spare in 95% of hours, but the SM-active work fits on 21 of the 38 cards held at p95."
        );
        assert_eq!(
            with(Verdict::Buy, &|p| {
                p.want = None;
                p.pending_gpus_p95 = Some(2.5);
            }),
            "Verdict: buy — no GPU is spare in 95% of hours, the work is efficient, and 5 of the 3 waiting in the queue at p95 are not covered."
        );
        assert_eq!(
            with(Verdict::InsufficientCoverage, &|p| {
                p.gpus_seen = 2299;
                p.coverage = Some(0.0027);
                p.held_known_share = Some(0.36);
            }),
            "Verdict: insufficient coverage — the data saw 0.3% of the time of the 2,299 GPUs it names, and held was known for 36.0% of what it saw; a verdict needs 50% of each."
        );
        assert_eq!(
            with(Verdict::Saturated, &|_| {}),
            "Verdict: saturated — at most 11 GPUs were spare in 95% of hours."
        );
    }

    #[test]
    fn the_rule_reads_in_words_and_back_as_text() -> anyhow::Result<()> {
        let rule = PurchaseRule::ShareSpare {
            spare: spare(11.0),
            floor: 4.0,
            owned: 40.0,
        };
        let text = "11 GPUs spare in 95% of hours ≥ 4, 10% of the 40 observed";
        assert_eq!(rule_text(&rule), text);
        assert_eq!(serde_json::to_string(&rule)?, format!("\"{text}\""));
        let back: PurchaseRule = serde_json::from_str(&format!("\"{text}\""))?;
        assert_eq!(back, PurchaseRule::Text(text.to_string()));
        assert_eq!(
            rule_text(&PurchaseRule::TooShort {
                observed_buckets: 23,
                window_hours: 22.84,
                min_window_hours: 24.0,
            }),
            "too short to decide: 23 observed buckets and a 22.8 h window; 24 buckets and 24 h needed"
        );
        assert_eq!(
            rule_text(&PurchaseRule::TooShort {
                observed_buckets: 275,
                window_hours: 22.84,
                min_window_hours: 24.0,
            }),
            "too short to decide: 275 observed buckets and a 22.8 h window; 24 buckets and 24 h needed (--min-window accepts a shorter window, provisionally)"
        );
        assert_eq!(
            rule_text(&PurchaseRule::Optimize {
                spare: spare(0.0),
                sm_p95: 10.0,
                held_p95: 38.0,
                optimize_to: 20.0,
            }),
            "0 GPUs spare in 95% of hours; SM-active work at p95 equals 10 GPUs, on cards 50.0% SM-active 20 GPUs ≤ 75.0% of the 38 held at p95"
        );
        assert_eq!(
            rule_text(&PurchaseRule::NoDemand {
                spare: spare(0.0),
                want: Some(4),
            }),
            "0 GPUs spare in 95% of hours, and nothing waited in the queue for the 4 asked for: no purchase is indicated"
        );
        Ok(())
    }

    #[test]
    fn sparse_data_warns_and_a_short_window_says_provisional() {
        let p = Purchase {
            reclaim: Vec::new(),
            buy: None,
            busy_equivalent_gpus_p95: None,
            gpus_seen: 2299,
            coverage: Some(0.0027),
            observed_gpu_hours: 100.0,
            unobserved_gpu_hours: 27_300.0,
            provisional: Some(crate::audit::diagnosis::purchase::Provisional {
                window_hours: 22.8,
                observed_buckets: 275,
                min_window_hours: 12.0,
            }),
            ..meeting()
        };
        assert_eq!(
            plan_lines(&p),
            vec![
                "provisional: a 22.8 h window, shorter than the 24 h a verdict needs; accepted by --min-window 12 h",
                "warning: unobserved time is 273x the observed: the data saw 0.3% of the window of the 2,299 GPUs it names",
            ]
        );
    }
}
