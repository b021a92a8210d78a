//! ClickHouse's HTTP interface: the query POSTed as the body, the answer
//! asked for as CSVWithNames (`default_format`), buffered until the query
//! ends (`wait_end_of_query=1`) so an error is a status, never a half table.
//! The user and password go as X-ClickHouse-User / X-ClickHouse-Key.
use super::{Answer, Connection};
use anyhow::{Result, anyhow};
use polars::prelude::DataFrame;

/// Settings in the URL: the answer's format and the buffering.
const PARAMS: &str = "default_format=CSVWithNames&wait_end_of_query=1";

#[allow(clippy::result_large_err)] // ureq's own error, handed to the retry rule
pub(super) fn run(conn: &Connection, query: &str) -> Result<DataFrame> {
    let sep = if conn.base.contains('?') { '&' } else { '?' };
    let url = if conn.base.contains('?') {
        format!("{}{sep}{PARAMS}", conn.base)
    } else {
        format!("{}/{sep}{PARAMS}", conn.base)
    };
    let send = || {
        let mut req = conn
            .agent
            .post(&url)
            .set("Content-Type", "text/plain; charset=utf-8");
        if let Some(u) = &conn.user {
            req = req.set("X-ClickHouse-User", u);
        }
        if let Some(p) = &conn.password {
            req = req.set("X-ClickHouse-Key", p);
        }
        req.send_string(query)
    };
    match conn.request("the audit's query", &send)? {
        Answer::Ok(body) => super::super::partials::frame_of_bytes(body.into_bytes(), &conn.server)
            .map_err(|e| {
                anyhow!(
                    "{}: the answer is not the partial-sums table: {e:#}",
                    conn.server
                )
            }),
        // ClickHouse words an error "Code: 60. DB::Exception: Table ... does not exist. (UNKNOWN_TABLE)"
        Answer::Status { code, text, body } => Err(conn.status_error(code, &text, &body)),
    }
}
