//! Text for the diagnosis sections (§8-§12): table text and markdown. Only
//! formatting: every figure comes computed in the section.
pub mod jobs;
