//! gpuaudit: held vs used GPU-hours, idle episodes and what they cost.
//!
//! Every source becomes one canonical sample table ([`samples`]); the audit
//! ([`audit`]) is pure computation on it; [`render`] is the only code that formats.
pub mod audit;
pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod demo;
pub mod error;
pub mod flops;
#[doc(hidden)]
pub mod fuzzing;
pub mod hardware;
pub mod jobs;
pub mod output;
pub mod prices;
pub mod render;
pub mod samples;
pub mod scan;
pub mod source;
pub mod timeparse;
pub mod units;
