//! Findings (§12: parked, gang_member_idle, oversized): written by issue 16 part B.
//! Placeholder so the diagnosis module compiles on its own branch.
