//! Job features, shapes and effective training time (§12): written by issue 16 part B.
//! Placeholder so the diagnosis module compiles on its own branch.
