//! `report --clickhouse URL` / `--trino URL`: `gpuaudit sql`'s query sent to
//! an engine's HTTP API and its answer read as the partial-sums table
//! (docs/semantics.md §14). The transport rules are the Prometheus client's
//! (`source::prometheus::http`): credentials from the flags, the environment
//! (through clap) or the URL's userinfo, never in a message; a timeout per
//! request; retries with backoff of a request that failed to connect, was
//! cut off mid-answer or got 429/502/503/504 (a Retry-After honoured up to
//! 60 s). The query only reads, so sending it again is safe.
mod clickhouse;
mod trino;

use crate::source::prometheus::http::{
    backoff, base64_encode, read_body, retry_after, retryable, split_userinfo,
};
use anyhow::{Result, anyhow, bail};
use polars::prelude::DataFrame;
use std::time::Duration;

/// Which HTTP API the engine speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// ClickHouse's HTTP interface: the query POSTed, the answer CSVWithNames
    ClickHouse,
    /// Trino's REST protocol: POST /v1/statement, then `nextUri` until done
    Trino,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::ClickHouse => "ClickHouse",
            EngineKind::Trino => "Trino",
        }
    }
}

/// An engine, its credentials and the query to run, typed (cmd/ builds it).
#[derive(Clone)]
pub struct EngineQuery {
    pub kind: EngineKind,
    pub url: String,
    /// the plan rendered in the engine's dialect
    pub query: String,
    pub user: Option<String>,
    pub password: Option<String>,
    /// per request (positive)
    pub timeout: Duration,
    pub retries: u32,
}

impl std::fmt::Debug for EngineQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineQuery")
            .field("kind", &self.kind)
            .field("url", &split_userinfo(&self.url).0)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .finish_non_exhaustive()
    }
}

/// The engine's answer as a table, and the engine as messages name it.
pub fn fetch(q: &EngineQuery) -> Result<(DataFrame, String)> {
    let conn = Connection::new(q)?;
    let frame = match q.kind {
        EngineKind::ClickHouse => clickhouse::run(&conn, &q.query)?,
        EngineKind::Trino => trino::run(&conn, &q.query)?,
    };
    Ok((frame, conn.server))
}

/// One engine's HTTP connection: the agent, the URL without credentials,
/// and the credentials.
struct Connection {
    agent: ureq::Agent,
    /// base URL without credentials or trailing slash
    base: String,
    /// "ClickHouse at http://..." for messages
    server: String,
    user: Option<String>,
    password: Option<String>,
    retries: u32,
}

/// A 2xx answer's body, or the status and body of another.
enum Answer {
    Ok(String),
    Status {
        code: u16,
        text: String,
        body: String,
    },
}

impl Connection {
    fn new(q: &EngineQuery) -> Result<Connection> {
        let url = q.url.trim();
        let (base, userinfo) = split_userinfo(url);
        let flag = match q.kind {
            EngineKind::ClickHouse => "--clickhouse",
            EngineKind::Trino => "--trino",
        };
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            bail!("{flag} '{base}': expected an http:// or https:// URL");
        }
        let base = base.trim_end_matches('/').to_string();
        let (user, password) = match (&q.user, userinfo) {
            (None, Some((u, p))) => (Some(u), Some(p)),
            (u, _) => (u.clone(), q.password.clone()),
        };
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(q.timeout.min(Duration::from_secs(10)))
            .timeout(q.timeout)
            .user_agent(concat!("gpuaudit/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Connection {
            agent,
            server: format!("{} at {base}", q.kind.name()),
            base,
            user,
            password,
            retries: q.retries,
        })
    }

    /// `Authorization: Basic` of the user and password, when a password is given.
    fn basic(&self) -> Option<String> {
        let (u, p) = (self.user.as_deref()?, self.password.as_deref()?);
        Some(format!(
            "Basic {}",
            base64_encode(format!("{u}:{p}").as_bytes())
        ))
    }

    /// One request with the retry rule; transport failures that outlast the
    /// retries are one line naming the server.
    #[allow(clippy::result_large_err)]
    fn request(
        &self,
        what: &str,
        send: &dyn Fn() -> Result<ureq::Response, ureq::Error>,
    ) -> Result<Answer> {
        let mut attempt = 0u32;
        loop {
            let result = send();
            if retryable(&result) && attempt < self.retries {
                let wait = match &result {
                    Err(ureq::Error::Status(_, resp)) => {
                        retry_after(resp.header("retry-after")).unwrap_or(backoff(attempt))
                    }
                    _ => backoff(attempt),
                };
                std::thread::sleep(wait);
                attempt += 1;
                continue;
            }
            let tries = if attempt > 0 {
                format!(" (after {} tries)", attempt + 1)
            } else {
                String::new()
            };
            return match result {
                Ok(resp) => match read_body(resp) {
                    Ok(body) => Ok(Answer::Ok(body)),
                    Err(_) if attempt < self.retries => {
                        std::thread::sleep(backoff(attempt));
                        attempt += 1;
                        continue;
                    }
                    Err(e) => Err(anyhow!(
                        "{}: reading the answer to {what}: {e}{tries}",
                        self.server
                    )),
                },
                Err(ureq::Error::Transport(t)) => {
                    let detail = t
                        .message()
                        .map(str::to_string)
                        .unwrap_or_else(|| t.kind().to_string());
                    let cause = std::error::Error::source(&t)
                        .map(|s| format!(": {s}"))
                        .unwrap_or_default();
                    Err(anyhow!(
                        "cannot reach {}: {detail}{cause}{tries}",
                        self.server
                    ))
                }
                Err(ureq::Error::Status(code, resp)) => {
                    let text = resp.status_text().to_string();
                    let body = read_body(resp).unwrap_or_default();
                    Ok(Answer::Status { code, text, body })
                }
            };
        }
    }

    /// The error of a non-2xx answer: credentials refused, or what the server said.
    fn status_error(&self, code: u16, text: &str, message: &str) -> anyhow::Error {
        if code == 401 || code == 403 {
            let sent = match (&self.user, &self.password) {
                (None, _) => {
                    "no user was sent (--sql-user / GPUAUDIT_SQL_USER, GPUAUDIT_SQL_PASSWORD, or user:password@ in the URL)"
                }
                _ => "the user and password (--sql-user / GPUAUDIT_SQL_PASSWORD) were rejected",
            };
            return anyhow!("{} answered {code} {text}: {sent}", self.server);
        }
        let message = message.trim();
        if message.is_empty() {
            anyhow!("{} answered {code} {text}", self.server)
        } else {
            anyhow!(
                "{} answered {code} {text}: {}",
                self.server,
                crate::text::shorten(message, 600)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_stay_out_of_the_server_name_and_debug() {
        let q = EngineQuery {
            kind: EngineKind::Trino,
            url: "http://me:s3cret@trino:8080/".to_string(),
            query: String::new(),
            user: None,
            password: None,
            timeout: Duration::from_secs(1),
            retries: 0,
        };
        let conn = Connection::new(&q).expect("a URL");
        assert_eq!(conn.server, "Trino at http://trino:8080");
        assert_eq!(conn.user.as_deref(), Some("me"));
        assert_eq!(conn.basic().as_deref(), Some("Basic bWU6czNjcmV0"));
        assert!(!format!("{q:?}").contains("s3cret"));
        let bad = EngineQuery {
            url: "trino:8080".to_string(),
            ..q
        };
        let err = Connection::new(&bad).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("--trino 'trino:8080': expected an http:// or https:// URL")
        );
    }
}
