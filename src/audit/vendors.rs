//! A line per vendor family under the waterfall (docs/semantics.md §9): a
//! mixed fleet's layers are measured by each vendor's own counters, some of
//! which only approximate NVIDIA's (AMD SM active is vector-ALU busy, Intel's
//! is EU active; Gaudi measures the device only). Each GPU's family comes
//! from its model in the catalog; the metric names are the family's
//! exporter series, since the canonical table does not carry which tool
//! wrote a column.
use super::model::{VendorLayer, VendorLayers, VendorLine};
use super::tally::{Present, Tally};
use crate::catalog::vendor::LayerMetric;
use crate::catalog::{Family, Resolved, resolve};
use std::collections::{BTreeMap, BTreeSet};

/// The family a reported model name means: its card's, or the one family
/// all the cards of an ambiguous name share ("NVIDIA H100"); None if unknown.
pub fn family_of(model: Option<&str>) -> Option<Family> {
    match resolve(model?) {
        Resolved::Card(g) | Resolved::Mig(g, _) | Resolved::UnknownMig(g, _) => Some(g.family),
        Resolved::Ambiguous(c) => {
            let first = c.first()?.family;
            c.iter().all(|g| g.family == first).then_some(first)
        }
        Resolved::Unknown => None,
    }
}

#[derive(Default)]
struct Acc {
    tally: Tally,
    gpus: usize,
    models: BTreeSet<String>,
}

/// The lines, one per family (NVIDIA first, unknown last), or none when the
/// fleet is NVIDIA only (or wholly unknown): then the waterfall says it all.
pub fn lines<'a>(
    gpus: impl Iterator<Item = (Option<&'a str>, &'a Tally)>,
    present: &Present,
) -> Vec<VendorLine> {
    let mut by: BTreeMap<Option<Family>, Acc> = BTreeMap::new();
    for (model, tally) in gpus {
        // unknown sorts last: Some(_) keys first, None after
        let acc = by.entry(family_of(model)).or_default();
        acc.tally.merge(tally);
        acc.gpus += 1;
        if let Some(m) = model {
            acc.models.insert(m.to_string());
        }
    }
    let known: Vec<Family> = by.keys().flatten().copied().collect();
    if known.is_empty() || known == [Family::Nvidia] {
        return Vec::new();
    }
    by.iter()
        .filter(|(f, _)| f.is_some())
        .chain(by.iter().filter(|(f, _)| f.is_none()))
        .map(|(family, acc)| line(*family, acc, present))
        .collect()
}

fn line(family: Option<Family>, acc: &Acc, present: &Present) -> VendorLine {
    let t = &acc.tally;
    let layers = t.layers(present);
    let ratios = t.ratios(present);
    let cost = t.group_cost();
    let tel = family.map(Family::telemetry);
    // a ratio exists only where the metric was measured on this family's held hours
    VendorLine {
        vendor: family.map_or("unknown", Family::vendor).to_string(),
        family: family.map_or("unknown", Family::name).to_string(),
        gpus: acc.gpus,
        models: acc.models.iter().cloned().collect(),
        observed_gpu_hours: layers.observed_gpu_hours,
        held_gpu_hours: layers.held_gpu_hours,
        held_usd: cost.held_usd,
        idle_held_usd: cost.idle_held_usd.filter(|_| present.device_util),
        layers: VendorLayers {
            device: layer(
                tel.and_then(|t| t.device),
                ratios.active().and(layers.active_gpu_hours),
                ratios.active(),
            ),
            chip: layer(
                tel.and_then(|t| t.chip),
                ratios.sm_active().and(layers.sm_active_gpu_hours),
                ratios.sm_active(),
            ),
            tensor: layer(
                tel.and_then(|t| t.tensor),
                ratios.tensor_active().and(layers.tensor_active_gpu_hours),
                ratios.tensor_active(),
            ),
        },
    }
}

fn layer(source: Option<LayerMetric>, gpu_hours: Option<f64>, ratio: Option<f64>) -> VendorLayer {
    VendorLayer {
        metric: source.map(|s| s.metric.to_string()),
        approximate: source.is_some_and(|s| s.approximate.is_some()),
        note: source.and_then(|s| s.approximate).map(str::to_string),
        gpu_hours,
        ratio,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::tally::{Basis, Row};

    fn held(hours: f64, util: f64, sm: Option<f64>) -> Tally {
        let mut t = Tally::default();
        t.add(
            &Row {
                w: hours,
                w_us: (hours * 3.6e9) as i64,
                held: true,
                activity: crate::metric::Activity::default()
                    .with(crate::metric::DEVICE_UTIL, Some(util))
                    .with(crate::metric::SM_ACTIVE, sm),
                price: Some(2.0),
                ..Row::default()
            },
            Basis::Active,
        );
        t
    }

    const PRESENT: Present = Present {
        device_util: true,
        sm_active: true,
        tensor_active: false,
        useful: false,
    };

    #[test]
    fn family_from_the_catalog() {
        assert_eq!(
            family_of(Some("NVIDIA H100 80GB HBM3")),
            Some(Family::Nvidia)
        );
        // ambiguous, but every candidate is NVIDIA's (or Gaudi's)
        assert_eq!(family_of(Some("NVIDIA H100")), Some(Family::Nvidia));
        assert_eq!(family_of(Some("Gaudi")), Some(Family::IntelGaudi));
        assert_eq!(
            family_of(Some("AMD Instinct MI300X CPX")),
            Some(Family::AmdInstinct)
        );
        assert_eq!(family_of(Some("Mystery GPU")), None);
        assert_eq!(family_of(None), None);
    }

    #[test]
    fn lines_only_for_a_mixed_or_non_nvidia_fleet() {
        let (a, b) = (held(2.0, 0.5, Some(0.25)), held(1.0, 0.9, None));
        let nvidia_only = [(Some("NVIDIA L4"), &a), (Some("Mystery GPU"), &b)];
        assert!(lines(nvidia_only.into_iter(), &PRESENT).is_empty());
        let mixed = [
            (Some("Mystery GPU"), &b),
            (Some("MI300X"), &a),
            (Some("NVIDIA L4"), &a),
        ];
        let got = lines(mixed.into_iter(), &PRESENT);
        let fams: Vec<&str> = got.iter().map(|l| l.family.as_str()).collect();
        assert_eq!(fams, ["NVIDIA", "AMD Instinct", "unknown"]);
        let amd = &got[1];
        assert_eq!(amd.layers.device.gpu_hours, Some(1.0));
        assert_eq!(amd.layers.chip.gpu_hours, Some(0.5));
        assert!(amd.layers.chip.approximate);
        assert_eq!(amd.held_usd, Some(4.0));
        // the unknown card: measured device, no SM sample, no known counter
        let unknown = &got[2];
        assert_eq!((unknown.vendor.as_str(), unknown.gpus), ("unknown", 1));
        assert_eq!(unknown.layers.device.gpu_hours, Some(0.9));
        assert_eq!(unknown.layers.device.metric, None);
        assert_eq!(unknown.layers.chip.gpu_hours, None);
        assert_eq!(unknown.layers.tensor.gpu_hours, None);
    }
}
