//! When a scan samples: the wrapped command of `scan -- CMD` runs between a
//! --pre and a --post margin, with a sample just before it starts and one just
//! after it exits; SIGINT or SIGTERM ends any scan early, keeping what was sampled.
use crate::source::live::Wake;
use anyhow::{Context, Result, anyhow};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How often the wait looks for the command's exit and for a signal.
const POLL: Duration = Duration::from_millis(20);

/// How long a command told to stop (SIGTERM) may take before it is killed.
const GRACE: Duration = Duration::from_secs(10);

/// SIGINT and SIGTERM, caught for the rest of the process: the first stops the
/// sampling; a second ends gpuaudit at once with 128 + the signal, as a shell
/// reports a process a signal ended.
pub struct Signals {
    hit: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

impl Signals {
    pub fn catch() -> Result<Signals> {
        let hit = Arc::new(AtomicBool::new(false));
        let which = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            // The shutdown is registered first, so the first signal finds it unarmed.
            flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&hit))
                .and_then(|_| flag::register_usize(sig, Arc::clone(&which), sig as usize))
                .and_then(|_| flag::register(sig, Arc::clone(&hit)))
                .context("cannot catch SIGINT/SIGTERM")?;
        }
        Ok(Signals { hit, which })
    }

    /// The signal caught, if one was.
    pub fn caught(&self) -> Option<i32> {
        self.hit
            .load(Ordering::SeqCst)
            .then(|| self.which.load(Ordering::SeqCst) as i32)
    }
}

pub fn signal_name(sig: i32) -> String {
    match sig {
        SIGINT => "SIGINT".to_string(),
        SIGTERM => "SIGTERM".to_string(),
        n => format!("signal {n}"),
    }
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// no command: the plan's ticks decide
    Plain,
    /// a command waits: sample at once, so the --pre margin starts with a sample
    Begin,
    Pre {
        until: Instant,
    },
    /// the start sample is taken: start the command now
    Start,
    Running,
    Post {
        until: Instant,
    },
    Over,
}

/// The wrapped command (if any) and what stopped the scan.
pub struct Bracket {
    argv: Vec<String>,
    post: Duration,
    phase: Phase,
    child: Option<Child>,
    /// the command's exit, once it exited
    pub status: Option<ExitStatus>,
    /// the command could not be started or waited for
    pub error: Option<anyhow::Error>,
    /// the signal that stopped the scan early
    pub stopped_by: Option<i32>,
    pre: Duration,
    /// when the last wait returned (a sample followed)
    last: Option<Instant>,
}

impl Bracket {
    pub fn plain() -> Bracket {
        Bracket {
            argv: Vec::new(),
            post: Duration::ZERO,
            phase: Phase::Plain,
            child: None,
            status: None,
            error: None,
            stopped_by: None,
            pre: Duration::ZERO,
            last: None,
        }
    }

    pub fn command(argv: Vec<String>, pre: Duration, post: Duration) -> Bracket {
        let mut b = Bracket::plain();
        b.argv = argv;
        b.post = post;
        b.pre = pre;
        b.phase = Phase::Begin;
        b
    }

    /// The sampling loop's wait: until `deadline` (a regular tick), or earlier
    /// for a sample the command's start or exit needs, or a signal.
    pub fn wait_until(&mut self, deadline: Instant, signals: &Signals) -> Wake {
        let wake = self.wait(deadline, signals);
        // Samples at least 2 ms apart: two at the same instant would be
        // duplicates of (host, gpu, time), which the audit drops and counts.
        if let Some(last) = self.last {
            let since = last.elapsed();
            if since < Duration::from_millis(2) {
                std::thread::sleep(Duration::from_millis(2) - since);
            }
        }
        self.last = Some(Instant::now());
        wake
    }

    fn wait(&mut self, deadline: Instant, signals: &Signals) -> Wake {
        loop {
            if self.stopped_by.is_none()
                && let Some(sig) = signals.caught()
            {
                self.stopped_by = Some(sig);
                self.terminate();
                return Wake::Last;
            }
            let now = Instant::now();
            let mut wake_at = deadline;
            match self.phase {
                Phase::Plain | Phase::Over => {}
                Phase::Begin => {
                    self.phase = if self.pre.is_zero() {
                        Phase::Start
                    } else {
                        Phase::Pre {
                            until: now + self.pre,
                        }
                    };
                    return Wake::Now; // the first sample: the scan starts here
                }
                Phase::Pre { until } => {
                    if now >= until {
                        self.phase = Phase::Start;
                        return Wake::Now; // the sample just before the command starts
                    }
                    wake_at = wake_at.min(until);
                }
                Phase::Start => {
                    self.start();
                    if self.error.is_some() {
                        return Wake::Last;
                    }
                    continue;
                }
                Phase::Running => match self.child.as_mut().map(Child::try_wait) {
                    Some(Ok(Some(status))) => {
                        self.status = Some(status);
                        self.child = None;
                        // the sample just after it exits
                        if self.post.is_zero() {
                            self.phase = Phase::Over;
                            return Wake::Last;
                        }
                        self.phase = Phase::Post {
                            until: now + self.post,
                        };
                        return Wake::Now;
                    }
                    Some(Err(e)) => {
                        self.error = Some(anyhow!(e).context("waiting for the command"));
                        self.phase = Phase::Over;
                        return Wake::Last;
                    }
                    Some(Ok(None)) | None => wake_at = wake_at.min(now + POLL),
                },
                Phase::Post { until } => {
                    if now >= until {
                        self.phase = Phase::Over;
                        return Wake::Last;
                    }
                    wake_at = wake_at.min(until);
                }
            }
            if now >= deadline {
                return Wake::Tick;
            }
            std::thread::sleep(wake_at.saturating_duration_since(now).min(POLL));
        }
    }

    fn start(&mut self) {
        let Some((program, args)) = self.argv.split_first() else {
            self.error = Some(anyhow!("no command to run after `--`"));
            return;
        };
        match Command::new(program).args(args).spawn() {
            Ok(child) => {
                self.child = Some(child);
                self.phase = Phase::Running;
            }
            Err(e) => {
                self.error = Some(anyhow!(e).context(format!("cannot run {program}")));
                self.phase = Phase::Over;
            }
        }
    }

    /// Ask a command still running to stop: SIGTERM, as a CI runner or a
    /// container runtime would.
    fn terminate(&mut self) {
        if let Some(child) = &self.child
            && let Ok(pid) = i32::try_from(child.id())
        {
            // SAFETY: kill(2) takes plain integers and touches no memory of ours.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }

    /// After sampling: wait for a command still running (it was sent SIGTERM;
    /// after a grace period it is killed). Its exit status, if there is a command.
    pub fn finish(&mut self) -> Result<Option<ExitStatus>> {
        if let Some(e) = self.error.take() {
            self.kill_now();
            return Err(e);
        }
        if let Some(mut child) = self.child.take() {
            let until = Instant::now() + GRACE;
            let status = loop {
                if let Some(status) = child.try_wait().context("waiting for the command")? {
                    break status;
                }
                if Instant::now() >= until {
                    let _ = child.kill();
                    break child.wait().context("waiting for the command")?;
                }
                std::thread::sleep(POLL);
            };
            self.status = Some(status);
        }
        Ok(self.status)
    }

    fn kill_now(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A command still running when gpuaudit gives up (an error before `finish`)
/// is not left behind.
impl Drop for Bracket {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// A command's exit as gpuaudit's own: its code, or 128 + the signal that ended it.
pub fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(2),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(2),
        (None, None) => 2,
    }
}
