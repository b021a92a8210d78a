//! Prices in USD per GPU-hour: one flat price, a file per model, or the
//! built-in dated profile (each catalog entry's price, src/catalog/table.rs).
//! An unpriced model is never priced at 0; an ambiguous name in the data
//! ("NVIDIA H100") is never priced as one of its candidates. Every row of a
//! price file either prices a model of the data or is a warning
//! ([`PriceBook::review`]), and its unit is the header's, never guessed.
use crate::audit::model::{Note, Warning};
use crate::catalog::{self, Resolved, names};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

/// The built-in profile's date and name, printed with every report that uses it.
pub const PROFILE_NAME: &str = "on-demand, specialist cloud, observed 2026 (built-in; not a quote)";
pub const PROFILE_DATE: &str = "2026-06";

/// Hours in a month: the report's monthly run-rates and a price file in
/// USD per GPU-month (docs/semantics.md §6).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// Where a report's prices came from; render/cost.rs words it (the report's
/// `cost.price_source`, in every output: its `Serialize` impl is there).
#[derive(Debug, Clone, PartialEq)]
pub enum PriceSource {
    /// `--price`: one price per GPU-hour for every GPU
    Flat(f64),
    /// `--prices FILE` alone (`--no-builtin-prices`)
    File(String),
    /// the built-in dated profile
    Builtin,
    /// `--prices FILE`, then the built-in profile for the models it lacks
    FileThenBuiltin(String),
    /// no prices: no dollars
    None,
    /// as a report read back (a `check` baseline) words it
    Written(String),
}

impl Default for PriceSource {
    fn default() -> Self {
        PriceSource::Written(String::new())
    }
}

impl<'de> serde::Deserialize<'de> for PriceSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(PriceSource::Written)
    }
}

/// What the numbers of a price file are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PriceUnit {
    /// USD per GPU-hour: a header `usd_per_gpu_hour` or `price`, or no header
    PerHour,
    /// USD per GPU-month: a header `usd_per_gpu_month`, divided by [`HOURS_PER_MONTH`]
    PerMonth,
}

/// One row of a price file, its price per GPU-hour.
#[derive(Debug, Clone)]
pub struct PriceRow {
    /// 1-based line in the file
    pub line: usize,
    /// the name as written
    pub name: String,
    pub usd_per_gpu_hour: f64,
}

/// A price file as read: its rows in file order.
#[derive(Debug, Clone)]
pub struct PriceFile {
    pub path: String,
    pub unit: PriceUnit,
    pub rows: Vec<PriceRow>,
}

/// A file row with what its name means in the catalog.
#[derive(Debug, Clone)]
struct Keyed {
    row: PriceRow,
    key: String,
    means: Resolved,
}

/// How a model found its price in the file.
#[derive(Debug, Clone, PartialEq)]
enum FileMatch {
    /// rows spelling the model's name (same words)
    Named(Vec<usize>),
    /// rows naming the model's card another way
    Card(Vec<usize>),
    /// a family row ("H100") one of whose cards the model is
    Family(usize, &'static str),
}

/// Where each model's price comes from.
#[derive(Debug, Clone)]
pub struct PriceBook {
    flat: Option<f64>,
    file: Option<(String, PriceUnit)>,
    rows: Vec<Keyed>,
    builtin: bool,
    pub source: PriceSource,
}

/// What [`PriceBook::review`] found: notes and warnings for the report.
#[derive(Debug, Default)]
pub struct PriceReview {
    pub notes: Vec<Note>,
    pub warnings: Vec<Warning>,
}

impl PriceBook {
    pub fn new(flat: Option<f64>, file: Option<&Path>, builtin: bool) -> Result<Self> {
        if let Some(p) = flat {
            if !(p.is_finite() && p >= 0.0) {
                bail!("--price {p}: expected a price in USD per GPU-hour >= 0");
            }
            return Ok(PriceBook {
                flat: Some(p),
                file: None,
                rows: Vec::new(),
                builtin: false,
                source: PriceSource::Flat(p),
            });
        }
        let mut rows = Vec::new();
        let mut file_unit = None;
        if let Some(path) = file {
            let f = load_price_file(path)?;
            rows = keyed_rows(&f)?;
            file_unit = Some((f.path, f.unit));
        }
        let source = match (file, builtin) {
            (Some(f), true) => PriceSource::FileThenBuiltin(f.display().to_string()),
            (Some(f), false) => PriceSource::File(f.display().to_string()),
            (None, true) => PriceSource::Builtin,
            (None, false) => PriceSource::None,
        };
        Ok(PriceBook {
            flat: None,
            file: file_unit,
            rows,
            builtin,
            source,
        })
    }

    /// USD per GPU-hour for a model, or None when nobody priced it. A name the
    /// file does not spell is priced by the catalog card it means, then by a
    /// family row ("H100") that could mean its card; a MIG instance at its
    /// compute share (slices of 7) of its card's price.
    pub fn price_of(&self, model: Option<&str>) -> Option<f64> {
        if let Some(p) = self.flat {
            return Some(p);
        }
        let model = model?;
        if let Some((p, _)) = self.file_price(model) {
            return Some(p);
        }
        let (card, share) = card_share(model)?;
        self.builtin.then_some(card.price.usd_per_gpu_hour * share)
    }

    /// The file's price of a model and the rows it came from.
    fn file_price(&self, model: &str) -> Option<(f64, FileMatch)> {
        let key = names::key(model);
        let named: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].key == key)
            .collect();
        if let Some(&i) = named.first() {
            return Some((self.rows[i].row.usd_per_gpu_hour, FileMatch::Named(named)));
        }
        let (card, share) = card_share(model)?;
        let of_card: Vec<usize> = (0..self.rows.len())
            .filter(|&i| matches!(&self.rows[i].means, Resolved::Card(g) if g.name == card.name))
            .collect();
        if let Some(&i) = of_card.first() {
            let p = self.rows[i].row.usd_per_gpu_hour * share;
            return Some((p, FileMatch::Card(of_card)));
        }
        // the narrowest family row, then the first in the file
        let family = (0..self.rows.len())
            .filter_map(|i| match &self.rows[i].means {
                Resolved::Ambiguous(c) if c.iter().any(|g| g.name == card.name) => {
                    Some((c.len(), i))
                }
                _ => None,
            })
            .min()?;
        let p = self.rows[family.1].row.usd_per_gpu_hour * share;
        Some((p, FileMatch::Family(family.1, card.name)))
    }

    /// Every file row against the models of the data: a family row ("H100")
    /// that priced models of two different cards is an error (the file must
    /// say which price is whose), one that priced one card is a note, a row
    /// that priced nothing is a warning with what it could mean.
    pub fn review<'a>(&self, models: impl IntoIterator<Item = &'a str>) -> Result<PriceReview> {
        let mut review = PriceReview::default();
        let Some((path, unit)) = self.file.as_ref().filter(|_| self.flat.is_none()) else {
            return Ok(review);
        };
        let mut models: Vec<&str> = models.into_iter().collect();
        models.sort_unstable();
        models.dedup();
        let mut used = vec![false; self.rows.len()];
        let mut families: BTreeMap<usize, BTreeMap<&'static str, Vec<&str>>> = BTreeMap::new();
        for &m in &models {
            match self.file_price(m) {
                Some((_, FileMatch::Named(rows) | FileMatch::Card(rows))) => {
                    rows.iter().for_each(|&i| used[i] = true)
                }
                Some((_, FileMatch::Family(i, card))) => families
                    .entry(i)
                    .or_default()
                    .entry(card)
                    .or_default()
                    .push(m),
                None => {}
            }
        }
        for (i, cards) in families {
            let r = &self.rows[i];
            let held: Vec<&str> = cards.values().flatten().copied().collect();
            if cards.len() > 1 {
                bail!(
                    "--prices {path} line {}: '{}' could mean {}, and the data holds {}: give each its own row",
                    r.row.line,
                    r.row.name,
                    means(&r.means).join(", "),
                    held.join(" and ")
                );
            }
            used[i] = true;
            review.notes.push(Note::PriceRowFamily {
                file: path.clone(),
                line: r.row.line,
                name: r.row.name.clone(),
                models: held.iter().map(|m| m.to_string()).collect(),
            });
        }
        for (r, _) in self.rows.iter().zip(&used).filter(|(_, u)| !**u) {
            review.warnings.push(Warning::PriceRowUnused {
                file: path.clone(),
                line: r.row.line,
                name: r.row.name.clone(),
                means: means(&r.means),
                data_models: names::closest_of(&r.row.name, &models, 3),
            });
        }
        if *unit == PriceUnit::PerMonth {
            review.notes.push(Note::PricesPerMonth {
                file: path.clone(),
                hours_per_month: HOURS_PER_MONTH,
            });
        }
        Ok(review)
    }
}

/// The card a model name means and its share of the card (a MIG slice: g/7;
/// an AMD compute partition: its XCDs of 8).
fn card_share(model: &str) -> Option<(&'static catalog::Gpu, f64)> {
    match catalog::resolve(model) {
        Resolved::Card(g) => Some((g, 1.0)),
        Resolved::Mig(g, p) => Some((g, p.share())),
        _ => None,
    }
}

/// The catalog cards a name could mean, by NVML name.
fn means(r: &Resolved) -> Vec<String> {
    match r {
        Resolved::Card(g) | Resolved::Mig(g, _) | Resolved::UnknownMig(g, _) => {
            vec![g.name.to_string()]
        }
        Resolved::Ambiguous(c) => c.iter().map(|g| g.name.to_string()).collect(),
        Resolved::Unknown => Vec::new(),
    }
}

/// The file's rows with their keys; two rows meaning one card (by the same
/// words or two spellings of it) with different prices are an error naming
/// both lines, not a silent choice; the same price twice is fine.
fn keyed_rows(file: &PriceFile) -> Result<Vec<Keyed>> {
    let mut out: Vec<Keyed> = Vec::new();
    for row in &file.rows {
        let k = Keyed {
            key: names::key(&row.name),
            means: catalog::resolve(&row.name),
            row: row.clone(),
        };
        let same = |o: &Keyed| {
            o.key == k.key
                || matches!((&o.means, &k.means), (Resolved::Card(a), Resolved::Card(b)) if a.name == b.name)
        };
        if let Some(o) = out
            .iter()
            .find(|o| same(o) && o.row.usd_per_gpu_hour != row.usd_per_gpu_hour)
        {
            bail!(
                "--prices {} lines {} and {}: '{}' ({}) and '{}' ({}) are the same {}: give one price",
                file.path,
                o.row.line,
                row.line,
                o.row.name,
                o.row.usd_per_gpu_hour,
                row.name,
                row.usd_per_gpu_hour,
                match &k.means {
                    Resolved::Card(g) => g.name,
                    _ => "model",
                }
            );
        }
        out.push(k);
    }
    Ok(out)
}

/// The unit a header's price column names (lower case, quotes trimmed).
fn unit_of_header(column: &str) -> Option<PriceUnit> {
    match column {
        "usd_per_gpu_hour" | "price" | "usd_per_hour" | "price_per_gpu_hour" => {
            Some(PriceUnit::PerHour)
        }
        "usd_per_gpu_month" | "usd_per_month" | "price_per_gpu_month" => Some(PriceUnit::PerMonth),
        _ => None,
    }
}

/// A price as written: `3.00`, `$3.00`, `"$3.00"`.
fn parse_price(text: &str) -> Option<f64> {
    let t = text.trim().trim_matches('"').trim();
    let t = t.strip_prefix('$').unwrap_or(t).trim();
    t.parse::<f64>().ok()
}

/// A price file: CSV `model,usd_per_gpu_hour` (the header optional; it names
/// the unit) or TOML (`"NVIDIA H100 80GB HBM3" = 3.0`, top level or under
/// `[prices]`; a top-level `unit = "usd_per_gpu_month"` names the unit).
pub fn load_price_file(path: &Path) -> Result<PriceFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--prices {}: cannot read", path.display()))?;
    let is_toml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let file = if is_toml {
        toml_prices(path, &text)?
    } else {
        csv_prices(path, &text)?
    };
    if file.rows.is_empty() {
        bail!(
            "--prices {}: no prices found (expected lines 'model,usd_per_gpu_hour')",
            path.display()
        );
    }
    Ok(file)
}

fn csv_prices(path: &Path, text: &str) -> Result<PriceFile> {
    let shown = path.display().to_string();
    let mut unit = None;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((model, price)) = line.rsplit_once(',') else {
            bail!(
                "--prices {shown} line {}: expected 'model,usd_per_gpu_hour'",
                i + 1
            );
        };
        let model = model.trim().trim_matches('"').trim();
        let Some(price) = parse_price(price) else {
            let column = price.trim().trim_matches('"').trim().to_ascii_lowercase();
            if unit.is_none() && rows.is_empty() {
                // the first row is a header: it names the unit
                unit = Some(unit_of_header(&column).with_context(|| {
                    format!(
                        "--prices {shown} line {}: the price column is '{column}', expected usd_per_gpu_hour (or price) or usd_per_gpu_month",
                        i + 1
                    )
                })?);
                continue;
            }
            bail!(
                "--prices {shown} line {}: '{}' is not a price in USD",
                i + 1,
                price.trim()
            );
        };
        unit.get_or_insert(PriceUnit::PerHour);
        rows.push(priced_row(&shown, i + 1, model, price, unit)?);
    }
    Ok(PriceFile {
        path: shown,
        unit: unit.unwrap_or(PriceUnit::PerHour),
        rows,
    })
}

/// One row, refused when its price is negative (or not finite), converted
/// to USD per GPU-hour.
fn priced_row(
    path: &str,
    line: usize,
    model: &str,
    price: f64,
    unit: Option<PriceUnit>,
) -> Result<PriceRow> {
    if !(price.is_finite() && price >= 0.0) {
        bail!("--prices {path} line {line}: price of '{model}' is {price}, expected >= 0");
    }
    let usd_per_gpu_hour = match unit {
        Some(PriceUnit::PerMonth) => price / HOURS_PER_MONTH,
        _ => price,
    };
    Ok(PriceRow {
        line,
        name: model.to_string(),
        usd_per_gpu_hour,
    })
}

fn toml_prices(path: &Path, text: &str) -> Result<PriceFile> {
    let shown = path.display().to_string();
    let mut value: toml::Table = text
        .parse()
        .with_context(|| format!("--prices {shown}: not valid TOML"))?;
    let unit = match value.remove("unit") {
        None => PriceUnit::PerHour,
        Some(toml::Value::String(u)) => unit_of_header(&u.to_ascii_lowercase()).with_context(
            || format!("--prices {shown}: unit is '{u}', expected usd_per_gpu_hour or usd_per_gpu_month"),
        )?,
        Some(other) => bail!("--prices {shown}: unit is {other}, expected a string"),
    };
    let table = match value.get("prices") {
        Some(toml::Value::Table(t)) => t.clone(),
        _ => value,
    };
    let mut rows = Vec::new();
    for (model, v) in table {
        let line = toml_line(text, &model);
        let price = match v {
            toml::Value::Float(f) => f,
            toml::Value::Integer(i) => i as f64,
            other => bail!(
                "--prices {shown} line {line}: price of '{model}' is {other}, expected a number (USD)"
            ),
        };
        rows.push(priced_row(&shown, line, &model, price, Some(unit))?);
    }
    rows.sort_by_key(|r| r.line);
    Ok(PriceFile {
        path: shown,
        unit,
        rows,
    })
}

/// The line a TOML key is written on (its first, quoted or bare; 0 if not found).
fn toml_line(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            let rest = l
                .strip_prefix(quoted.as_str())
                .or_else(|| l.strip_prefix(key));
            rest.is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_profile_prices_the_card_a_name_means() -> Result<()> {
        let book = PriceBook::new(None, None, true)?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(3.0));
        assert_eq!(book.price_of(Some("NVIDIA-H100-80GB-HBM3")), Some(3.0));
        assert_eq!(book.price_of(Some("nvidia  l40s")), Some(2.0));
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(0.70));
        assert_eq!(book.price_of(Some("Tesla-T4")), Some(0.35));
        // a family name is none of its members
        assert_eq!(book.price_of(Some("NVIDIA H100")), None);
        assert_eq!(book.price_of(Some("Mystery GPU")), None);
        assert_eq!(book.price_of(None), None);
        // a MIG slice at its compute share
        let mig = book
            .price_of(Some("NVIDIA H100 80GB HBM3 MIG 3g.40gb"))
            .unwrap_or_default();
        assert!((mig - 3.0 * 3.0 / 7.0).abs() < 1e-12, "{mig}");
        Ok(())
    }

    #[test]
    fn a_file_price_covers_every_spelling_of_its_card() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("prices.csv");
        std::fs::write(
            &path,
            "model,usd_per_gpu_hour\nH100 SXM,2.5\nNVIDIA H100,9\n",
        )?;
        let book = PriceBook::new(None, Some(&path), false)?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(2.5));
        assert_eq!(book.price_of(Some("NVIDIA-H100-80GB-HBM3")), Some(2.5));
        // named exactly in the file: the user chose that price for it
        assert_eq!(book.price_of(Some("NVIDIA H100")), Some(9.0));
        assert_eq!(book.price_of(Some("NVIDIA L4")), None);
        std::fs::write(&path, "H100 SXM,2.5\nNVIDIA H100 80GB HBM3,3\n")?;
        assert_eq!(
            refusal(&path),
            format!(
                "--prices {} lines 1 and 2: 'H100 SXM' (2.5) and 'NVIDIA H100 80GB HBM3' (3) are the same NVIDIA H100 80GB HBM3: give one price",
                path.display()
            )
        );
        Ok(())
    }

    fn refusal(path: &Path) -> String {
        PriceBook::new(None, Some(path), false)
            .err()
            .map(|e| format!("{e:#}"))
            .unwrap_or_default()
    }

    fn book_of(text: &str) -> Result<(tempfile::TempDir, PriceBook)> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("p.csv");
        std::fs::write(&path, text)?;
        let book = PriceBook::new(None, Some(&path), true)?;
        Ok((dir, book))
    }

    #[test]
    fn a_family_row_prices_the_one_card_of_it_in_the_data() -> Result<()> {
        let (_d, book) = book_of("model,usd_per_gpu_hour\nH100,2.10\n")?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(2.1));
        assert_eq!(book.price_of(Some("NVIDIA H100 PCIe")), Some(2.1));
        // the data's own family name is the row's name
        assert_eq!(book.price_of(Some("NVIDIA H100")), Some(2.1));
        let mig = book
            .price_of(Some("NVIDIA H100 80GB HBM3 MIG 1g.10gb"))
            .unwrap_or_default();
        assert!((mig - 2.1 / 7.0).abs() < 1e-12, "{mig}");
        // the built-in profile for the rest
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(0.70));
        let review = book.review(["NVIDIA H100 80GB HBM3", "NVIDIA L4"])?;
        assert!(review.warnings.is_empty(), "{:?}", review.warnings);
        assert!(
            matches!(&review.notes[..], [Note::PriceRowFamily { line: 2, name, models, .. }]
                if name == "H100" && models == &["NVIDIA H100 80GB HBM3"]),
            "{:?}",
            review.notes
        );
        // two cards of the family in the data: the row cannot say whose price it is
        let err = book
            .review(["NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA L4"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.ends_with("line 2: 'H100' could mean NVIDIA H100 80GB HBM3, NVIDIA H100 PCIe, NVIDIA H100 NVL, and the data holds NVIDIA H100 80GB HBM3 and NVIDIA H100 PCIe: give each its own row"),
            "{err}"
        );
        // a narrower row for one of them leaves the family row the other
        let (_d, book) = book_of("H100,2.10\nH100 PCIe,1.80\n")?;
        assert_eq!(book.price_of(Some("NVIDIA H100 PCIe")), Some(1.8));
        let review = book.review(["NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe"])?;
        assert_eq!((review.notes.len(), review.warnings.len()), (1, 0));
        Ok(())
    }

    #[test]
    fn a_row_that_prices_nothing_is_a_warning_with_its_candidates() -> Result<()> {
        let (_d, book) = book_of("NVIDIA L4,0.5\nL40S,1.5\nMystery GPU,9\n")?;
        let review = book.review(["NVIDIA L4", "NVIDIA L40"])?;
        let unused: Vec<(usize, &[String], &[String])> = review
            .warnings
            .iter()
            .filter_map(|w| match w {
                Warning::PriceRowUnused {
                    line,
                    means,
                    data_models,
                    ..
                } => Some((*line, &means[..], &data_models[..])),
                _ => None,
            })
            .collect();
        let l40s = ["NVIDIA L40S".to_string()];
        let near = ["NVIDIA L40".to_string(), "NVIDIA L4".to_string()];
        let by_name = ["NVIDIA L4".to_string(), "NVIDIA L40".to_string()];
        assert_eq!(
            unused,
            vec![(2, &l40s[..], &near[..]), (3, &[][..], &by_name[..])]
        );
        Ok(())
    }

    #[test]
    fn the_header_names_the_unit() -> Result<()> {
        let (_d, book) = book_of("model,usd_per_gpu_month\nNVIDIA L4,730\nNVIDIA L40S,$1460.00\n")?;
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(1.0));
        assert_eq!(book.price_of(Some("NVIDIA L40S")), Some(2.0));
        let review = book.review(["NVIDIA L4", "NVIDIA L40S"])?;
        assert!(
            matches!(&review.notes[..], [Note::PricesPerMonth { hours_per_month, .. }] if *hours_per_month == 730.0)
        );
        let (_d, book) = book_of("gpu,price\nNVIDIA L4,\"$0.80\"\n")?;
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(0.8));
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("p.csv");
        for (text, want) in [
            (
                "model,cost\nNVIDIA L4,1\n",
                "line 1: the price column is 'cost', expected usd_per_gpu_hour (or price) or usd_per_gpu_month",
            ),
            (
                "model,price\nNVIDIA L4,-1\n",
                "line 2: price of 'NVIDIA L4' is -1, expected >= 0",
            ),
            (
                "model,price\nNVIDIA L4,1\nNVIDIA L4,abc\n",
                "line 3: 'abc' is not a price in USD",
            ),
            (
                "model,price\nNVIDIA L4,1\nL40S,2\nnvidia  l4,1.5\n",
                "lines 2 and 4: 'NVIDIA L4' (1) and 'nvidia  l4' (1.5) are the same NVIDIA L4: give one price",
            ),
        ] {
            std::fs::write(&path, text)?;
            let err = refusal(&path);
            assert!(err.ends_with(want), "{text:?}: {err}");
        }
        // the same price twice is one price
        let (_d, book) = book_of("model,price\nNVIDIA L4,1\nnvidia l4,1\n")?;
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(1.0));
        assert!(book.review(["NVIDIA L4"])?.warnings.is_empty());
        // TOML names the unit with `unit`
        let path = dir.path().join("p.toml");
        std::fs::write(
            &path,
            "unit = \"usd_per_gpu_month\"\n[prices]\n\"NVIDIA L4\" = 365\n",
        )?;
        let book = PriceBook::new(None, Some(&path), false)?;
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(0.5));
        Ok(())
    }

    #[test]
    fn flat_price_covers_everything() -> Result<()> {
        let book = PriceBook::new(Some(2.5), None, true)?;
        assert_eq!(book.price_of(Some("anything")), Some(2.5));
        assert_eq!(book.price_of(None), Some(2.5));
        Ok(())
    }
}
