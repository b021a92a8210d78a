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

/// Dollars: "$1,234" (cents below $100).
pub fn usd(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
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

pub fn bytes_gib(v: Option<u64>) -> String {
    v.map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
        .unwrap_or_else(|| "n/a".to_string())
}

pub fn opt_text(v: Option<&str>) -> String {
    v.map(str::to_string).unwrap_or_else(|| "-".to_string())
}

/// A GPU id short enough for a table: UUIDs keep their first 12 characters.
pub fn short_gpu(id: &str) -> String {
    if id.chars().count() > 16 && id.starts_with("GPU-") && !id.contains('/') {
        format!("{}…", id.chars().take(12).collect::<String>())
    } else {
        id.to_string()
    }
}

/// RFC 3339 `2026-07-06T14:05:00Z` as `2026-07-06 14:05` for tables.
pub fn short_time(rfc3339: &str) -> String {
    match (rfc3339.get(0..10), rfc3339.get(11..16)) {
        (Some(d), Some(t)) if rfc3339.as_bytes().get(10) == Some(&b'T') => format!("{d} {t}"),
        _ => rfc3339.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(bar(Some(0.5), 10), "█████");
    }
}
