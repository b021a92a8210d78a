//! The plan as one SQL query per dialect (docs/semantics.md §14). Every
//! dialect gets the same query; only the spellings in [`Dialect`] differ.
//! Weights use window functions: `LEAD(t)` over a GPU's samples by time,
//! capped at max gap; the step is the median by rank (`weights::median_by_rank`)
//! written with `ROW_NUMBER`, exact in integers, so no engine's own median
//! (approximate in some) decides a weight.
use super::rules::{self, HeldTest};
use super::{AuditPlan, FRACTIONS, Filter, SUMS, Value, key};
use crate::audit::HeldRule;
use crate::samples::col;

/// The engines a query is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    DuckDb,
    ClickHouse,
    Spark,
    Trino,
    BigQuery,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::DuckDb => "duckdb",
            Dialect::ClickHouse => "clickhouse",
            Dialect::Spark => "spark",
            Dialect::Trino => "trino",
            Dialect::BigQuery => "bigquery",
        }
    }

    fn quote(self, ident: &str) -> String {
        match self {
            Dialect::Spark | Dialect::BigQuery => format!("`{}`", ident.replace('`', "``")),
            _ => format!("\"{}\"", ident.replace('"', "\"\"")),
        }
    }

    fn text(self) -> &'static str {
        match self {
            Dialect::DuckDb | Dialect::Trino => "VARCHAR",
            Dialect::Spark | Dialect::BigQuery => "STRING",
            Dialect::ClickHouse => "Nullable(String)",
        }
    }

    fn double(self) -> &'static str {
        match self {
            Dialect::ClickHouse => "Nullable(Float64)",
            Dialect::BigQuery => "FLOAT64",
            _ => "DOUBLE",
        }
    }

    fn bigint(self) -> &'static str {
        match self {
            Dialect::ClickHouse => "Nullable(Int64)",
            Dialect::BigQuery => "INT64",
            _ => "BIGINT",
        }
    }

    /// Microseconds since the epoch of a timestamp column (gpuaudit's tick).
    fn epoch_us(self, e: &str) -> String {
        match self {
            Dialect::DuckDb => format!("epoch_us({e})"),
            Dialect::ClickHouse => format!("toUnixTimestamp64Micro(toDateTime64({e}, 6, 'UTC'))"),
            Dialect::Spark => format!("unix_micros({e})"),
            Dialect::BigQuery => format!("UNIX_MICROS({e})"),
            // to_unixtime is a double of seconds: exact to the µs for these dates once rounded
            Dialect::Trino => format!("CAST(round(to_unixtime({e}) * 1000000) AS BIGINT)"),
        }
    }

    /// Integer division, truncated (non-negative operands only).
    fn idiv(self, a: &str, b: &str) -> String {
        match self {
            Dialect::DuckDb => format!("(({a}) // ({b}))"),
            Dialect::ClickHouse => format!("intDiv({a}, {b})"),
            Dialect::Spark => format!("(({a}) div ({b}))"),
            // operands in parentheses and typed: the text says integer division
            // to any reader of the query, sqlglot's transpiler included
            // (docs/semantics.md §14), not only to the engine
            Dialect::BigQuery => format!("DIV(({a}), ({b}))"),
            Dialect::Trino => format!("(CAST({a} AS BIGINT) / CAST({b} AS BIGINT))"),
        }
    }

    /// A JSON array of `value` ordered by `by` (an aggregate).
    fn json_list(self, value: &str, by: &str) -> String {
        match self {
            Dialect::DuckDb => format!("CAST(to_json(list({value} ORDER BY {by})) AS VARCHAR)"),
            Dialect::ClickHouse => format!(
                "toJSONString(arrayMap(x -> x.2, arraySort(groupArray(tuple({by}, {value})))))"
            ),
            Dialect::Spark => format!(
                "to_json(transform(array_sort(collect_list(struct({by}, {value}))), x -> x.{value}))"
            ),
            Dialect::BigQuery => format!("TO_JSON_STRING(ARRAY_AGG({value} ORDER BY {by}))"),
            Dialect::Trino => {
                format!("json_format(CAST(array_agg({value} ORDER BY {by}) AS JSON))")
            }
        }
    }

    /// How a CTE that is cheaper to compute again than to keep is declared.
    /// DuckDB keeps (materializes) every CTE read more than once: at 100M
    /// rows the table's projection and its converted copy were two full-width
    /// copies of the samples (12 GB RSS and 4.5 GB spilled at 20M rows).
    /// The other engines inline CTEs by default.
    fn recomputed(self) -> &'static str {
        match self {
            Dialect::DuckDb => " NOT MATERIALIZED",
            _ => "",
        }
    }

    /// What ends the query (ClickHouse: unmatched LEFT JOIN columns are NULL, not 0).
    fn tail(self) -> &'static str {
        match self {
            Dialect::ClickHouse => "\nSETTINGS join_use_nulls = 1",
            _ => "",
        }
    }
}

const US_PER_HOUR: &str = "3600000000.0";

/// The query whose answer is the partial-sums table `report --partials` reads.
pub fn render(plan: &AuditPlan, d: Dialect) -> String {
    let ctes = [
        ("src", source(plan, d)),
        ("units", units(d)),
        ("conv", converted(plan, d)),
        ("present", present()),
        ("ranked", ranked()),
        ("kept", kept(d)),
        ("diffs", diffs()),
        ("steps", median("host, gpu", "diff", "diffs", d)),
        ("fleet_ranked", fleet_ranked()),
        ("fleet", median("", "step", "fleet_ranked", d)),
        ("weighed", weighed(plan, d)),
        ("parts", parts(plan.idle_below, d)),
        ("gpu_counts", gpu_counts()),
        ("gpu_last", gpu_last()),
        ("gpu_jobs", owners("job", d)),
        ("gpu_users", owners("usr", d)),
    ];
    let mut ctes: Vec<(&str, String)> = ctes.into_iter().collect();
    if let Some(b) = plan.bucket_us {
        ctes.push(("exploded", exploded(b, d)));
        ctes.push(("bucket_parts", bucket_parts(b, plan.idle_below, d)));
    }
    let mut out = format!(
        "-- gpuaudit sql --dialect {}: the audit's partial sums (docs/semantics.md §14);\n-- export the answer as parquet or CSV and run: gpuaudit report --partials FILE\nWITH\n",
        d.name()
    );
    // the table's projection and its conversion are a scan and arithmetic
    let recomputed = |name: &str| {
        if matches!(name, "src" | "conv") {
            d.recomputed()
        } else {
            ""
        }
    };
    let body: Vec<String> = ctes
        .iter()
        .map(|(name, q)| format!("{name} AS{} (\n{q}\n)", recomputed(name)))
        .collect();
    out.push_str(&body.join(",\n"));
    out.push('\n');
    out.push_str(&final_select(plan, d));
    out.push_str(d.tail());
    out.push('\n');
    out
}

/// The table's columns under canonical names; an absent column is NULL.
fn source(plan: &AuditPlan, d: Dialect) -> String {
    let q = |c: &str| plan.source(c).map(|s| d.quote(s));
    let text = |c: &str, alias: &str| match q(c) {
        Some(s) => format!("    NULLIF(TRIM(CAST({s} AS {})), '') AS {alias}", d.text()),
        None => format!("    CAST(NULL AS {}) AS {alias}", d.text()),
    };
    let num = |c: &str, alias: &str| match q(c) {
        Some(s) => format!("    CAST({s} AS {}) AS {alias}", d.double()),
        None => format!("    CAST(NULL AS {}) AS {alias}", d.double()),
    };
    let time = q(col::TIME).unwrap_or_default();
    let gpu = q(col::GPU).unwrap_or_default();
    let mut cols = vec![
        // nullable: LEAD past a GPU's last sample is NULL, not 0 (ClickHouse)
        format!("    CAST({} AS {}) AS t", d.epoch_us(&time), d.bigint()),
        match q(col::HOST) {
            Some(h) => format!("    COALESCE(CAST({h} AS {}), '') AS host", d.text()),
            None => "    '' AS host".to_string(),
        },
        format!("    CAST({gpu} AS {}) AS gpu", d.text()),
        text(col::MODEL, "model"),
        text(col::JOB, "job"),
        text(col::USER, "usr"),
        text(col::TEAM, "team"),
    ];
    match q(col::HELD) {
        Some(h) => cols.push(format!(
            "    LOWER(TRIM(CAST({h} AS {}))) AS held_text",
            d.text()
        )),
        None => cols.push(format!("    CAST(NULL AS {}) AS held_text", d.text())),
    }
    for m in FRACTIONS {
        cols.push(num(m, &format!("raw_{m}")));
    }
    cols.push(num(col::MEM_USED_BYTES, "mem_used"));
    cols.push(num(col::MEM_TOTAL_BYTES, "mem_total"));
    cols.push(num(col::POWER_W, "power_w"));
    format!(
        "  SELECT\n{}\n  FROM {}\n  WHERE {time} IS NOT NULL AND {gpu} IS NOT NULL",
        cols.join(",\n"),
        plan.table
    )
}

/// Per fraction column, whether it holds percent (docs/semantics.md §1: a
/// value in [2, 100] is evidence; the whole input decides).
fn units(_d: Dialect) -> String {
    let cols: Vec<String> = FRACTIONS
        .iter()
        .map(|m| {
            format!(
                "    MAX(CASE WHEN raw_{m} >= {} AND raw_{m} <= 100 THEN 1 ELSE 0 END) AS pct_{m}",
                crate::units::PERCENT_EVIDENCE
            )
        })
        .collect();
    format!("  SELECT\n{}\n  FROM src", cols.join(",\n"))
}

/// Fractions in 0..1 (a value outside its unit's range is not used), the
/// held rule, the window and the `--by` group.
fn converted(plan: &AuditPlan, d: Dialect) -> String {
    let mut cols = vec!["    s.t, s.host, s.gpu, s.model, s.job, s.usr, s.team".to_string()];
    for m in FRACTIONS {
        cols.push(format!(
            "    CASE WHEN u.pct_{m} = 1 THEN CASE WHEN s.raw_{m} >= 0 AND s.raw_{m} <= 100 THEN s.raw_{m} * {:?} END\n         ELSE CASE WHEN s.raw_{m} >= 0 AND s.raw_{m} <= 1 THEN s.raw_{m} END END AS {m}",
            rules::PERCENT
        ));
    }
    cols.push("    s.mem_used, s.mem_total, s.power_w".to_string());
    let (held, unknown) = held_sql(plan.held);
    cols.push(format!("    {held} AS held"));
    cols.push(format!("    {unknown} AS held_unknown"));
    let mut window = Vec::new();
    if let Some(s) = plan.since_us {
        window.push(format!("s.t >= {s}"));
    }
    if let Some(u) = plan.until_us {
        window.push(format!("s.t < {u}"));
    }
    let in_window = if window.is_empty() {
        "1 = 1".to_string()
    } else {
        window.join(" AND ")
    };
    cols.push(format!(
        "    CASE WHEN {in_window} THEN 1 ELSE 0 END AS in_window"
    ));
    let grp = match plan.group_column() {
        Some(c) if c == col::HOST => "NULLIF(s.host, '')",
        Some(c) if c == col::MODEL => "s.model",
        Some(c) if c == col::JOB => "s.job",
        Some(c) if c == col::USER => "s.usr",
        Some(c) if c == col::TEAM => "s.team",
        _ => "",
    };
    let grp = if grp.is_empty() {
        format!("CAST(NULL AS {})", d.text())
    } else {
        grp.to_string()
    };
    cols.push(format!("    {grp} AS grp"));
    format!(
        "  SELECT\n{}\n  FROM src s CROSS JOIN units u",
        cols.join(",\n")
    )
}

/// The held rule (docs/semantics.md §3, `plan::rules::held_test`):
/// (held, held unknown) as SQL over the canonical columns.
fn held_sql(rule: HeldRule) -> (String, String) {
    let list = |words: &[&str]| {
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (yes, no) = rules::held_words();
    match rules::held_test(rule) {
        HeldTest::Words => (
            format!(
                "(s.held_text IS NOT NULL AND s.held_text IN ({}))",
                list(&yes)
            ),
            format!(
                "NOT (s.held_text IS NOT NULL AND (s.held_text IN ({}) OR s.held_text IN ({})))",
                list(&yes),
                list(&no)
            ),
        ),
        HeldTest::Owner => ("(s.job IS NOT NULL)".into(), "(1 = 0)".into()),
        HeldTest::Threshold { column, cmp, bound } => {
            // the memory column is the only one a held test compares
            let c = if column == col::MEM_USED_BYTES {
                "s.mem_used"
            } else {
                column
            };
            (
                format!("({c} IS NOT NULL AND {c} {} {bound})", cmp.op()),
                "(1 = 0)".into(),
            )
        }
        HeldTest::Always => ("(1 = 1)".into(), "(1 = 0)".into()),
    }
}

/// Whether each metric was measured at all (a column without one usable
/// value is absent: its sums are null, never 0).
fn present() -> String {
    let mut cols: Vec<String> = FRACTIONS
        .iter()
        .map(|m| format!("    COUNT({m}) AS n_{m}"))
        .collect();
    // fleet-wide: a GPU with no sample in the window has no row of its own
    cols.push("    SUM(CASE WHEN in_window = 0 THEN 1 ELSE 0 END) AS outside".to_string());
    format!("  SELECT\n{}\n  FROM conv", cols.join(",\n"))
}

/// Repeats of one (host, gpu, time) are one sample: the held one, then the
/// busiest (docs/semantics.md §2, `engine::Pending::outranks`), is ranked 1.
fn ranked() -> String {
    "  SELECT c.*, ROW_NUMBER() OVER (PARTITION BY host, gpu, t ORDER BY held DESC, device_util DESC NULLS LAST, sm_active DESC NULLS LAST, tensor_active DESC NULLS LAST, sm_occupancy DESC NULLS LAST, dram_active DESC NULLS LAST, mem_used DESC NULLS LAST, power_w DESC NULLS LAST, mem_total DESC NULLS LAST) AS dup\n  FROM conv c".to_string()
}

fn kept(_d: Dialect) -> String {
    "  SELECT r.*, LEAD(t) OVER (PARTITION BY host, gpu ORDER BY t) - t AS diff\n  FROM ranked r\n  WHERE in_window = 1 AND dup = 1".to_string()
}

fn diffs() -> String {
    "  SELECT host, gpu, diff,\n    ROW_NUMBER() OVER (PARTITION BY host, gpu ORDER BY diff) AS r,\n    COUNT(*) OVER (PARTITION BY host, gpu) AS n\n  FROM kept\n  WHERE diff > 0".to_string()
}

fn fleet_ranked() -> String {
    "  SELECT step, ROW_NUMBER() OVER (ORDER BY step) AS r, COUNT(*) OVER () AS n\n  FROM steps"
        .to_string()
}

/// The median by rank of `value` (per `keys`, or over all rows): the middle
/// value of an odd count, the mean of the middle two truncated for an even one.
fn median(keys: &str, value: &str, from: &str, d: Dialect) -> String {
    let lo = d.idiv("n + 1", "2");
    let hi = format!("{} + 1", d.idiv("n", "2"));
    let pick = |pos: &str| format!("MAX(CASE WHEN r = {pos} THEN {value} END)");
    let median = d.idiv(&format!("{} + {}", pick(&lo), pick(&hi)), "2");
    let name = if value == "diff" {
        "step"
    } else {
        "fleet_step"
    };
    if keys.is_empty() {
        format!("  SELECT {median} AS {name}\n  FROM {from}")
    } else {
        format!("  SELECT {keys}, {median} AS {name}\n  FROM {from}\n  GROUP BY {keys}")
    }
}

/// Each kept sample's weight (docs/semantics.md §2, `audit::weights`): the
/// time to the next sample, at most max gap; the last one step; a GPU's one
/// sample --interval, else the fleet's step in a series, else one hour; none past --until.
fn weighed(plan: &AuditPlan, d: Dialect) -> String {
    let max_gap = match plan.max_gap_us {
        Some(g) => format!("CASE WHEN s.step IS NULL THEN NULL ELSE {g} END"),
        None => "3 * s.step".to_string(),
    };
    let lone = match plan.interval_us {
        Some(i) => i.to_string(),
        None => format!(
            "COALESCE(f.fleet_step, {})",
            crate::audit::DEFAULT_SNAPSHOT_US
        ),
    };
    let raw = format!(
        "CASE WHEN g.step IS NULL THEN {lone}\n              WHEN g.diff IS NULL THEN LEAST(g.step, g.max_gap)\n              ELSE LEAST(g.diff, g.max_gap) END"
    );
    let w = match plan.until_us {
        Some(u) => format!("GREATEST(LEAST({raw}, {u} - g.t), 0)"),
        None => raw,
    };
    let _ = d;
    format!(
        "  SELECT g.*, {w} AS w, {lone} AS single_weight,\n    CASE WHEN g.diff > g.max_gap THEN g.diff - g.max_gap ELSE 0 END AS unobserved,\n    CASE WHEN g.step IS NULL THEN (CASE WHEN {} THEN 1 ELSE 2 END) ELSE 0 END AS single,\n    f.fleet_step\n  FROM (\n    SELECT k.*, s.step, {max_gap} AS max_gap\n    FROM kept k LEFT JOIN steps s ON k.host = s.host AND k.gpu = s.gpu\n  ) g CROSS JOIN fleet f",
        if plan.interval_us.is_some() {
            "1 = 1"
        } else {
            "f.fleet_step IS NULL"
        }
    )
}

/// The condition of a filter over one weighed sample.
fn condition(f: Filter) -> String {
    match f {
        Filter::All => "1 = 1".to_string(),
        Filter::Held => "held".to_string(),
        Filter::HeldUnknown => "held_unknown".to_string(),
        Filter::HeldWith(m) => format!("held AND {m} IS NOT NULL"),
        Filter::HeldWithout(m) => format!("held AND {m} IS NULL"),
        Filter::Idle => idle_sql(),
    }
}

/// The idle rule (docs/semantics.md §5, `plan::rules::IDLE_CMP`); the
/// threshold is a column bound in `parts`.
fn idle_sql() -> String {
    let m = rules::IDLE_METRIC;
    format!(
        "held AND {m} IS NOT NULL AND {m} {} idle_below",
        rules::IDLE_CMP.op()
    )
}

/// The value a sum adds for one sample.
fn value(v: Value, w: &str) -> String {
    match v {
        Value::Count => "1".to_string(),
        Value::Ticks => w.to_string(),
        Value::UnobservedTicks => "unobserved".to_string(),
        Value::Hours => format!("({w} / {US_PER_HOUR})"),
        Value::HoursTimes(m) => format!("({w} / {US_PER_HOUR}) * {m}"),
    }
}

/// The metric a sum needs measured somewhere, for its null-when-absent rule.
fn metric_of(v: Value, f: Filter) -> Option<&'static str> {
    match (v, f) {
        (Value::HoursTimes(m), _) | (_, Filter::HeldWith(m)) => Some(m),
        _ => None,
    }
}

/// The partial sums per (host, gpu, model, group).
fn parts(idle_below: f64, d: Dialect) -> String {
    let mut cols = vec![
        "    host, gpu, model, grp".to_string(),
        "    MIN(t) AS start_us, MAX(t + w) AS end_us, MAX(t) AS last_us".to_string(),
        "    MAX(single) AS single, MAX(single_weight) AS single_weight_us".to_string(),
    ];
    cols.extend(sum_columns("w", d));
    format!(
        "  SELECT\n{}\n  FROM (SELECT weighed.*, {idle_below:?} AS idle_below FROM weighed) x\n  GROUP BY host, gpu, model, grp",
        cols.join(",\n"),
    )
}

/// Every sum of the plan over the weight column `w` (a sample's weight, or
/// its part inside one bucket).
fn sum_columns(w: &str, d: Dialect) -> Vec<String> {
    SUMS.iter()
        .map(|s| {
            let cond = condition(s.filter);
            let v = value(s.value, w);
            let sum = format!("COALESCE(SUM(CASE WHEN {cond} THEN {v} END), 0)");
            // integer sums stay integers (DuckDB's SUM of BIGINT is a HUGEINT)
            let sum = match s.value {
                Value::Count | Value::Ticks | Value::UnobservedTicks => {
                    format!("CAST({sum} AS {})", d.bigint())
                }
                _ => sum,
            };
            format!("    {sum} AS {}", s.name)
        })
        .collect()
}

/// Each weighed sample once per bucket it overlaps (`--bucket`: the
/// timeline, docs/semantics.md §10), with its part `o` inside that bucket.
fn exploded(b: i64, d: Dialect) -> String {
    let (lo, hi) = (
        d.idiv("sw.t", &b.to_string()),
        d.idiv("sw.t + sw.w - 1", &b.to_string()),
    );
    let from = match d {
        Dialect::DuckDb => {
            format!("SELECT sw.*, unnest(range({lo}, {hi} + 1)) AS bk FROM weighed sw")
        }
        Dialect::ClickHouse => format!(
            "SELECT sw.*, toInt64(arrayJoin(range(toUInt64(assumeNotNull({lo})), toUInt64(assumeNotNull({hi})) + 1))) AS bk FROM weighed sw"
        ),
        Dialect::Spark => {
            format!("SELECT sw.*, explode(sequence({lo}, {hi})) AS bk FROM weighed sw")
        }
        Dialect::Trino => {
            format!(
                "SELECT sw.*, u.bk FROM weighed sw CROSS JOIN UNNEST(sequence({lo}, {hi})) AS u(bk)"
            )
        }
        Dialect::BigQuery => {
            format!(
                "SELECT sw.*, bk FROM weighed sw CROSS JOIN UNNEST(GENERATE_ARRAY({lo}, {hi})) AS bk"
            )
        }
    };
    format!("  {from}\n  WHERE sw.w > 0")
}

/// The plan's sums per bucket, over each sample's part in it.
fn bucket_parts(b: i64, idle_below: f64, d: Dialect) -> String {
    let mut cols = vec!["    bk".to_string()];
    cols.extend(sum_columns("o", d));
    format!(
        "  SELECT\n{}\n  FROM (SELECT e.*, LEAST(e.t + e.w, (e.bk + 1) * {b}) - GREATEST(e.t, e.bk * {b}) AS o, {idle_below:?} AS idle_below FROM exploded e) x\n  GROUP BY bk",
        cols.join(",\n")
    )
}

/// Per GPU: repeats dropped (data quality): the samples in the window less
/// their distinct times, the count of rows `ranked` ranks below 1, counted
/// from `conv` so that `ranked` (a sort of every sample) has one reader.
fn gpu_counts() -> String {
    "  SELECT host, gpu,\n    SUM(in_window) - COUNT(DISTINCT CASE WHEN in_window = 1 THEN t END) AS duplicates\n  FROM conv\n  GROUP BY host, gpu".to_string()
}

/// Per GPU: its latest sample's held state, memory and power.
fn gpu_last() -> String {
    "  SELECT host, gpu, held, mem_used, mem_total, power_w\n  FROM (SELECT k.*, ROW_NUMBER() OVER (PARTITION BY host, gpu ORDER BY t DESC) AS rl FROM kept k) x\n  WHERE rl = 1".to_string()
}

/// Per GPU: the owners (jobs or users) of its held samples, most recent last.
fn owners(column: &str, d: Dialect) -> String {
    format!(
        "  SELECT host, gpu, {} AS owners\n  FROM (SELECT host, gpu, {column}, MAX(t) AS seen FROM kept WHERE held AND {column} IS NOT NULL GROUP BY host, gpu, {column}) o\n  GROUP BY host, gpu",
        d.json_list(column, "seen")
    )
}

fn final_select(plan: &AuditPlan, d: Dialect) -> String {
    let cols = gpu_columns(plan, d);
    let bucket_us = plan
        .bucket_us
        .map_or(format!("CAST(NULL AS {})", d.bigint()), |b| b.to_string());
    // every column typed alike in both halves of the union (ClickHouse would
    // otherwise make a Variant of UInt64 and Int64)
    let mut main: Vec<String> = cols
        .iter()
        .map(|(e, n)| format!("CAST({e} AS {}) AS {n}", column_type(n, d)))
        .collect();
    main.push(format!("CAST(NULL AS {}) AS {}", d.bigint(), key::BUCKET));
    main.push(format!(
        "CAST({bucket_us} AS {}) AS {}",
        d.bigint(),
        key::BUCKET_US
    ));
    let on = |a: &str| format!("{a}.host = p.host AND {a}.gpu = p.gpu");
    let gpus = format!(
        "SELECT\n  {}\nFROM parts p\n  CROSS JOIN present pr\n  LEFT JOIN gpu_counts c ON {}\n  LEFT JOIN gpu_last l ON {}\n  LEFT JOIN gpu_jobs j ON {}\n  LEFT JOIN gpu_users us ON {}",
        main.join(",\n  "),
        on("c"),
        on("l"),
        on("j"),
        on("us")
    );
    let Some(b) = plan.bucket_us else {
        return format!(
            "{gpus}\nORDER BY {}, {}, {}, {}",
            key::HOST,
            key::GPU,
            key::MODEL,
            key::GROUP
        );
    };
    // bucket rows: the same columns, the sums of the bucket, no GPU
    let mut rows: Vec<String> = cols
        .iter()
        .map(|(e, n)| {
            if SUMS.iter().any(|s| s.name == *n) {
                let t = column_type(n, d);
                match metric_of_name(n) {
                    Some(m) => {
                        format!("CAST(CASE WHEN pr.n_{m} > 0 THEN bp.{n} END AS {t}) AS {n}")
                    }
                    None => format!("CAST(bp.{n} AS {t}) AS {n}"),
                }
            } else if *n == key::HELD_RULE || *n == key::GROUPED_BY {
                format!("CAST({e} AS {}) AS {n}", column_type(n, d))
            } else {
                format!("CAST(NULL AS {}) AS {n}", column_type(n, d))
            }
        })
        .collect();
    rows.push(format!("CAST(bp.bk AS {}) AS {}", d.bigint(), key::BUCKET));
    rows.push(format!("CAST({b} AS {}) AS {}", d.bigint(), key::BUCKET_US));
    format!(
        "SELECT * FROM (\n{gpus}\nUNION ALL\nSELECT\n  {}\nFROM bucket_parts bp CROSS JOIN present pr\n) answer\nORDER BY {}, {}, {}, {}, {}",
        rows.join(",\n  "),
        key::BUCKET,
        key::HOST,
        key::GPU,
        key::MODEL,
        key::GROUP
    )
}

/// The metric a sum (by name) needs measured, for null-when-absent.
fn metric_of_name(name: &str) -> Option<&'static str> {
    SUMS.iter()
        .find(|s| s.name == name)
        .and_then(|s| metric_of(s.value, s.filter))
}

/// A column's SQL type, for the NULLs of the rows that lack it.
fn column_type(name: &str, d: Dialect) -> &'static str {
    let text = [
        key::HOST,
        key::GPU,
        key::MODEL,
        key::GROUP,
        key::JOBS,
        key::USERS,
        key::HELD_RULE,
        key::GROUPED_BY,
    ];
    if text.contains(&name) {
        d.text()
    } else if name == key::LAST_POWER || name.ends_with("_h") {
        d.double()
    } else {
        d.bigint()
    }
}

/// The per-GPU row's columns: (expression, name), in the answer's order.
fn gpu_columns(plan: &AuditPlan, d: Dialect) -> Vec<(String, &'static str)> {
    let grouped_by = match plan.group_column() {
        Some(c) => format!("'{c}'"),
        None => format!("CAST(NULL AS {})", d.text()),
    };
    let mut cols: Vec<(String, &'static str)> = vec![
        (format!("'{}'", plan.held_rule_name()), key::HELD_RULE),
        (grouped_by, key::GROUPED_BY),
        ("p.host".into(), key::HOST),
        ("p.gpu".into(), key::GPU),
        ("p.model".into(), key::MODEL),
        ("p.grp".into(), key::GROUP),
        ("p.start_us".into(), key::START_US),
        ("p.end_us".into(), key::END_US),
        ("p.last_us".into(), key::LAST_US),
        (format!("CAST(p.single AS {})", d.bigint()), key::SINGLE),
        (
            format!("CAST(p.single_weight_us AS {})", d.bigint()),
            key::SINGLE_WEIGHT,
        ),
    ];
    for s in SUMS {
        match metric_of(s.value, s.filter) {
            Some(m) => cols.push((
                format!("CASE WHEN pr.n_{m} > 0 THEN p.{} END", s.name),
                s.name,
            )),
            None => cols.push((format!("p.{}", s.name), s.name)),
        }
    }
    cols.extend([
        ("COALESCE(c.duplicates, 0)".to_string(), key::DUPLICATES),
        (
            format!("CAST(COALESCE(pr.outside, 0) AS {})", d.bigint()),
            key::OUTSIDE,
        ),
        // 1/0: every engine writes an integer alike (ClickHouse's booleans are UInt8)
        (
            format!(
                "CAST(CASE WHEN l.held THEN 1 WHEN NOT l.held THEN 0 END AS {})",
                d.bigint()
            ),
            key::LAST_HELD,
        ),
        (
            format!("CAST(l.mem_used AS {})", d.bigint()),
            key::LAST_MEM_USED,
        ),
        (
            format!("CAST(l.mem_total AS {})", d.bigint()),
            key::LAST_MEM_TOTAL,
        ),
        ("l.power_w".to_string(), key::LAST_POWER),
        ("j.owners".to_string(), key::JOBS),
        ("us.owners".to_string(), key::USERS),
    ]);
    cols
}

/// DCGM fields of the OpenTelemetry table, the canonical column each fills
/// and the factor to its unit (GPU_UTIL is percent, scaled × `rules::PERCENT`
/// as the readers scale it; FB_USED MiB).
const OTEL_METRICS: [(&str, &str, &str); 7] = [
    ("DCGM_FI_DEV_GPU_UTIL", col::DEVICE_UTIL, " * 0.01"),
    ("DCGM_FI_PROF_SM_ACTIVE", col::SM_ACTIVE, ""),
    ("DCGM_FI_PROF_SM_OCCUPANCY", col::SM_OCCUPANCY, ""),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", col::TENSOR_ACTIVE, ""),
    ("DCGM_FI_PROF_DRAM_ACTIVE", col::DRAM_ACTIVE, ""),
    ("DCGM_FI_DEV_FB_USED", col::MEM_USED_BYTES, " * 1048576"),
    ("DCGM_FI_DEV_POWER_USAGE", col::POWER_W, ""),
];

/// The canonical columns the OpenTelemetry pivot gives.
pub const OTEL_COLUMNS: [&str; 13] = [
    col::TIME,
    col::HOST,
    col::GPU,
    col::MODEL,
    col::JOB,
    col::TEAM,
    col::DEVICE_UTIL,
    col::SM_ACTIVE,
    col::SM_OCCUPANCY,
    col::TENSOR_ACTIVE,
    col::DRAM_ACTIVE,
    col::MEM_USED_BYTES,
    col::POWER_W,
];

/// The OpenTelemetry ClickHouse exporter's gauge table (`otel_metrics_gauge`:
/// one row per metric point, the Prometheus labels in `Attributes`) as the
/// canonical wide table, one row per (time, GPU): labels read as the
/// Prometheus reader reads them (`source::prometheus`: host, GPU and model
/// labels in order; the owner from `exported_pod`, else `pod`, else
/// `hpc_job`, never the exporter's own pod).
pub fn otel_table(table: &str) -> String {
    use crate::source::prometheus::{GPU_LABELS, HOST_LABELS, MODEL_LABELS};
    let attr = |l: &str| format!("Attributes['{l}']");
    let first = |labels: &[&str]| {
        let arms: Vec<String> = labels
            .iter()
            .map(|l| format!("{} != '', {}", attr(l), attr(l)))
            .collect();
        format!("multiIf({}, '')", arms.join(", "))
    };
    let exporter = |pod: &str, container: &str| {
        let tests: Vec<String> = [pod, container]
            .iter()
            .flat_map(|l| {
                rules::EXPORTER_POD_MARKERS
                    .iter()
                    .map(move |m| format!("position(lower({}), '{m}') > 0", attr(l)))
            })
            .collect();
        format!("({})", tests.join(" OR "))
    };
    // the owner pods in the reader's order (`plan::rules::OWNER_PODS`)
    let [(epod, econt, ens), (pod_l, cont, ns)] = rules::OWNER_PODS;
    let exported = format!("{} != '' AND NOT {}", attr(epod), exporter(epod, econt));
    let pod = format!("{} != '' AND NOT {}", attr(pod_l), exporter(pod_l, cont));
    let job = format!(
        "multiIf({exported}, {}, {pod}, {}, {})",
        attr(epod),
        attr(pod_l),
        attr("hpc_job")
    );
    let team = format!(
        "multiIf({exported}, {}, {pod}, {}, '')",
        attr(ens),
        attr(ns)
    );
    let metrics: Vec<String> = OTEL_METRICS
        .iter()
        .map(|(name, canonical, scale)| {
            format!("    maxIfOrNull(Value, MetricName = '{name}'){scale} AS {canonical}")
        })
        .collect();
    let names: Vec<String> = OTEL_METRICS
        .iter()
        .map(|(n, _, _)| format!("'{n}'"))
        .collect();
    format!(
        "(\n  SELECT TimeUnix AS time,\n    {} AS host,\n    {} AS gpu,\n    {} AS model,\n    {job} AS job,\n    {team} AS team,\n{}\n  FROM {table}\n  WHERE MetricName IN ({})\n  GROUP BY time, host, gpu, model, job, team\n) AS otel",
        first(HOST_LABELS),
        first(GPU_LABELS),
        first(MODEL_LABELS),
        metrics.join(",\n"),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_held_rule_reads_the_words_the_reader_reads() {
        let (held, unknown) = held_sql(HeldRule::HeldColumn);
        for w in crate::audit::held::HELD_TRUE {
            assert!(held.contains(&format!("'{w}'")), "{w}");
        }
        for w in crate::audit::held::HELD_FALSE {
            assert!(unknown.contains(&format!("'{w}'")), "{w}");
        }
        assert_eq!(
            held_sql(HeldRule::Memory(1 << 30)).0,
            "(s.mem_used IS NOT NULL AND s.mem_used > 1073741824)"
        );
        assert_eq!(held_sql(HeldRule::JobColumn).0, "(s.job IS NOT NULL)");
    }

    #[test]
    fn percent_is_scaled_as_the_readers_scale_it() {
        assert_eq!(OTEL_METRICS[0].2, format!(" * {:?}", rules::PERCENT));
        let plan = AuditPlan {
            table: "t".into(),
            columns: vec![("time".into(), "time".into()), ("gpu".into(), "gpu".into())],
            held: HeldRule::Assumed,
            idle_below: 0.35,
            max_gap_us: None,
            interval_us: None,
            since_us: None,
            until_us: None,
            by: None,
            bucket_us: None,
        };
        let q = render(&plan, Dialect::DuckDb);
        assert!(q.contains("THEN s.raw_device_util * 0.01 END"), "{q}");
        assert!(q.contains("device_util < idle_below"), "{q}");
    }

    #[test]
    fn the_median_is_by_rank_in_integers() {
        // n = 4: ranks 2 and 3, their sum halved by integer division
        assert_eq!(
            median("host, gpu", "diff", "diffs", Dialect::Trino),
            "  SELECT host, gpu, (CAST(MAX(CASE WHEN r = (CAST(n + 1 AS BIGINT) / CAST(2 AS BIGINT)) THEN diff END) + MAX(CASE WHEN r = (CAST(n AS BIGINT) / CAST(2 AS BIGINT)) + 1 THEN diff END) AS BIGINT) / CAST(2 AS BIGINT)) AS step\n  FROM diffs\n  GROUP BY host, gpu"
        );
    }
}
