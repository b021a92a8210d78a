//! A blocking client for the Prometheus HTTP API (also Thanos, Mimir,
//! VictoriaMetrics): auth, timeouts, retries with backoff, and errors that
//! say what the server said. Credentials never appear in messages.
use super::json::{Response, parse_response};
use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use std::io::{Read, Write};
use std::time::Duration;

/// How to authenticate.
#[derive(Clone, Default)]
pub enum Auth {
    #[default]
    None,
    Bearer(String),
    Basic {
        user: String,
        password: String,
    },
}

impl Auth {
    /// What was sent, for messages (never the secret itself).
    fn describe(&self) -> &'static str {
        match self {
            Auth::None => "no credentials were sent",
            Auth::Bearer(_) => "the bearer token (--prom-token / GPUAUDIT_PROM_TOKEN) was rejected",
            Auth::Basic { .. } => {
                "the basic-auth user and password (--prom-user / GPUAUDIT_PROM_PASSWORD) were rejected"
            }
        }
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Auth::None => "None",
            Auth::Bearer(_) => "Bearer(***)",
            Auth::Basic { .. } => "Basic(***)",
        })
    }
}

#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub timeout: Duration,
    pub retries: u32,
    pub auth: Auth,
    pub compression: Compression,
    /// a file every request is appended to (GPUAUDIT_PROM_TRACE, read in cmd/)
    pub trace: Option<std::path::PathBuf>,
}

/// The `Accept-Encoding` a client sends. Gzip is about a sixth of the bytes of
/// a query_range answer, but Prometheus compresses on one core per answer:
/// on 64 MB of answers from a local server the same requests took 4.5 s with
/// gzip and 1.4 s without (benches/results/prometheus-2026-12-04.txt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    Gzip,
    None,
}

impl Compression {
    /// The header's value (ureq decompresses a gzip answer by itself).
    pub fn accept_encoding(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::None => "identity",
        }
    }
}

pub struct Client {
    agent: ureq::Agent,
    /// base URL without credentials or trailing slash
    base: String,
    auth: Auth,
    retries: u32,
    compression: Compression,
    /// `warnings`/`infos` the server attached to answers (partial results), deduplicated
    pub warnings: Vec<String>,
    pub requests: u64,
    /// GPUAUDIT_PROM_TRACE: every request, one JSON line each, for
    /// benches/prometheus.sh to replay with a plain HTTP client
    trace: Option<std::fs::File>,
}

/// The envelope fields the JSON parser does not keep.
#[derive(Deserialize)]
struct Extras {
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    infos: Vec<String>,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// The metadata endpoints' answer: a status and a list.
#[derive(Deserialize)]
struct List<T> {
    status: String,
    #[serde(default = "Vec::new")]
    data: Vec<T>,
}

/// Split `https://user:pass@host/` into the URL without credentials and the credentials.
pub(crate) fn split_userinfo(url: &str) -> (String, Option<(String, String)>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((userinfo, host)) => {
            let (u, p) = userinfo.split_once(':').unwrap_or((userinfo, ""));
            (
                format!("{scheme}://{host}{}", &rest[authority_end..]),
                Some((u.to_string(), p.to_string())),
            )
        }
        None => (url.to_string(), None),
    }
}

/// The request trace file (GPUAUDIT_PROM_TRACE, appended to), if any.
fn trace_file(path: Option<&std::path::Path>) -> Result<Option<std::fs::File>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| {
            format!(
                "GPUAUDIT_PROM_TRACE: cannot write {}",
                path.to_string_lossy()
            )
        })?;
    Ok(Some(file))
}

impl Client {
    pub fn new(url: &str, opts: &ClientOptions) -> Result<Client> {
        let url = url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!(
                "--prometheus '{}': expected an http:// or https:// URL",
                split_userinfo(url).0
            );
        }
        let (base, userinfo) = split_userinfo(url);
        let base = base.trim_end_matches('/').to_string();
        let auth = match (&opts.auth, userinfo) {
            (Auth::None, Some((user, password))) => Auth::Basic { user, password },
            (a, _) => a.clone(),
        };
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(opts.timeout.min(Duration::from_secs(10)))
            .timeout(opts.timeout)
            .user_agent(concat!("gpuaudit/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Client {
            agent,
            base,
            auth,
            retries: opts.retries,
            compression: opts.compression,
            warnings: Vec::new(),
            requests: 0,
            trace: trace_file(opts.trace.as_deref())?,
        })
    }

    /// A client for another thread: the same connection pool, credentials
    /// and trace file; its warnings and request count come back through
    /// [`Client::absorb`].
    pub fn fork(&self) -> Result<Client> {
        let trace = match &self.trace {
            Some(f) => Some(f.try_clone().context("GPUAUDIT_PROM_TRACE")?),
            None => None,
        };
        Ok(Client {
            agent: self.agent.clone(),
            base: self.base.clone(),
            auth: self.auth.clone(),
            retries: self.retries,
            compression: self.compression,
            warnings: Vec::new(),
            requests: 0,
            trace,
        })
    }

    /// What a forked client saw: its requests and the server's warnings.
    pub fn absorb(&mut self, other: Client) {
        self.requests += other.requests;
        for w in other.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }

    /// The server as messages show it (no credentials).
    pub fn base(&self) -> &str {
        &self.base
    }

    fn authorize(&self, req: ureq::Request) -> ureq::Request {
        match &self.auth {
            Auth::None => req,
            Auth::Bearer(t) => req.set("Authorization", &format!("Bearer {t}")),
            Auth::Basic { user, password } => req.set(
                "Authorization",
                &format!(
                    "Basic {}",
                    base64_encode(format!("{user}:{password}").as_bytes())
                ),
            ),
        }
    }

    /// One request: a POST form (query endpoints) or a GET. (ureq's own
    /// result, handed straight to the retry rule: boxing it would buy nothing.)
    #[allow(clippy::result_large_err)]
    fn send(
        &self,
        url: &str,
        params: &[(&str, String)],
        post: bool,
    ) -> Result<ureq::Response, ureq::Error> {
        let req = if post {
            self.agent.post(url)
        } else {
            self.agent.get(url)
        };
        let mut req = self
            .authorize(req)
            .set("Accept-Encoding", self.compression.accept_encoding());
        if post {
            let form: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            req.send_form(&form)
        } else {
            for (k, v) in params {
                req = req.query(k, v);
            }
            req.call()
        }
    }

    /// One API call with retries: a POST form (query endpoints) or a GET.
    /// Returns the body of a 2xx answer; every failure is one clear line.
    fn call(
        &mut self,
        path: &str,
        params: &[(&str, String)],
        post: bool,
        what: &str,
    ) -> Result<String> {
        let url = format!("{}{path}", self.base);
        if let Some(f) = &mut self.trace {
            // one write per line: forked clients append to the same file
            let line = serde_json::json!({
                "path": path,
                "post": post,
                "params": params,
                "accept_encoding": self.compression.accept_encoding(),
            });
            f.write_all(format!("{line}\n").as_bytes())
                .context("GPUAUDIT_PROM_TRACE")?;
        }
        let mut attempt = 0u32;
        loop {
            self.requests += 1;
            let result = self.send(&url, params, post);
            if retryable(&result) && attempt < self.retries {
                // unless the server said how long to wait (429/503 Retry-After),
                // which is honoured up to a bound
                let backoff = backoff(attempt);
                let wait = match &result {
                    Err(ureq::Error::Status(_, resp)) => {
                        retry_after(resp.header("retry-after")).unwrap_or(backoff)
                    }
                    _ => backoff,
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
                    Ok(body) => Ok(body),
                    // A connection reset or cut mid-body is as transient as one
                    // refused: retried, and never taken for a shorter answer.
                    Err(_) if attempt < self.retries => {
                        std::thread::sleep(backoff(attempt));
                        attempt += 1;
                        continue;
                    }
                    Err(e) => Err(anyhow!(
                        "Prometheus at {}: reading the answer to {what}: {e}{tries}",
                        self.base
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
                        "cannot reach Prometheus at {}: {detail}{cause}{tries}",
                        self.base
                    ))
                }
                Err(ureq::Error::Status(code, resp)) => {
                    let status = format!("{code} {}", resp.status_text());
                    let body = read_body(resp).unwrap_or_default();
                    Err(self.status_error(code, &status, &body, what, &tries))
                }
            };
        }
    }

    fn status_error(
        &self,
        code: u16,
        status: &str,
        body: &str,
        what: &str,
        tries: &str,
    ) -> anyhow::Error {
        if code == 401 || code == 403 {
            let hint = match self.auth {
                Auth::None => {
                    " (set a bearer token with GPUAUDIT_PROM_TOKEN or --prom-token, or basic auth with --prom-user and GPUAUDIT_PROM_PASSWORD)"
                }
                _ => "",
            };
            return anyhow!(
                "Prometheus at {} answered {status}: {}{hint}",
                self.base,
                self.auth.describe()
            );
        }
        match serde_json::from_str::<ErrorBody>(body) {
            Ok(ErrorBody {
                error: Some(e),
                error_type,
            }) => anyhow!(
                "Prometheus at {} rejected {what} ({status}{}): {e}{tries}",
                self.base,
                error_type.map(|t| format!(", {t}")).unwrap_or_default()
            ),
            _ => {
                let text = body.trim();
                let text = if text.is_empty() {
                    String::new()
                } else {
                    format!(": {}", crate::text::shorten(text, 300))
                };
                anyhow!(
                    "Prometheus at {} answered {status} to {what}{text}{tries}",
                    self.base
                )
            }
        }
    }

    /// Keep the server's warnings (e.g. a partial answer from a store that was down).
    fn note_extras(&mut self, body: &str) {
        if let Ok(x) = serde_json::from_str::<Extras>(body) {
            for w in x.warnings.into_iter().chain(x.infos) {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
        }
    }

    fn parse(&mut self, body: &str, what: &str) -> Result<Response> {
        self.note_extras(body);
        parse_response(body).map_err(|e| {
            anyhow!(
                "Prometheus at {}: the answer to {what} is not usable: {e:#}",
                self.base
            )
        })
    }

    /// `/api/v1/query_range` (times in epoch µs; the server returns points at start + k*step <= end).
    pub fn query_range(
        &mut self,
        query: &str,
        start_us: i64,
        end_us: i64,
        step_us: i64,
    ) -> Result<Response> {
        let what = format!("the query '{}'", crate::text::shorten(query, 160));
        let params = [
            ("query", query.to_string()),
            ("start", secs(start_us)),
            ("end", secs(end_us)),
            ("step", secs(step_us)),
        ];
        let body = self.call("/api/v1/query_range", &params, true, &what)?;
        self.parse(&body, &what)
    }

    /// `/api/v1/query` at one instant.
    pub fn query(&mut self, query: &str, time_us: i64) -> Result<Response> {
        let what = format!("the query '{}'", crate::text::shorten(query, 160));
        let params = [("query", query.to_string()), ("time", secs(time_us))];
        let body = self.call("/api/v1/query", &params, true, &what)?;
        self.parse(&body, &what)
    }

    /// Values of one label on the series `matcher` selects in [start, end].
    pub fn label_values(
        &mut self,
        label: &str,
        matcher: &str,
        start_us: i64,
        end_us: i64,
    ) -> Result<Vec<String>> {
        let path = format!("/api/v1/label/{label}/values");
        self.list(
            &path,
            false,
            &format!("the values of label '{label}'"),
            "a list of strings",
            matcher,
            start_us,
            end_us,
        )
    }

    /// Label names on the series `matcher` selects in [start, end].
    pub fn label_names(
        &mut self,
        matcher: &str,
        start_us: i64,
        end_us: i64,
    ) -> Result<Vec<String>> {
        self.list(
            "/api/v1/labels",
            true,
            "the label names",
            "a list of strings",
            matcher,
            start_us,
            end_us,
        )
    }

    /// The label sets of the series `matcher` selects in [start, end].
    pub fn series(
        &mut self,
        matcher: &str,
        start_us: i64,
        end_us: i64,
    ) -> Result<Vec<std::collections::BTreeMap<String, String>>> {
        self.list(
            "/api/v1/series",
            true,
            "the series list",
            "a list of label sets",
            matcher,
            start_us,
            end_us,
        )
    }

    /// One metadata call: `match[]` over [start, end], answered with a list.
    #[allow(clippy::too_many_arguments)]
    fn list<T: serde::de::DeserializeOwned>(
        &mut self,
        path: &str,
        post: bool,
        what: &str,
        shape: &str,
        matcher: &str,
        start_us: i64,
        end_us: i64,
    ) -> Result<Vec<T>> {
        let params = [
            ("match[]", matcher.to_string()),
            ("start", secs(start_us)),
            ("end", secs(end_us)),
        ];
        let body = self.call(path, &params, post, what)?;
        self.note_extras(&body);
        let list: List<T> = serde_json::from_str(&body).map_err(|e| {
            anyhow!(
                "Prometheus at {}: the answer to {what} is not {shape}: {e}",
                self.base
            )
        })?;
        if list.status != "success" {
            bail!(
                "Prometheus at {}: {what} failed (status '{}')",
                self.base,
                list.status
            );
        }
        Ok(list.data)
    }
}

/// The longest Retry-After gpuaudit waits: a longer one is a server asking to
/// come back much later, and the retry budget (--prom-retries) is better spent failing clearly.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Worth another try: throttled, a gateway in trouble, or a transport failure
/// other than a malformed URL.
pub(crate) fn retryable(result: &Result<ureq::Response, ureq::Error>) -> bool {
    match result {
        Ok(_) => false,
        Err(ureq::Error::Status(code, _)) => matches!(code, 429 | 502 | 503 | 504),
        Err(ureq::Error::Transport(t)) => !matches!(
            t.kind(),
            ureq::ErrorKind::InvalidUrl
                | ureq::ErrorKind::UnknownScheme
                | ureq::ErrorKind::InvalidProxyUrl
        ),
    }
}

/// The wait before retry `attempt` + 1: 0.5 s, 1 s, 2 s, ... capped at 8 s.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((500u64 << attempt.min(4)).min(8_000))
}

/// A Retry-After header in delay-seconds form, capped; an HTTP date or a
/// malformed value is None (the caller falls back to its own backoff).
pub(crate) fn retry_after(header: Option<&str>) -> Option<Duration> {
    let secs: u64 = header?.trim().parse().ok()?;
    Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER))
}

pub(crate) fn read_body(resp: ureq::Response) -> std::io::Result<String> {
    let mut body = String::new();
    resp.into_reader().read_to_string(&mut body)?;
    Ok(body)
}

/// Epoch µs as the API's seconds ("1751760000.5"): whole seconds bare, else
/// 3 digits, or 6 where the microseconds need them.
pub fn secs(us: i64) -> String {
    let (whole, frac) = (us.div_euclid(1_000_000), us.rem_euclid(1_000_000));
    if frac == 0 {
        format!("{whole}")
    } else if frac % 1_000 == 0 {
        format!("{whole}.{:03}", frac / 1_000)
    } else {
        format!("{whole}.{frac:06}")
    }
}

/// Standard base64 for the basic-auth header (too small a need for a crate).
pub(crate) fn base64_encode(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_the_url() {
        let (u, c) = split_userinfo("https://me:s3cret@prom.example:9090/prom/");
        assert_eq!(u, "https://prom.example:9090/prom/");
        assert_eq!(c, Some(("me".to_string(), "s3cret".to_string())));
        assert_eq!(split_userinfo("http://h:9090").1, None);
    }

    #[test]
    fn basic_auth_encoding() {
        assert_eq!(
            base64_encode(b"Aladdin:open sesame"),
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert_eq!(base64_encode(b"ab"), "YWI=");
    }

    #[test]
    fn retry_after_seconds_are_honoured_and_capped() {
        assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(Some(" 0 ")), Some(Duration::ZERO));
        assert_eq!(retry_after(Some("86400")), Some(MAX_RETRY_AFTER));
        assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after(Some("-1")), None);
        assert_eq!(retry_after(None), None);
    }

    #[test]
    fn api_seconds() {
        assert_eq!(secs(1_751_760_000_000_000), "1751760000");
        assert_eq!(secs(1_751_760_000_500_000), "1751760000.500");
        assert_eq!(secs(1_751_760_000_000_250), "1751760000.000250");
    }
}
