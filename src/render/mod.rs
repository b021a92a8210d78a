//! The only code that formats: table, json, csv, markdown, html.
pub mod check;
pub mod cost;
pub mod csv;
pub mod diagnosis;
pub mod diagnostics;
pub mod fmt;
pub mod glossary;
pub mod grid;
pub mod html;
pub mod json;
pub mod markdown;
pub mod mfu;
pub mod notes;
pub mod scan;
pub mod table;
pub mod vendors;
pub mod wrap;
