//! Text for the diagnosis sections (§8-§12): table text and markdown. Only
//! formatting: every figure comes computed in the section.
pub mod jobs;
pub mod leaks;
pub mod nodes;
pub mod purchase;
pub mod timeline;

use super::fmt::thousands;

/// One markdown table row, pipes in cells escaped.
pub(crate) fn md_row(cells: &[String]) -> String {
    format!(
        "| {} |\n",
        cells
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

/// A number of GPUs for a sentence: whole when it is (nearly) whole or large,
/// else one decimal ("940", "3.5"); "n/a" when unknown.
pub fn gpus(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x.abs() >= 10.0 || (x - x.round()).abs() < 0.05 => thousands(x.round() as i64),
        Some(x) => format!("{x:.1}"),
    }
}

/// A bucket length: "1 h", "15 min", "1 d", "30 s".
pub fn bucket_len(seconds: f64) -> String {
    let s = seconds.round() as i64;
    if s > 0 && s % 86_400 == 0 {
        format!("{} d", s / 86_400)
    } else if s > 0 && s % 3600 == 0 {
        format!("{} h", s / 3600)
    } else if s > 0 && s % 60 == 0 {
        format!("{} min", s / 60)
    } else {
        format!("{seconds} s")
    }
}

/// What "95% of <unit>" reads as for a bucket length: hours, minutes, days,
/// else "<len> buckets".
pub fn bucket_noun(seconds: f64) -> String {
    match seconds.round() as i64 {
        60 => "minutes".to_string(),
        3600 => "hours".to_string(),
        86_400 => "days".to_string(),
        _ => format!("{} buckets", bucket_len(seconds)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_counts_and_bucket_words() {
        assert_eq!(gpus(Some(940.2)), "940");
        assert_eq!(gpus(Some(1000.0)), "1,000");
        assert_eq!(gpus(Some(3.5)), "3.5");
        assert_eq!(gpus(Some(2.0)), "2");
        assert_eq!(gpus(None), "n/a");
        assert_eq!(bucket_len(3600.0), "1 h");
        assert_eq!(bucket_len(900.0), "15 min");
        assert_eq!(bucket_len(172_800.0), "2 d");
        assert_eq!(bucket_noun(3600.0), "hours");
        assert_eq!(bucket_noun(900.0), "15 min buckets");
    }
}
