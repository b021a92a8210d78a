//! The only code that formats: table, json, csv, markdown.
pub mod check;
pub mod csv;
pub mod fmt;
pub mod json;
pub mod markdown;
pub mod mfu;
pub mod scan;
pub mod table;
