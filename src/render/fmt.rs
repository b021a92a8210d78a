//! Number formatting shared by the renderers. Missing values print as `n/a`.

/// 21504.3 -> "21,504"; small values keep one decimal.
pub fn hours(v: f64) -> String {
    if v.abs() >= 100.0 {
        thousands(v.round() as i64)
    } else if v.abs() >= 10.0 || v == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub fn opt_hours(v: Option<f64>) -> String {
    v.map(hours).unwrap_or_else(|| "n/a".to_string())
}

pub fn thousands(v: i64) -> String {
    let s = v.abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if v < 0 { format!("-{out}") } else { out }
}

/// A fraction as a percent: 0.912 -> "91.2%".
pub fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1}%", x * 100.0))
        .unwrap_or_else(|| "n/a".to_string())
}

/// Dollars: "$1,234" (cents below $100; "<$0.01" for a nonzero amount that
/// would print as $0.00, so a short run does not read as free).
pub fn usd(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x != 0.0 && x.abs() < 0.005 => "<$0.01".to_string(),
        Some(x) if x.abs() >= 100.0 => format!("${}", thousands(x.round() as i64)),
        Some(x) => format!("${x:.2}"),
    }
}

/// A bar of `width` cells for a fraction 0..1 (clamped for display only).
pub fn bar(fraction: Option<f64>, width: usize) -> String {
    let Some(f) = fraction else {
        return String::new();
    };
    let cells = (f.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    let full = cells / 8;
    let rest = cells % 8;
    let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let mut s = "█".repeat(full);
    s.push_str(partial[rest]);
    s
}

/// A size as a flag takes it: whole GiB, MiB or KiB as such (`1GiB`), else bytes.
pub fn size(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

pub fn bytes_gib(v: Option<u64>) -> String {
    v.map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
        .unwrap_or_else(|| "n/a".to_string())
}

/// A GPU id short enough for a table: a UUID keeps its head and tail around
/// an ellipsis ("GPU-16d1…90ab"), so two cards still read apart.
pub fn short_gpu(id: &str) -> String {
    if id.starts_with("GPU-") && !id.contains('/') {
        crate::text::shorten(id, 13)
    } else {
        id.to_string()
    }
}

/// How GPU-time reads in this report: GPU-hours; GPU-minutes or GPU-seconds
/// when the window is under an hour (a short scan is not "0.00 GPU-h"); GPUs
/// (and dollars per hour) for a snapshot, where each GPU counts once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Units {
    /// "GPU-h", "GPU-min", "GPU-s" or "GPUs"
    pub name: &'static str,
    /// "" or "/h" after a dollar figure
    pub per: &'static str,
    scale: f64,
}

impl Units {
    pub fn of(report: &crate::audit::model::Report) -> Units {
        let w = &report.window;
        if w.snapshot {
            Units {
                name: "GPUs",
                per: "/h",
                scale: 1.0,
            }
        } else if w.hours < 1.0 / 60.0 {
            Units {
                name: "GPU-s",
                per: "",
                scale: 3600.0,
            }
        } else if w.hours < 1.0 {
            Units {
                name: "GPU-min",
                per: "",
                scale: 60.0,
            }
        } else {
            Units {
                name: "GPU-h",
                per: "",
                scale: 1.0,
            }
        }
    }

    /// GPU-hours in this unit, formatted.
    pub fn amount(&self, gpu_hours: f64) -> String {
        hours(gpu_hours * self.scale)
    }

    pub fn opt(&self, gpu_hours: Option<f64>) -> String {
        gpu_hours
            .map(|h| self.amount(h))
            .unwrap_or_else(|| "n/a".to_string())
    }

    /// A window length: minutes or seconds when under an hour.
    pub fn span(hours_: f64) -> String {
        if hours_ < 1.0 / 60.0 {
            format!("{} s", hours(hours_ * 3600.0))
        } else if hours_ < 1.0 {
            format!("{} min", hours(hours_ * 60.0))
        } else {
            format!("{} h", hours(hours_))
        }
    }
}

/// A report time as `2026-07-06 14:05` (UTC, to the minute) for tables.
pub fn short_time(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// One showback row, in the order every showback table prints it: key,
/// observed and held GPU-time, device / SM / tensor activity, idle GPU-time,
/// then held, idle, unallocated and total dollars (`usd` in that order).
pub fn showback_cells(
    u: &Units,
    key: String,
    layers: &crate::audit::model::Layers,
    ratios: &crate::audit::model::Ratios,
    usd_figures: [Option<f64>; 4],
) -> Vec<String> {
    let mut cells = vec![
        key,
        u.amount(layers.observed_gpu_hours),
        u.amount(layers.held_gpu_hours),
        pct(ratios.active()),
        pct(ratios.sm_active()),
        pct(ratios.tensor_active()),
        u.opt(layers.idle_held_gpu_hours),
    ];
    cells.extend(usd_figures.into_iter().map(usd));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_reads_as_a_flag_takes_it() {
        assert_eq!(size(1 << 30), "1GiB");
        assert_eq!(size(512 << 20), "512MiB");
        assert_eq!(size(1_000_000), "1000000B");
        assert_eq!(size(0), "0B");
    }
    #[test]
    fn formats() {
        assert_eq!(thousands(21504), "21,504");
        assert_eq!(thousands(-1234567), "-1,234,567");
        assert_eq!(hours(21504.4), "21,504");
        assert_eq!(hours(12.34), "12.3");
        assert_eq!(hours(0.0333), "0.03");
        assert_eq!(pct(Some(0.9123)), "91.2%");
        assert_eq!(pct(None), "n/a");
        assert_eq!(usd(Some(1234.4)), "$1,234");
        assert_eq!(usd(Some(3.5)), "$3.50");
        assert_eq!(usd(Some(0.001)), "<$0.01");
        assert_eq!(usd(Some(0.0)), "$0.00");
        assert_eq!(
            short_gpu("GPU-16d14904-aaaa-bbbb-cccc-1234567890ab"),
            "GPU-16…7890ab"
        );
        assert_eq!(Units::span(0.5), "30.0 min");
        assert_eq!(bar(Some(0.5), 10), "█████");
    }
}
