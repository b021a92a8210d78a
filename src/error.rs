//! Exit-code discipline: 0 ok, 1 check failed / findings over a limit,
//! 2 usage, input or device error. A broken pipe exits quietly with 0.

use std::fmt;

/// Returned (wrapped in anyhow) when a check or a limit fails: exit 1.
/// Everything else that reaches `main` as an error exits 2.
#[derive(Debug)]
pub struct Findings(pub String);

impl fmt::Display for Findings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Findings {}

/// The exit code an error maps to.
pub fn exit_code_for(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return 0;
        }
        if cause.downcast_ref::<Findings>().is_some() {
            return 1;
        }
    }
    2
}
