//! The one place a [`Report`] is built: from the folds' results (the engine)
//! or from sums computed elsewhere (Prometheus pushdown), the same layers,
//! ratios, dollars, sorting and cuts (docs/semantics.md §4, §6, §7).
use super::AuditConfig;
use super::GroupBy;
use super::model::*;
use super::tally::{Basis, Present, Tally};
use crate::timeparse::{US_PER_HOUR, to_datetime};

/// What a report is made of, before the rules of presentation apply.
pub struct Parts {
    /// the window in ticks: [start, end)
    pub window_start: i64,
    pub window_end: i64,
    pub snapshot: bool,
    pub sources: Sources,
    pub held_rule: HeldBasis,
    pub present: Present,
    pub total: Tally,
    pub unpriced_models: Vec<String>,
    /// with --by: the groups by name, in any order
    pub groups: Option<(GroupBy, Vec<(String, Tally)>)>,
    /// idle episodes already cut by --min-idle, in any order
    pub episodes: Vec<IdleEpisode>,
    pub gpus: Vec<GpuSummary>,
    pub gpu_count: usize,
    /// a line per vendor family, when the fleet is mixed (`audit::vendors`)
    pub vendors: Vec<VendorLine>,
    /// observed GPU-hours per reported model name, to flag ambiguous names
    pub model_hours: Vec<(Option<String>, f64)>,
    /// the caller's data quality: counts, notes and warnings; the held-unknown
    /// figures come from `total`
    pub quality: DataQuality,
    /// note held hours without the not-useful basis metric (rows were read)
    pub note_unmeasured_basis: bool,
    /// timeline, leaks, nodes, purchase (null sections carry their reason in notes)
    pub diagnosis: super::diagnosis::Sections,
}

/// The price file's rows against the models of the data: notes, warnings,
/// or the error of a family row that would price two cards (`PriceBook::review`).
pub fn review_prices(parts: &mut Parts, cfg: &AuditConfig) -> anyhow::Result<()> {
    let models = parts.model_hours.iter().filter_map(|(m, _)| m.as_deref());
    let review = cfg.prices.review(models)?;
    parts.quality.notes.extend(review.notes);
    parts.quality.warnings.extend(review.warnings);
    Ok(())
}

pub fn assemble(parts: Parts, cfg: &AuditConfig) -> Report {
    let Parts { present, total, .. } = &parts;
    let basis = present.basis();
    let window_hours = (parts.window_end - parts.window_start).max(0) as f64 / US_PER_HOUR;
    let layers = total.layers(present);
    let ratios = total.ratios(present);
    let mut cost = total.cost(
        cfg.prices.source.clone(),
        basis,
        parts.unpriced_models.clone(),
        window_hours,
    );
    total.fill_layer_idle_usd(&mut cost, present, window_hours);
    if !present.device_util {
        // idle is not measured without device activity: no "$0 spent on idle"
        cost.idle_held_usd = None;
        cost.monthly_run_rate.idle_held_usd = None;
    }
    let waterfall = super::tally::waterfall(&layers);
    let (episodes, idle_episodes_total, episode_groups, idle_episode_groups_total) =
        episode_lists(parts.episodes.clone(), cfg.top);
    let groups = parts.groups.as_ref().map(|g| group_rows(g, present));
    let ambiguous = crate::catalog::report::flag_ambiguous(
        &mut cost,
        parts.model_hours.iter().map(|(m, h)| (m.as_deref(), *h)),
    );
    let mut quality = parts.quality.clone();
    if parts.note_unmeasured_basis
        && let Some(note) = unmeasured_basis_note(total, basis, &cost)
    {
        quality.notes.push(note);
    }
    quality.held_unknown_activity_gpu_hours = total.held_unknown_activity_h();
    quality.held_unknown_gpu_hours = total.held_unknown_us as f64 / US_PER_HOUR;
    if total.held_unknown_us > 0 {
        quality.warnings.push(Warning::HeldUnreadable {
            gpu_hours: total.held_unknown_us as f64 / US_PER_HOUR,
        });
    }
    quality.warnings.extend(ambiguous);
    let mut diagnosis = parts.diagnosis;
    quality.notes.append(&mut diagnosis.notes);
    if let Some(top) = cfg.top {
        diagnosis.keep_top_jobs(top);
    }
    Report {
        schema: SCHEMA.to_string(),
        window: Window {
            start: to_datetime(parts.window_start),
            end: to_datetime(parts.window_end),
            hours: window_hours,
            snapshot: parts.snapshot,
        },
        sources: parts.sources,
        data_quality: quality,
        held_rule: parts.held_rule,
        layers,
        ratios,
        cost,
        waterfall,
        idle_episodes_total,
        idle_episodes: episodes,
        groups,
        gpu_count: parts.gpu_count,
        gpus: parts.gpus,
        vendors: parts.vendors,
        idle_episode_groups: episode_groups,
        idle_episode_groups_total,
        diagnosis,
    }
}

/// Episodes longest first, grouped by job and span; both lists cut by --top
/// after counting.
fn episode_lists(
    mut episodes: Vec<IdleEpisode>,
    top: Option<usize>,
) -> (Vec<IdleEpisode>, usize, Vec<IdleEpisodeGroup>, usize) {
    episodes.sort_by(|a, b| {
        b.hours
            .total_cmp(&a.hours)
            .then_with(|| a.start.cmp(&b.start))
            .then_with(|| (&a.host, &a.gpu).cmp(&(&b.host, &b.gpu)))
    });
    let total = episodes.len();
    let mut groups = super::listing::group_episodes(&episodes);
    let groups_total = groups.len();
    if let Some(top) = top {
        episodes.truncate(top);
        groups.truncate(top);
    }
    (episodes, total, groups, groups_total)
}

fn group_rows((by, tallies): &(GroupBy, Vec<(String, Tally)>), present: &Present) -> Vec<Group> {
    let mut rows: Vec<Group> = tallies
        .iter()
        .map(|(key, t)| Group {
            by: by.column().to_string(),
            key: key.clone(),
            layers: t.layers(present),
            ratios: t.ratios(present),
            cost: {
                let mut c = t.group_cost();
                if !present.device_util {
                    c.idle_held_usd = None;
                }
                c
            },
        })
        .collect();
    super::listing::sort_groups(&mut rows);
    rows
}

/// Not-useful dollars count held hours whose basis metric was not measured
/// as not useful: say how many.
fn unmeasured_basis_note(total: &Tally, basis: Basis, cost: &Cost) -> Option<Note> {
    if cost.not_useful_usd.is_none() || total.held_h() <= 0.0 {
        return None;
    }
    let known = total.known_h(basis.slot()?);
    (total.held_h() - known > 1e-9 * total.held_h()).then(|| Note::UnmeasuredBasis {
        held_gpu_hours: total.held_h() - known,
        basis: basis.name().to_string(),
    })
}
