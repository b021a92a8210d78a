//! The diagnosis figures `check` rules can name: `leaks.<class>` (GPU-hours;
//! `.share_of_held`, `.usd`), `nodes.<field>`, `purchase.<field>`,
//! `timeline.unobserved_buckets`.
use super::{LeakClass, Purchase, Sections};

/// Every figure name [`Sections::figure`] answers, for help and errors.
#[cfg(test)]
pub fn figure_names() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for class in LeakClass::ALL {
        names.push(format!("leaks.{}", class.name()));
        names.push(format!("leaks.{}.share_of_held", class.name()));
        names.push(format!("leaks.{}.usd", class.name()));
    }
    names.extend(NODES.iter().map(|f| format!("nodes.{f}")));
    names.extend(PURCHASE.iter().map(|f| format!("purchase.{f}")));
    names.push("timeline.unobserved_buckets".to_string());
    names
}

#[cfg(test)]
const NODES: [&str; 5] = [
    "node_held_gpu_hours",
    "stranded_gpu_hours",
    "free_node_gpu_hours",
    "stranded_usd",
    "free_node_usd",
];

#[cfg(test)]
const PURCHASE: [&str; 25] = [
    "owned",
    "gpus_seen",
    "held_p50",
    "held_p95",
    "held_max",
    "spare_p5",
    "output_equivalent_gpus",
    "reclaimable_gpus",
    "covered_by_reclaim",
    "uncovered_gpus",
    "optimize_to_gpus",
    "busy_equivalent_gpus_p95",
    "busy_equivalent_gpus_peak",
    "sm_equivalent_gpus_p95",
    "sm_equivalent_gpus_peak",
    "tensor_equivalent_gpus_p95",
    "tensor_equivalent_gpus_peak",
    "coverage",
    "held_known_share",
    "unobserved_gpu_hours",
    "pending_gpu_hours",
    "pending_gpus_p95",
    "wait_hours_p50",
    "wait_hours_p95",
    "demand_p95",
];

impl Sections {
    /// The value of a named figure: None for a name that is not a figure,
    /// Some(None) for a figure that is null in this report (its section could
    /// not be computed, or the value was not measured).
    pub fn figure(&self, name: &str) -> Option<Option<f64>> {
        let (section, field) = name.split_once('.')?;
        match section {
            "leaks" => self.leak_figure(field),
            "nodes" => {
                let n = self.nodes.as_ref();
                let v = match field {
                    "node_held_gpu_hours" => n.map(|n| n.node_held_gpu_hours),
                    "stranded_gpu_hours" => n.map(|n| n.stranded_gpu_hours),
                    "free_node_gpu_hours" => n.map(|n| n.free_node_gpu_hours),
                    "stranded_usd" => n.and_then(|n| n.stranded_usd),
                    "free_node_usd" => n.and_then(|n| n.free_node_usd),
                    _ => return None,
                };
                Some(v)
            }
            "purchase" => self.purchase_figure(field),
            "timeline" if field == "unobserved_buckets" => {
                Some(self.timeline.as_ref().map(|t| t.unobserved_buckets as f64))
            }
            _ => None,
        }
    }

    fn purchase_figure(&self, field: &str) -> Option<Option<f64>> {
        let Some(p) = self.purchase.as_ref() else {
            // the name must still be one: check it against a default section
            return Purchase::default().figure(field).map(|_| None);
        };
        p.figure(field)
    }

    fn leak_figure(&self, field: &str) -> Option<Option<f64>> {
        let (class_name, part) = match field.split_once('.') {
            Some((c, p)) => (c, Some(p)),
            None => (field, None),
        };
        let class = LeakClass::ALL
            .into_iter()
            .find(|c| c.name() == class_name)?;
        let row = self
            .leaks
            .as_ref()
            .and_then(|l| l.classes.iter().find(|r| r.class == class));
        match part {
            None => Some(row.map(|r| r.gpu_hours)),
            Some("share_of_held") => Some(row.and_then(|r| r.share_of_held)),
            Some("usd") => Some(row.and_then(|r| r.usd)),
            Some(_) => None,
        }
    }
}

impl Purchase {
    /// `purchase.<field>`: None for a name that is not a figure.
    fn figure(&self, field: &str) -> Option<Option<f64>> {
        let count = |n: usize| Some(n as f64);
        let v = match field {
            "owned" => self.owned,
            "gpus_seen" => count(self.gpus_seen),
            "held_p50" => self.held_p50,
            "held_p95" => self.held_p95,
            "held_max" => self.held_max,
            "spare_p5" => self.spare_p5,
            "output_equivalent_gpus" => self.output_equivalent_gpus,
            "reclaimable_gpus" => self.reclaimable_gpus,
            "covered_by_reclaim" => self.covered_by_reclaim,
            "uncovered_gpus" => self.uncovered_gpus,
            "optimize_to_gpus" => self.optimize_to_gpus,
            "busy_equivalent_gpus_p95" => self.busy_equivalent_gpus_p95,
            "busy_equivalent_gpus_peak" => self.busy_equivalent_gpus_peak,
            "sm_equivalent_gpus_p95" => self.sm_equivalent_gpus_p95,
            "sm_equivalent_gpus_peak" => self.sm_equivalent_gpus_peak,
            "tensor_equivalent_gpus_p95" => self.tensor_equivalent_gpus_p95,
            "tensor_equivalent_gpus_peak" => self.tensor_equivalent_gpus_peak,
            "coverage" => self.coverage,
            "held_known_share" => self.held_known_share,
            "unobserved_gpu_hours" => Some(self.unobserved_gpu_hours),
            "pending_gpu_hours" => self.pending_gpu_hours,
            "pending_gpus_p95" => self.pending_gpus_p95,
            "wait_hours_p50" => self.wait_hours_p50,
            "wait_hours_p95" => self.wait_hours_p95,
            "demand_p95" => self.demand_p95,
            _ => return None,
        };
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::diagnosis::leaks::LeakRow;
    use crate::audit::diagnosis::{Leaks, Nodes, Purchase};

    #[test]
    fn figures_are_read_by_name_and_null_sections_are_null() {
        let mut s = Sections::default();
        assert_eq!(s.figure("leaks.idle"), Some(None));
        assert_eq!(s.figure("purchase.spare_p5"), Some(None));
        assert_eq!(s.figure("purchase.reclaimable_gpus"), Some(None));
        assert_eq!(s.figure("purchase.nonsense"), None);
        assert_eq!(s.figure("leaks.sleepy"), None);
        assert_eq!(s.figure("nodes.stranded"), None);
        assert_eq!(s.figure("jobs"), None);
        s.leaks = Some(Leaks {
            classes: vec![LeakRow {
                class: LeakClass::Idle,
                gpu_hours: 2.0,
                share_of_held: Some(0.5),
                share_of_observed: Some(0.25),
                usd: None,
            }],
            ..Leaks::default()
        });
        s.nodes = Some(Nodes {
            stranded_gpu_hours: 3.5,
            ..Nodes::default()
        });
        s.purchase = Some(Purchase {
            owned: Some(8.0),
            spare_p5: Some(1.5),
            ..Purchase::default()
        });
        assert_eq!(s.figure("leaks.idle"), Some(Some(2.0)));
        assert_eq!(s.figure("leaks.idle.share_of_held"), Some(Some(0.5)));
        assert_eq!(s.figure("leaks.idle.usd"), Some(None));
        assert_eq!(s.figure("nodes.stranded_gpu_hours"), Some(Some(3.5)));
        assert_eq!(s.figure("purchase.spare_p5"), Some(Some(1.5)));
        assert_eq!(s.figure("purchase.owned"), Some(Some(8.0)));
        // every advertised name answers
        assert!(figure_names().iter().all(|n| s.figure(n).is_some()));
        assert_eq!(figure_names().len(), 30 + 5 + 25 + 1);
        assert_eq!(s.figure("purchase.coverage"), Some(None));
        assert_eq!(s.figure("purchase.gpus_seen"), Some(Some(0.0)));
        assert_eq!(s.figure("purchase.verdict"), None);
    }
}
