//! `--by` groups: one tally per owner label; samples without the label split
//! into "(unlabelled)" (held) and "(unallocated)" (not held).
use super::row_of;
use crate::audit::GroupBy;
use crate::audit::interval::{Fold, Interval, Names};
use crate::audit::tally::{Basis, Row, Tally};
use foldhash::HashMap;

/// Group key for showback: a label id, or none (split held / not held).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum GroupKey {
    Label(u32),
    Unlabelled,
    Unallocated,
}

pub struct GroupsFold {
    basis: Basis,
    by: Option<GroupBy>,
    groups: HashMap<GroupKey, Tally>,
}

impl GroupsFold {
    pub fn new(basis: Basis, by: Option<GroupBy>) -> Self {
        GroupsFold {
            basis,
            by,
            groups: HashMap::default(),
        }
    }

    pub fn add_row(&mut self, iv: &Interval, row: &Row) {
        let Some(by) = self.by else { return };
        let label = match by {
            GroupBy::Host => Some(iv.host),
            GroupBy::Model => iv.model,
            GroupBy::Job => iv.job,
            GroupBy::User => iv.user,
            GroupBy::Team => iv.team,
        };
        let key = match label {
            Some(id) => GroupKey::Label(id),
            None if iv.held => GroupKey::Unlabelled,
            None => GroupKey::Unallocated,
        };
        self.groups.entry(key).or_default().add(row, self.basis);
    }

    /// The groups by name (None without --by), in no particular order.
    pub fn named(&self, names: &dyn Names) -> Option<(GroupBy, Vec<(String, Tally)>)> {
        let by = self.by?;
        let rows = self
            .groups
            .iter()
            .map(|(key, t)| {
                let name = match key {
                    GroupKey::Label(id) => names.label(*id).to_string(),
                    GroupKey::Unlabelled => "(unlabelled)".to_string(),
                    GroupKey::Unallocated => "(unallocated)".to_string(),
                };
                (name, t.clone())
            })
            .collect();
        Some((by, rows))
    }
}

impl Fold for GroupsFold {
    fn add(&mut self, iv: &Interval) {
        self.add_row(iv, &row_of(iv));
    }
    fn merge(&mut self, other: Self) {
        for (k, t) in other.groups {
            self.groups.entry(k).or_default().merge(&t);
        }
    }
}
