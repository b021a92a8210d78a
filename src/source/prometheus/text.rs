//! The Prometheus text exposition format (0.0.4) and OpenMetrics, as
//! dcgm-exporter serves it on /metrics and as `/federate` dumps it.
//!
//! Hand-written rather than a crate: the maintained-looking parsers either skip
//! malformed lines silently and split labels on commas inside quoted values
//! (prometheus-parse), or pull a PEG toolchain whose errors are grammar dumps
//! (openmetrics-parser). A dump with a broken line must fail naming the line.
use super::PromSample;
use crate::timeparse::epoch_number_to_us;
use anyhow::{Result, bail};
use std::collections::BTreeMap;

/// Parse a whole exposition body. Samples keep their own timestamp when the
/// line has one (ms in the Prometheus format, seconds in OpenMetrics: told
/// apart by magnitude), else `None`.
pub fn parse_exposition(text: &str, origin: &str) -> Result<Vec<PromSample>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r').trim();
        if line.is_empty() || line.starts_with('#') {
            continue; // HELP, TYPE, UNIT, EOF and plain comments
        }
        let sample =
            parse_sample_line(line).map_err(|e| anyhow::anyhow!("{origin}:{}: {e}", i + 1))?;
        out.push(sample);
    }
    Ok(out)
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

/// One `name{labels} value [timestamp]` line.
fn parse_sample_line(line: &str) -> Result<PromSample> {
    let chars: Vec<char> = line.chars().collect();
    let mut pos = 0;
    if !chars.first().copied().is_some_and(is_name_start) {
        bail!(
            "expected a metric name at the start of the line, found '{}'",
            crate::text::shorten(line, 40)
        );
    }
    while pos < chars.len() && is_name_char(chars[pos]) {
        pos += 1;
    }
    let metric: String = chars[..pos].iter().collect();
    let mut labels = BTreeMap::new();
    if chars.get(pos) == Some(&'{') {
        pos += 1;
        pos = parse_labels(&chars, pos, &metric, &mut labels)?;
    }
    let rest: String = chars[pos..].iter().collect();
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        bail!(
            "expected a space and a value after '{metric}', found '{}' (truncated line?)",
            crate::text::shorten(&rest, 40)
        );
    }
    // OpenMetrics exemplars follow a '#'.
    let rest = rest.split(" # ").next().unwrap_or("");
    let mut fields = rest.split_whitespace();
    let Some(value_text) = fields.next() else {
        bail!("the sample of '{metric}' has no value (truncated line?)");
    };
    let value = parse_value(value_text).ok_or_else(|| {
        anyhow::anyhow!(
            "'{value_text}' is not a sample value of '{metric}' (expected a number, NaN or ±Inf)"
        )
    })?;
    let time_us =
        match fields.next() {
            None => None,
            Some(ts) => {
                let n: f64 = ts.parse().map_err(|_| {
                    anyhow::anyhow!(
                        "'{ts}' is not a timestamp of '{metric}' (expected epoch ms or seconds)"
                    )
                })?;
                Some(epoch_number_to_us(n).ok_or_else(|| {
                    anyhow::anyhow!("'{ts}' is not a usable timestamp of '{metric}'")
                })?)
            }
        };
    if let Some(extra) = fields.next() {
        bail!("unexpected '{extra}' after the value and timestamp of '{metric}'");
    }
    Ok(PromSample {
        metric,
        labels,
        value,
        time_us,
    })
}

/// Labels after the opening brace; returns the position after the closing brace.
fn parse_labels(
    chars: &[char],
    mut pos: usize,
    metric: &str,
    labels: &mut BTreeMap<String, String>,
) -> Result<usize> {
    loop {
        while pos < chars.len() && (chars[pos] == ' ' || chars[pos] == ',') {
            pos += 1;
        }
        match chars.get(pos) {
            None => bail!("the labels of '{metric}' have no closing '}}' (truncated line?)"),
            Some('}') => return Ok(pos + 1),
            Some(c) if is_name_start(*c) => {}
            Some(c) => bail!("expected a label name in the labels of '{metric}', found '{c}'"),
        }
        let start = pos;
        while pos < chars.len() && is_name_char(chars[pos]) {
            pos += 1;
        }
        let name: String = chars[start..pos].iter().collect();
        while chars.get(pos) == Some(&' ') {
            pos += 1;
        }
        if chars.get(pos) != Some(&'=') {
            bail!("label '{name}' of '{metric}' has no '=' (truncated line?)");
        }
        pos += 1;
        while chars.get(pos) == Some(&' ') {
            pos += 1;
        }
        if chars.get(pos) != Some(&'"') {
            bail!("the value of label '{name}' of '{metric}' does not start with a quote");
        }
        pos += 1;
        let mut value = String::new();
        loop {
            match chars.get(pos) {
                None => bail!("the value of label '{name}' of '{metric}' has no closing quote"),
                Some('\\') => {
                    match chars.get(pos + 1) {
                        Some('n') => value.push('\n'),
                        Some(c) => value.push(*c),
                        None => {
                            bail!("the value of label '{name}' of '{metric}' has no closing quote")
                        }
                    }
                    pos += 2;
                }
                Some('"') => {
                    pos += 1;
                    break;
                }
                Some(c) => {
                    value.push(*c);
                    pos += 1;
                }
            }
        }
        labels.insert(name.clone(), value);
        while chars.get(pos) == Some(&' ') {
            pos += 1;
        }
        match chars.get(pos) {
            Some(',') | Some('}') => {}
            None => bail!("the labels of '{metric}' have no closing '}}' (truncated line?)"),
            Some(c) => bail!(
                "expected ',' or '}}' after label '{name}' of '{metric}', found '{c}' (a missing closing quote in the value of '{name}'?)"
            ),
        }
    }
}

/// Go's float syntax as exporters write it, NaN included.
pub fn parse_value(text: &str) -> Option<f64> {
    // Rust's syntax already reads NaN and [+-]Inf in any case: no copy per value
    if let Ok(v) = text.parse::<f64>() {
        return Some(v);
    }
    match text.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "+inf" | "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        t => t.parse::<f64>().ok(),
    }
}

/// Whether the head of a file looks like an exposition (for sniffing).
pub fn looks_like_exposition(first_line: &str) -> bool {
    let l = first_line.trim_start();
    if l.starts_with("# HELP ") || l.starts_with("# TYPE ") || l.starts_with("DCGM_FI_") {
        return true;
    }
    // name{label="...
    let name_end = l.find(|c: char| !is_name_char(c)).unwrap_or(l.len());
    name_end > 0
        && l.chars().next().is_some_and(is_name_start)
        && l[name_end..].starts_with("{")
        && l.contains("=\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_in_any_order_with_escapes_and_timestamps() -> Result<()> {
        let text = "# HELP x y\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n\
            DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-1\",gpu=\"0\", modelName=\"A \\\"B\\\", C\",} 45 1752480773000\n\
            up 1\n";
        let s = parse_exposition(text, "f.prom")?;
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].metric, "DCGM_FI_DEV_GPU_UTIL");
        assert_eq!(
            s[0].labels.get("modelName").map(String::as_str),
            Some("A \"B\", C")
        );
        assert_eq!(s[0].labels.get("UUID").map(String::as_str), Some("GPU-1"));
        assert_eq!(s[0].value, 45.0);
        assert_eq!(s[0].time_us, Some(1_752_480_773_000_000));
        assert_eq!(s[1].time_us, None);
        Ok(())
    }

    #[test]
    fn openmetrics_seconds_and_nan() -> Result<()> {
        let s = parse_exposition("a{b=\"c\"} NaN 1752480773.5\n# EOF\n", "f")?;
        assert!(s[0].value.is_nan());
        assert_eq!(s[0].time_us, Some(1_752_480_773_500_000));
        Ok(())
    }

    #[test]
    fn broken_lines_name_their_line() {
        let err = |t: &str| {
            parse_exposition(t, "f.prom")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("ok 1\nm{a=\"x} 1\n").starts_with("f.prom:2: the value of label 'a'"));
        assert!(err("m{a=\"x\"}\n").contains("no value"));
        assert!(err("m{a=\"x\"\n").contains("no closing '}'"));
        assert!(err("m 12abc\n").contains("not a sample value"));
    }
}
