//! Trino's REST protocol: POST /v1/statement with X-Trino-User, then GET
//! each `nextUri` until the answer has none; `columns` and the pages of
//! `data` make the table, an `error` object is the engine's message.
use super::{Answer, Connection};
use anyhow::{Result, anyhow, bail};
use polars::prelude::*;
use serde::Deserialize;

/// The user Trino is told when none is given (it requires one).
const DEFAULT_USER: &str = "gpuaudit";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[serde(default)]
    next_uri: Option<String>,
    #[serde(default)]
    columns: Option<Vec<Column>>,
    #[serde(default)]
    data: Option<Vec<Vec<serde_json::Value>>>,
    #[serde(default)]
    error: Option<QueryError>,
}

#[derive(Deserialize)]
struct Column {
    name: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryError {
    #[serde(default)]
    message: String,
    #[serde(default)]
    error_name: Option<String>,
}

#[allow(clippy::result_large_err)] // ureq's own error, handed to the retry rule
pub(super) fn run(conn: &Connection, query: &str) -> Result<DataFrame> {
    let user = conn.user.as_deref().unwrap_or(DEFAULT_USER);
    let auth = conn.basic();
    let with_headers = |req: ureq::Request| {
        let req = req.set("X-Trino-User", user);
        match &auth {
            Some(a) => req.set("Authorization", a),
            None => req,
        }
    };
    let first = format!("{}/v1/statement", conn.base);
    let body = answer(
        conn,
        "the audit's query",
        conn.request("the audit's query", &|| {
            with_headers(conn.agent.post(&first)).send_string(query)
        })?,
    )?;
    let mut page = parse(conn, &body)?;
    let mut columns: Option<Vec<Column>> = None;
    let mut rows: Vec<Vec<serde_json::Value>> = Vec::new();
    let mut pages = 1u64;
    loop {
        if let Some(e) = page.error {
            bail!(
                "{}: the query failed{}: {}",
                conn.server,
                e.error_name.map(|n| format!(" ({n})")).unwrap_or_default(),
                e.message
            );
        }
        if columns.is_none() {
            columns = page.columns;
        }
        rows.extend(page.data.unwrap_or_default());
        let Some(next) = page.next_uri else { break };
        pages += 1;
        let what = format!("page {pages} of the answer");
        let body = answer(
            conn,
            &what,
            conn.request(&what, &|| with_headers(conn.agent.get(&next)).call())?,
        )?;
        page = parse(conn, &body)?;
    }
    let Some(columns) = columns else {
        bail!(
            "{}: the query ended without an answer (no columns)",
            conn.server
        );
    };
    frame(&columns, &rows).map_err(|e| anyhow!("{}: the answer is not a table: {e:#}", conn.server))
}

fn answer(conn: &Connection, what: &str, a: Answer) -> Result<String> {
    match a {
        Answer::Ok(body) => Ok(body),
        Answer::Status { code, text, body } => {
            Err(conn.status_error(code, &text, &body)).map_err(|e| e.context(what.to_string()))
        }
    }
}

fn parse(conn: &Connection, body: &str) -> Result<Page> {
    serde_json::from_str(body).map_err(|e| {
        anyhow!(
            "{}: not a Trino protocol answer ({e}): {}",
            conn.server,
            crate::text::shorten(body.trim(), 200)
        )
    })
}

/// Cell `i` of a row, None when null or missing.
fn cell(r: &[serde_json::Value], i: usize) -> Option<&serde_json::Value> {
    r.get(i).filter(|v| !v.is_null())
}

/// The table of `columns` (Trino's types: integers, doubles, booleans, else
/// text) over the rows of every page.
fn frame(columns: &[Column], rows: &[Vec<serde_json::Value>]) -> Result<DataFrame> {
    let mut cols = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let kind = c.kind.to_ascii_lowercase();
        let name = PlSmallStr::from(c.name.as_str());
        let series = if matches!(kind.as_str(), "bigint" | "integer" | "smallint" | "tinyint") {
            let v: Vec<Option<i64>> = rows
                .iter()
                .map(|r| cell(r, i).and_then(|v| v.as_i64()))
                .collect();
            Series::new(name, v)
        } else if kind == "double" || kind == "real" || kind.starts_with("decimal") {
            let v: Vec<Option<f64>> = rows
                .iter()
                .map(|r| {
                    cell(r, i).and_then(|v| match v {
                        serde_json::Value::String(s) => s.parse().ok(),
                        v => v.as_f64(),
                    })
                })
                .collect();
            Series::new(name, v)
        } else if kind == "boolean" {
            let v: Vec<Option<bool>> = rows
                .iter()
                .map(|r| cell(r, i).and_then(|v| v.as_bool()))
                .collect();
            Series::new(name, v)
        } else {
            let v: Vec<Option<String>> = rows
                .iter()
                .map(|r| {
                    cell(r, i).map(|v| match v {
                        serde_json::Value::String(s) => s.clone(),
                        v => v.to_string(),
                    })
                })
                .collect();
            Series::new(name, v)
        };
        cols.push(series.into());
    }
    Ok(DataFrame::new(rows.len(), cols)?)
}
