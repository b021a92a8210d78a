//! How the report's lists are grouped and ordered for a reader: idle episodes
//! of one job over one span become one row with a GPU count, and showback rows
//! go by the money they hold.
use super::model::{Group, IdleEpisode, IdleEpisodeGroup};
use std::collections::{BTreeSet, HashMap};

/// Episodes with the same owner (job, user, team) and the same span (start,
/// end) as one group; sorted by GPU-hours, longest first, then by start.
pub fn group_episodes(episodes: &[IdleEpisode]) -> Vec<IdleEpisodeGroup> {
    type Key<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        chrono::DateTime<chrono::Utc>,
        chrono::DateTime<chrono::Utc>,
    );
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut hosts: Vec<BTreeSet<&str>> = Vec::new();
    let mut groups: Vec<IdleEpisodeGroup> = Vec::new();
    for e in episodes {
        let key = (
            e.job.as_deref(),
            e.user.as_deref(),
            e.team.as_deref(),
            e.start,
            e.end,
        );
        let i = *index.entry(key).or_insert_with(|| {
            groups.push(IdleEpisodeGroup {
                job: e.job.clone(),
                user: e.user.clone(),
                team: e.team.clone(),
                hosts: Vec::new(),
                gpus: 0,
                start: e.start,
                end: e.end,
                gpu_hours: 0.0,
                usd: None,
            });
            hosts.push(BTreeSet::new());
            groups.len() - 1
        });
        let g = &mut groups[i];
        g.gpus += 1;
        g.gpu_hours += e.hours;
        // an unpriced GPU adds no dollars; the group is null only when none had a price
        if let Some(u) = e.usd {
            g.usd = Some(g.usd.unwrap_or(0.0) + u);
        }
        hosts[i].insert(e.host.as_str());
    }
    for (g, h) in groups.iter_mut().zip(hosts) {
        g.hosts = h.into_iter().map(str::to_string).collect();
    }
    groups.sort_by(|a, b| {
        b.gpu_hours
            .total_cmp(&a.gpu_hours)
            .then_with(|| a.start.cmp(&b.start))
            .then_with(|| a.job.cmp(&b.job))
    });
    groups
}

/// Showback rows by held dollars (the bill), then held GPU-hours (unpriced
/// fleets), then key.
pub fn sort_groups(rows: &mut [Group]) {
    rows.sort_by(|a, b| {
        let usd = |g: &Group| g.cost.held_usd.unwrap_or(0.0);
        usd(b)
            .total_cmp(&usd(a))
            .then_with(|| b.layers.held_gpu_hours.total_cmp(&a.layers.held_gpu_hours))
            .then_with(|| a.key.cmp(&b.key))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(
        host: &str,
        gpu: &str,
        job: &str,
        start: &str,
        hours: f64,
        usd: Option<f64>,
    ) -> IdleEpisode {
        IdleEpisode {
            host: host.into(),
            gpu: gpu.into(),
            job: Some(job.into()),
            user: None,
            team: None,
            start: crate::timeparse::utc(start),
            end: crate::timeparse::utc("2026-07-13T00:00:00Z"),
            hours,
            usd,
        }
    }

    #[test]
    fn episodes_of_one_job_and_span_are_one_group() {
        let eps = [
            ep("n1", "0", "nb", "2026-07-06T00:00:00Z", 168.0, Some(504.0)),
            ep("n1", "1", "nb", "2026-07-06T00:00:00Z", 168.0, Some(504.0)),
            ep("n2", "0", "nb", "2026-07-06T00:00:00Z", 168.0, None),
            ep("n1", "2", "nb", "2026-07-06T06:00:00Z", 162.0, Some(486.0)),
            ep("n1", "3", "train", "2026-07-06T06:00:00Z", 3.0, None),
        ];
        let g = group_episodes(&eps);
        assert_eq!(g.len(), 3);
        assert_eq!(g[0].gpus, 3);
        assert_eq!(g[0].hosts, ["n1", "n2"]);
        assert_eq!(g[0].gpu_hours, 504.0);
        assert_eq!(g[0].usd, Some(1008.0));
        assert_eq!((g[1].gpus, g[1].gpu_hours), (1, 162.0));
        assert_eq!((g[2].job.as_deref(), g[2].usd), (Some("train"), None));
    }

    /// Equal GPU-hours go by start as a time: `…00Z` before `…00.500Z`
    /// (as text, `.` sorts before `Z`, so the half second came first).
    #[test]
    fn equal_groups_sort_by_start_as_times() {
        let eps = [
            ep("n1", "0", "b", "2026-07-06T00:00:00.500Z", 2.0, None),
            ep("n1", "1", "a", "2026-07-06T00:00:00Z", 2.0, None),
        ];
        let g = group_episodes(&eps);
        let jobs: Vec<Option<&str>> = g.iter().map(|g| g.job.as_deref()).collect();
        assert_eq!(jobs, [Some("a"), Some("b")]);
    }
}
