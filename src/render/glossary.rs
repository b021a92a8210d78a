//! "How to read this": every term the report uses, in one place. The HTML
//! page's glossary and `gpuaudit explain` print this same text, so the two
//! can never disagree.
use super::wrap::fill;

/// A term and what it means, in the report's own words (docs/semantics.md).
pub struct Term {
    pub name: &'static str,
    /// other spellings `explain` accepts (JSON names, plurals)
    pub aliases: &'static [&'static str],
    pub text: &'static str,
}

/// Every term, in the order a reader meets them on the page.
pub const TERMS: &[Term] = &[
    Term {
        name: "observed",
        aliases: &["observed GPU-hours"],
        text: "GPU-hours for which a sample says the card existed. Gaps longer than the max gap are unobserved and counted apart.",
    },
    Term {
        name: "held",
        aliases: &["allocated"],
        text: "Observed time in which someone had the card: a job, a pod or a process (the held rule in the data-quality section says which signal). Held cards are paid for whether or not they work.",
    },
    Term {
        name: "unallocated",
        aliases: &[],
        text: "Observed time nobody held the card. Spare capacity you already own or rent.",
    },
    Term {
        name: "device activity",
        aliases: &["active", "device active", "busy", "device_util"],
        text: "The share of time a kernel ran on the card (DCGM GPU_UTIL / nvidia-smi utilization). The measure of work this report uses: a card that ran kernels was busy, whatever the kernels did.",
    },
    Term {
        name: "SM active",
        aliases: &["sm_active", "SM idle"],
        text: "The share of the streaming multiprocessors' cycles with work resident (DCGM PROF_SM_ACTIVE). How full the chip was while it was busy: an efficiency line, never the measure of need. SM idle dollars are held dollars while the SMs sat idle.",
    },
    Term {
        name: "tensor active",
        aliases: &["tensor_active", "tensor idle"],
        text: "The share of cycles the tensor cores were busy (DCGM PROF_PIPE_TENSOR_ACTIVE). Work that is not tensor math (decoding, preprocessing, fp32 kernels) is still work, so tensor idle is an efficiency line, never \"not useful\".",
    },
    Term {
        name: "MFU",
        aliases: &["useful", "not useful"],
        text: "Model FLOP utilization: the model FLOP/s a job declared (--jobs) over the card's dense peak. Only against MFU does the report call dollars \"not useful\": the job declared its own work.",
    },
    Term {
        name: "idle held",
        aliases: &["idle", "idle_held"],
        text: "Held time in which device activity was below the idle threshold (--idle-below, default 1%): someone held the card and no kernel ran. The headline's dollar figure.",
    },
    Term {
        name: "not busy",
        aliases: &["not busy (device)", "not_busy"],
        text: "Held time weighed by how much of it ran no kernel: held × (1 − device activity). Larger than idle held, because a card busy half the time is half not busy.",
    },
    Term {
        name: "idle episode",
        aliases: &["episodes", "idle episodes"],
        text: "A run of idle held time on one GPU at least --min-idle long. The report groups them by job and span (one row for the 8 cards a notebook parked together); --per-gpu lists them one per card.",
    },
    Term {
        name: "monthly run-rate",
        aliases: &["run-rate"],
        text: "A window's dollars scaled to 730 hours: what the month costs if the window repeats.",
    },
    Term {
        name: "showback",
        aliases: &[],
        text: "Held, idle and unallocated dollars per --by group (team, user, job...), so each owner sees what they hold and leave idle.",
    },
    Term {
        name: "timeline",
        aliases: &["bucket", "buckets"],
        text: "The window cut into equal buckets (1 h for a week); per bucket the GPUs observed, held, busy and spare. Percentiles (p5, p95) are over the buckets with data.",
    },
    Term {
        name: "spare",
        aliases: &["spare_p5"],
        text: "GPUs in a bucket that were unallocated or held and idle. \"Spare in 95% of hours\" is the 5th percentile over the buckets: at least that many were spare nearly all the time, so they can be reclaimed without hurting anyone.",
    },
    Term {
        name: "reclaim",
        aliases: &["reclaimable", "reclaimable_gpus", "covered_by_reclaim"],
        text: "Cards the plan takes back before buying: those spare in 95% of buckets, named by owner where a finding names one (a parked notebook, a spare replica, stranded cards on a node).",
    },
    Term {
        name: "busy-equivalent",
        aliases: &[
            "busy equivalent",
            "busy_equivalent_gpus",
            "busy-equivalent GPUs",
        ],
        text: "Device-active GPU-hours ÷ hours in a bucket: how many cards fully busy the work equals, at p95 and at the peak over buckets. SM and tensor equivalents are efficiency lines beside it.",
    },
    Term {
        name: "coverage",
        aliases: &["insufficient coverage"],
        text: "Observed GPU-hours ÷ (GPUs ever seen × window hours), and the share of that time whose held state is known. Below 50% of either, the data saw too little of the fleet for a purchase verdict.",
    },
    Term {
        name: "demand",
        aliases: &["queue", "pending"],
        text: "GPUs held plus GPUs requested by jobs still waiting in a queue (--queue: Slurm sacct or kube-state-metrics). Without queue data, demand that never got a card is invisible.",
    },
    Term {
        name: "verdict",
        aliases: &[
            "reclaim first",
            "reclaim then buy",
            "optimize first",
            "buy",
            "insufficient data",
        ],
        text: "The purchase answer: reclaim first (spare cards cover the request), reclaim then buy (they cover part), optimize first (cards are held and busy but the same work fits on clearly fewer), buy (no spare, efficient, demand waiting), insufficient data or insufficient coverage (the data cannot say). The rule line gives the numbers.",
    },
    Term {
        name: "leak map",
        aliases: &["leaks", "leak class", "leak classes"],
        text: "Every observed GPU-hour in one class, by the first test that holds: held unknown, unallocated, unmeasured, idle, starved, underfilled, memory bound, no tensor, busy unprofiled, effective. The classes add up to observed.",
    },
    Term {
        name: "held unknown",
        aliases: &["held_unknown"],
        text: "Observed time whose held state could not be read: neither held nor unallocated nor spare.",
    },
    Term {
        name: "unmeasured",
        aliases: &[],
        text: "Held time whose device activity was not reported: the report cannot say whether it worked.",
    },
    Term {
        name: "starved",
        aliases: &[],
        text: "Held and busy less than half the time (device activity below 50%): the card waits on input, the CPU or the network between kernels.",
    },
    Term {
        name: "underfilled",
        aliases: &[],
        text: "Busy, but SM active below 50%: kernels too small for the chip (small batches, a model that fits a smaller card or a MIG slice).",
    },
    Term {
        name: "memory bound",
        aliases: &["memory_bound"],
        text: "Busy with DRAM activity at least 60% and tensor active below 30%: the chip waits on memory bandwidth.",
    },
    Term {
        name: "no tensor",
        aliases: &["no_tensor"],
        text: "Busy and full, but tensor active below 15%: the work does not use the tensor cores (fp32 math, non-matrix kernels).",
    },
    Term {
        name: "busy unprofiled",
        aliases: &["busy_unprofiled"],
        text: "Busy time with no SM or tensor profile to say more (the exporter does not report DCGM profiling metrics).",
    },
    Term {
        name: "effective",
        aliases: &[],
        text: "Busy time that passed every test: the chip was full and used its tensor cores.",
    },
    Term {
        name: "stranded",
        aliases: &["node-held", "node held"],
        text: "Unallocated cards on a host where someone held another card: paid for if nodes are rented whole (rent 8, use 2).",
    },
    Term {
        name: "free-node",
        aliases: &["free node"],
        text: "Unallocated cards on hosts nobody held at all: whole nodes that could be released.",
    },
    Term {
        name: "shape",
        aliases: &["shapes", "training", "inference", "interactive", "batch"],
        text: "What a job's telemetry looks like, by the first rule that holds: idle (idle 80% of held), training (a gang of 2+ moving in step, busy half the time), inference (present 80% of the window with varying load), interactive (idle 30%, 8 cards or fewer), batch (shorter than 80% of the window), else unknown. A kind declared in --jobs wins and a disagreement is listed.",
    },
    Term {
        name: "gang",
        aliases: &[],
        text: "The most GPUs a job held at once in one bucket: the cards that must be scheduled together.",
    },
    Term {
        name: "ETT",
        aliases: &["effective training time"],
        text: "A training job's share of its span in which its GPUs were as busy as usual (at least 95% of its p90): a telemetry proxy for Meta's effective training time, not a count of training steps.",
    },
    Term {
        name: "MTBI",
        aliases: &["interruptions", "recovery"],
        text: "Mean time between interruptions: a training job's progressing hours ÷ its interruptions (runs of buckets that stopped progressing after progress). Recovery is the mean length of those runs.",
    },
    Term {
        name: "parked",
        aliases: &[],
        text: "A finding: a job whose telemetry is idle (idle 80% of held) that held at least 24 GPU-hours. A notebook left open, a replica nobody routes to.",
    },
    Term {
        name: "gang member idle",
        aliases: &["gang_member_idle"],
        text: "A finding: a training job with a GPU idle in at least 20% of the job's progressing buckets: a card the gang holds but does not use.",
    },
    Term {
        name: "oversized",
        aliases: &[],
        text: "A finding: a job on one whole card whose p95 device activity is below 50% and whose memory and SM use fit a MIG slice of the card (named in the detail); the GPU-hours are the part of the card it did not need.",
    },
];

fn norm(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '_' | '-' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The term a name means (its name or an alias, any case, `_`, `-` or space).
pub fn lookup(name: &str) -> Option<&'static Term> {
    let want = norm(name.trim());
    TERMS
        .iter()
        .find(|t| norm(t.name) == want || t.aliases.iter().any(|a| norm(a) == want))
}

/// One term as terminal text: the name, then its text filled to `width`.
pub fn entry_text(t: &Term, width: Option<u16>) -> String {
    format!(
        "{}\n{}\n",
        t.name,
        fill(&format!("  {}", t.text), width, "  ")
    )
}

/// Every term, a blank line between them.
pub fn all_text(width: Option<u16>) -> String {
    TERMS
        .iter()
        .map(|t| entry_text(t, width))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names `explain` knows, for an error that lists them.
pub fn names() -> Vec<&'static str> {
    TERMS.iter().map(|t| t.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_finds_its_term_and_names_are_unique() {
        assert_eq!(lookup("MTBI").map(|t| t.name), Some("MTBI"));
        assert_eq!(lookup("memory_bound").map(|t| t.name), Some("memory bound"));
        assert_eq!(
            lookup("Busy-Equivalent").map(|t| t.name),
            Some("busy-equivalent")
        );
        assert_eq!(lookup("spare_p5").map(|t| t.name), Some("spare"));
        assert!(lookup("nonsense").is_none());
        let mut seen = std::collections::BTreeMap::new();
        for t in TERMS {
            for n in std::iter::once(t.name).chain(t.aliases.iter().copied()) {
                let owner = seen.entry(norm(n)).or_insert(t.name);
                assert_eq!(*owner, t.name, "{n} names two terms");
            }
        }
    }

    #[test]
    fn entries_fill_to_the_width() {
        let text = entry_text(lookup("gang").expect("gang"), Some(40));
        assert_eq!(
            text,
            "gang\n  The most GPUs a job held at once in\n  one bucket: the cards that must be\n  scheduled together.\n"
        );
    }
}
