//! The one progress bar: on stderr, never stdout (JSON and pipes stay clean),
//! hidden with `--quiet`; indicatif itself draws nothing when stderr is not a
//! terminal. Each caller gives its own words as an indicatif template.
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps (a spinner with a count when None) drawn with `template`.
pub fn bar(quiet: bool, len: Option<u64>, template: &str) -> ProgressBar {
    let target = if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(len, target);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
