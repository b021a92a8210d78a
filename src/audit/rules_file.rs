//! The rules file of `gpuaudit check`: TOML tables of `metric = limit`,
//! read into the same rules as the command line's `--min`/`--max` flags.
use super::check::{Rule, RuleKind, rule_from_parts};
use anyhow::{Result, bail};

/// The rules file: `[min]`, `[max]`, `[max-drop]`, `[max-rise]` tables of
/// `metric = limit`, a limit being a number or a string such as "2pp".
pub(crate) fn rules_from_toml(text: &str) -> Result<Vec<Rule>> {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            let at = e
                .span()
                .map(|s| line_col(text, s.start))
                .map(|(l, c)| format!("line {l}, column {c}: "))
                .unwrap_or_default();
            bail!("{at}{}", e.message().trim());
        }
    };
    let mut rules = Vec::new();
    for (section, body) in &table {
        let kind = match section.as_str() {
            "min" => RuleKind::Min,
            "max" => RuleKind::Max,
            "max-drop" | "max_drop" => RuleKind::MaxDrop,
            "max-rise" | "max_rise" => RuleKind::MaxRise,
            other => bail!(
                "unknown key '{other}' (expected the tables [min], [max], [max-drop], [max-rise])"
            ),
        };
        let Some(body) = body.as_table() else {
            bail!("'{section}' must be a table of metric = limit, e.g. [{section}] mfu = 0.35");
        };
        for (metric, limit) in body {
            let limit = match limit {
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::String(s) => s.clone(),
                other => bail!(
                    "[{section}] {metric}: expected a number or a string such as \"2pp\", found {}",
                    other.type_str()
                ),
            };
            rules.push(
                rule_from_parts(kind, metric, &limit)
                    .map_err(|e| anyhow::anyhow!("[{section}] {metric} = {limit}: {e}"))?,
            );
        }
    }
    Ok(rules)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
