//! The report's word on ambiguous names: which unpriced models could be
//! several cards, with the candidates and their GPU-hours (pure: no printing).
use super::{Resolved, resolve};
use crate::audit::model::{AmbiguousModel, Cost, Warning};

/// Fill `cost.ambiguous_models` from its unpriced models and the observed
/// GPU-hours per reported name; returns the data-quality warning, if any.
pub fn flag_ambiguous<'a>(
    cost: &mut Cost,
    hours: impl IntoIterator<Item = (Option<&'a str>, f64)>,
) -> Option<Warning> {
    let hours: Vec<(Option<&str>, f64)> = hours.into_iter().collect();
    cost.ambiguous_models = cost
        .unpriced_models
        .iter()
        .filter_map(|name| match resolve(name) {
            Resolved::Ambiguous(c) => Some(AmbiguousModel {
                name: name.clone(),
                candidates: c.iter().map(|g| g.name.to_string()).collect(),
                gpu_hours: hours
                    .iter()
                    .filter(|(m, _)| *m == Some(name.as_str()))
                    .map(|(_, h)| h)
                    .sum(),
            }),
            _ => None,
        })
        .collect();
    if cost.ambiguous_models.is_empty() {
        return None;
    }
    Some(Warning::AmbiguousModels {
        models: cost.ambiguous_models.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ambiguous_unpriced_names_are_listed() {
        let mut cost = Cost {
            unpriced_models: vec!["Mystery GPU".into(), "NVIDIA H100".into()],
            ..Cost::default()
        };
        let hours = [
            (Some("NVIDIA H100"), 2.0),
            (Some("NVIDIA H100"), 1.5),
            (Some("Mystery GPU"), 4.0),
            (None, 1.0),
        ];
        let warning = flag_ambiguous(&mut cost, hours)
            .map(|w| crate::render::notes::warning_text(&w))
            .unwrap_or_default();
        assert_eq!(cost.ambiguous_models.len(), 1);
        let a = &cost.ambiguous_models[0];
        assert_eq!(a.name, "NVIDIA H100");
        assert_eq!(
            a.candidates,
            vec![
                "NVIDIA H100 80GB HBM3",
                "NVIDIA H100 PCIe",
                "NVIDIA H100 NVL"
            ]
        );
        assert!((a.gpu_hours - 3.5).abs() < 1e-12);
        assert!(
            warning.starts_with("1 GPU model name(s) could mean several cards"),
            "{warning}"
        );
        assert!(warning.contains("'NVIDIA H100' (3.50 GPU-hours; one of NVIDIA H100 80GB HBM3, NVIDIA H100 PCIe, NVIDIA H100 NVL)"), "{warning}");
        let mut none = Cost {
            unpriced_models: vec!["Mystery GPU".into()],
            ..Cost::default()
        };
        assert_eq!(flag_ambiguous(&mut none, []), None);
        assert!(none.ambiguous_models.is_empty());
    }
}
