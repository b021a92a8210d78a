//! Job and findings tables (§12): written by issue 16 part B.
//! Placeholder so the diagnosis renderers compile on their own branch.
