//! gpuaudit: held vs used GPU-hours, idle episodes and what they cost.
//!
//! Every source becomes one canonical sample table ([`samples`]); the audit
//! ([`audit`]) is pure computation on it; [`render`] is the only code that formats.
pub mod audit;
pub mod catalog;
pub mod cli;
pub mod cmd;
pub(crate) mod demo;
pub mod error;
/// Entry points for the cargo-fuzz targets in fuzz/ (not an API). They panic
/// on a broken invariant, so only the fuzz crate and the tests build them
/// (feature `fuzzing`).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod metric;
pub(crate) mod output;
pub(crate) mod pipeline;
pub(crate) mod plan;
pub(crate) mod progress;
pub(crate) mod render;
pub(crate) mod samples;
pub(crate) mod source;
pub(crate) mod text;
pub(crate) mod timeparse;
pub(crate) mod units;
