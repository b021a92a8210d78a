//! Prometheus HTTP API responses: `/api/v1/query` (vector) and
//! `/api/v1/query_range` (matrix). [`parse_response`] works on a body, so the
//! live-Prometheus reader can share it with the file reader.
use super::text::parse_value;
use super::{PromSample, PromSeries};
use crate::timeparse::epoch_number_to_us;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One series of a response: its labels (`__name__` included when the query
/// kept it) and its points as (epoch µs, value); NaN = no value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    pub points: Vec<(i64, f64)>,
}

/// Why a body is not a usable response, and the line of the body that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ResponseError {}

fn fail<T>(line: usize, message: String) -> Result<T, ResponseError> {
    Err(ResponseError { line, message })
}

/// A parsed response: the result type and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub result_type: String,
    pub series: Vec<Series>,
}

#[derive(Deserialize)]
struct Envelope {
    status: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Data {
    #[serde(rename = "resultType")]
    result_type: String,
    result: serde_json::Value,
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default)]
    value: Option<(serde_json::Value, String)>,
    #[serde(default)]
    values: Option<Vec<(serde_json::Value, String)>>,
}

/// The usual answer, read straight into series: no JSON tree, value strings
/// borrowed from the body (a matrix of 40,000 points is 40,000 small
/// allocations fewer per field). Anything unusual (times as strings, escapes
/// in values, an error status) fails here and takes the checked path below,
/// which names what is wrong.
#[derive(Deserialize)]
struct FastEnvelope<'a> {
    status: &'a str,
    #[serde(borrow)]
    data: FastData<'a>,
}

#[derive(Deserialize)]
struct FastData<'a> {
    #[serde(rename = "resultType")]
    result_type: &'a str,
    #[serde(borrow)]
    result: Vec<FastSeries<'a>>,
}

#[derive(Deserialize)]
struct FastSeries<'a> {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default, borrow)]
    value: Option<(f64, &'a str)>,
    #[serde(default, borrow)]
    values: Option<Vec<(f64, &'a str)>>,
}

/// [`parse_response`]'s fast path; None: let the checked path decide.
fn parse_fast(body: &str) -> Option<Response> {
    let env: FastEnvelope = serde_json::from_str(body).ok()?;
    let kind = env.data.result_type;
    if env.status != "success" || !matches!(kind, "vector" | "matrix") {
        return None;
    }
    let mut series = Vec::with_capacity(env.data.result.len());
    for raw in env.data.result {
        let pairs = match (raw.value, raw.values) {
            (Some(v), _) => vec![v],
            (None, Some(vs)) => vs,
            (None, None) => return None,
        };
        let mut points = Vec::with_capacity(pairs.len());
        for (t, v) in pairs {
            points.push((epoch_number_to_us(t)?, parse_value(v.trim())?));
        }
        series.push(Series {
            labels: raw.metric,
            points,
        });
    }
    Some(Response {
        result_type: kind.to_string(),
        series,
    })
}

/// Parse a response body. Errors say what was expected and, for syntax
/// errors, the line ("line 3: ..."); the caller adds the file name.
pub fn parse_response(body: &str) -> Result<Response, ResponseError> {
    if let Some(r) = parse_fast(body) {
        return Ok(r);
    }
    parse_checked(body)
}

/// The checked path: every field looked at, every failure named.
fn parse_checked(body: &str) -> Result<Response, ResponseError> {
    let env: Envelope = match serde_json::from_str(body) {
        Ok(e) => e,
        Err(e) => {
            return fail(
                e.line().max(1),
                format!(
                    "not a Prometheus API response (expected {{\"status\": ..., \"data\": {{\"resultType\": ..., \"result\": [...]}}}}): {e}"
                ),
            );
        }
    };
    if env.status != "success" {
        return fail(
            1,
            format!(
                "the query failed: status '{}' {}{}",
                env.status,
                env.error_type.as_deref().unwrap_or(""),
                env.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
        );
    }
    let Some(data) = env.data else {
        let line = body.trim_end().lines().count().max(1);
        return fail(
            line,
            "the response has no 'data' (expected \"data\": {\"resultType\": ..., \"result\": [...]})".into(),
        );
    };
    let data: Data = serde_json::from_value(data).map_err(|e| ResponseError {
        line: line_of(body, "\"data\""),
        message: format!("'data' is not {{\"resultType\": ..., \"result\": [...]}}: {e}"),
    })?;
    let series = match data.result_type.as_str() {
        "vector" | "matrix" => {
            let raw: Vec<RawSeries> =
                serde_json::from_value(data.result).map_err(|e| ResponseError {
                    line: line_of(body, "\"result\""),
                    message: format!(
                        "'result' is not a list of {{\"metric\": ..., \"value(s)\": ...}}: {e}"
                    ),
                })?;
            raw.into_iter()
                .map(|r| to_series(r, body))
                .collect::<Result<Vec<_>, _>>()?
        }
        other => {
            return fail(
                line_of(body, "\"resultType\""),
                format!(
                    "result type '{other}' holds no GPU series (expected a vector or a matrix: query a metric such as DCGM_FI_DEV_GPU_UTIL)"
                ),
            );
        }
    };
    Ok(Response {
        result_type: data.result_type,
        series,
    })
}

fn line_of(body: &str, needle: &str) -> usize {
    body.find(needle)
        .map_or(1, |i| body[..i].lines().count().max(1))
}

fn to_series(raw: RawSeries, body: &str) -> Result<Series, ResponseError> {
    let pairs: Vec<(serde_json::Value, String)> = match (raw.value, raw.values) {
        (Some(v), _) => vec![v],
        (None, Some(vs)) => vs,
        (None, None) => {
            return fail(
                line_of(body, "\"metric\""),
                "a series has neither 'value' nor 'values'".into(),
            );
        }
    };
    let mut points = Vec::with_capacity(pairs.len());
    for (t, v) in pairs {
        let secs = match &t {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(s) => s.parse::<f64>().ok(),
            _ => None,
        };
        let us = secs
            .and_then(epoch_number_to_us)
            .ok_or_else(|| ResponseError {
                line: line_of(body, &t.to_string()),
                message: format!("'{t}' is not a sample time (expected epoch seconds)"),
            })?;
        // Values arrive as strings; "NaN" and stale markers mean no value.
        let value = parse_value(v.trim()).ok_or_else(|| ResponseError {
            line: line_of(body, &format!("\"{v}\"")),
            message: format!("'{v}' is not a sample value (expected a number as a string)"),
        })?;
        points.push((us, value));
    }
    Ok(Series {
        labels: raw.metric,
        points,
    })
}

/// The response's series, each named by its `__name__` or, where a function
/// dropped it, `fallback_metric`; also how many were unnamed.
pub fn named_series(response: Response, fallback_metric: &str) -> (Vec<PromSeries>, u64) {
    let mut unnamed = 0;
    let series = response
        .series
        .into_iter()
        .map(|mut s| {
            let metric = s.labels.remove("__name__").unwrap_or_else(|| {
                unnamed += 1;
                fallback_metric.to_string()
            });
            PromSeries {
                metric,
                labels: s.labels,
                points: s.points,
            }
        })
        .collect();
    (series, unnamed)
}

/// Flatten series into samples; a series without `__name__` (a function
/// dropped it) is named `fallback_metric`.
pub fn to_samples(response: Response, fallback_metric: &str) -> (Vec<PromSample>, u64) {
    let mut unnamed = 0;
    let mut out = Vec::new();
    for mut s in response.series {
        let metric = match s.labels.remove("__name__") {
            Some(m) => m,
            None => {
                unnamed += 1;
                fallback_metric.to_string()
            }
        };
        for (t, v) in s.points {
            out.push(PromSample {
                metric: metric.clone(),
                labels: s.labels.clone(),
                value: v,
                time_us: Some(t),
            });
        }
    }
    (out, unnamed)
}

/// Whether the head of a file is an API response (for sniffing).
pub fn looks_like_response(head: &str) -> bool {
    let h = head.trim_start();
    h.starts_with('{')
        && h.contains("\"status\"")
        && (h.contains("\"data\"") || h.contains("\"success\"") || h.contains("\"error"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_and_matrix() -> Result<(), ResponseError> {
        let v = r#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"value":[1771529464.57,"7"]}]}}"#;
        let r = parse_response(v)?;
        assert_eq!(r.series[0].points, vec![(1_771_529_464_570_000, 7.0)]);
        let m = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"gpu":"0"},"values":[[1771529400,"1"],[1771529430,"NaN"]]}]}}"#;
        let r = parse_response(m)?;
        assert_eq!(r.series[0].points.len(), 2);
        assert!(r.series[0].points[1].1.is_nan());
        let (s, unnamed) = to_samples(r, "util");
        assert_eq!(unnamed, 1);
        assert_eq!(s[0].metric, "util");
        Ok(())
    }

    #[test]
    fn the_fast_path_and_the_checked_path_agree() {
        for body in [
            r#"{"status":"success","data":{"resultType":"matrix","result":[
                {"metric":{"__name__":"m","gpu":"0"},"values":[[1771529400,"1"],[1771529430.5,"NaN"],[1771529460,"+Inf"]]},
                {"metric":{},"values":[]}]}}"#,
            r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"gpu":"1"},"value":[1771529464.57," 7 "]}]},"warnings":["w"]}"#,
        ] {
            let fast = parse_fast(body).expect("the usual answer takes the fast path");
            let checked = parse_checked(body).expect("and the checked one reads it too");
            assert_eq!(format!("{fast:?}"), format!("{checked:?}"));
        }
        // times as strings: only the checked path reads them
        let strings = r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":["1771529464","7"]}]}}"#;
        assert!(parse_fast(strings).is_none());
        assert_eq!(
            parse_response(strings).map(|r| r.series[0].points.clone()),
            Ok(vec![(1_771_529_464_000_000, 7.0)])
        );
    }

    #[test]
    fn errors_name_a_line() {
        let e = |b: &str| {
            parse_response(b)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(
            e("{\"status\":\"success\"\n}\n").starts_with("line 2: the response has no 'data'")
        );
        assert!(e("{\"status\": \n").starts_with("line "));
        assert!(
            e(r#"{"status":"error","errorType":"bad_data","error":"parse error"}"#)
                .contains("parse error")
        );
        assert!(
            e(r#"{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}"#)
                .contains("scalar")
        );
    }
}
