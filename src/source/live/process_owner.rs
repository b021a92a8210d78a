//! Who a GPU process belongs to, from /proc: user, command, and a job label
//! (Slurm job id or Kubernetes pod UID from the cgroup, else SLURM_JOB_ID from the
//! environment). What cannot be read (another user's process, a process that
//! exited) is "unknown" or missing, never an error.
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// The user name when the process's owner cannot be read.
pub const UNKNOWN_USER: &str = "unknown";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Owner {
    pub pid: u32,
    pub user: String,
    pub command: Option<String>,
    /// Slurm job id ("4242"), or "pod/<uid>" on Kubernetes
    pub job: Option<String>,
}

/// Reads /proc (or a stand-in tree, for tests) and caches per pid for one scan.
pub struct ProcFs {
    root: PathBuf,
    passwd: PathBuf,
    users: Option<HashMap<u32, String>>,
    cache: HashMap<u32, Owner>,
}

impl Default for ProcFs {
    fn default() -> Self {
        ProcFs::new("/proc", "/etc/passwd")
    }
}

impl ProcFs {
    pub fn new(root: impl Into<PathBuf>, passwd: impl Into<PathBuf>) -> Self {
        ProcFs {
            root: root.into(),
            passwd: passwd.into(),
            users: None,
            cache: HashMap::new(),
        }
    }

    pub fn owner(&mut self, pid: u32) -> Owner {
        if let Some(o) = self.cache.get(&pid) {
            return o.clone();
        }
        let dir = self.root.join(pid.to_string());
        let read = |name: &str| std::fs::read(dir.join(name)).ok();
        let user = read("status")
            .and_then(|s| uid_of(&String::from_utf8_lossy(&s)))
            .map(|uid| self.user_name(uid))
            .unwrap_or_else(|| UNKNOWN_USER.to_string());
        let command = read("cmdline").and_then(|c| command_of(&c)).or_else(|| {
            read("comm")
                .map(|c| String::from_utf8_lossy(&c).trim().to_string())
                .filter(|c| !c.is_empty())
        });
        let job = read("cgroup")
            .and_then(|c| job_from_cgroup(&String::from_utf8_lossy(&c)))
            .or_else(|| read("environ").and_then(|e| slurm_job_from_environ(&e)));
        let owner = Owner {
            pid,
            user,
            command,
            job,
        };
        self.cache.insert(pid, owner.clone());
        owner
    }

    fn user_name(&mut self, uid: u32) -> String {
        let passwd = &self.passwd;
        let users = self.users.get_or_insert_with(|| {
            std::fs::read_to_string(passwd)
                .map(|t| parse_passwd(&t))
                .unwrap_or_default()
        });
        // A uid without a name is still a fact worth showing.
        users
            .get(&uid)
            .cloned()
            .unwrap_or_else(|| format!("uid {uid}"))
    }
}

/// The real uid from /proc/<pid>/status ("Uid:\t1000\t1000\t1000\t1000").
fn uid_of(status: &str) -> Option<u32> {
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn parse_passwd(text: &str) -> HashMap<u32, String> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split(':');
            let name = f.next()?;
            let uid = f.nth(1)?.parse().ok()?;
            Some((uid, name.to_string()))
        })
        .collect()
}

/// NUL-separated argv as one line.
fn command_of(cmdline: &[u8]) -> Option<String> {
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if args.is_empty() {
        None
    } else {
        Some(args.join(" "))
    }
}

/// A Slurm job id (`.../job_4242/...`) or a Kubernetes pod UID
/// (`/kubepods/burstable/pod<uid>/...` or `kubepods-burstable-pod<uid_with_underscores>.slice`).
pub fn job_from_cgroup(cgroup: &str) -> Option<String> {
    for line in cgroup.lines() {
        let path = line.splitn(3, ':').nth(2).unwrap_or(line);
        for part in path.split('/') {
            if let Some(id) = part.strip_prefix("job_") {
                let id: String = id.chars().take_while(char::is_ascii_digit).collect();
                if !id.is_empty() {
                    return Some(id);
                }
            }
        }
        // "kubepods" contains "pod" too: try every occurrence.
        for (i, _) in path.match_indices("pod") {
            let rest = &path[i + 3..];
            let uid: String = rest
                .chars()
                .take_while(|c| c.is_ascii_hexdigit() || *c == '-' || *c == '_')
                .map(|c| if c == '_' { '-' } else { c })
                .collect();
            if uid.len() == 36 {
                return Some(format!("pod/{uid}"));
            }
        }
    }
    None
}

pub fn slurm_job_from_environ(environ: &[u8]) -> Option<String> {
    environ
        .split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(b"SLURM_JOB_ID="))
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroups_name_slurm_jobs_and_pods() {
        assert_eq!(
            job_from_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n")
                .as_deref(),
            Some("4242")
        );
        assert_eq!(
            job_from_cgroup("12:devices:/slurm/uid_1000/job_17/step_batch\n").as_deref(),
            Some("17")
        );
        assert_eq!(
            job_from_cgroup("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b.slice/cri-containerd-ab.scope\n")
                .as_deref(),
            Some("pod/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(
            job_from_cgroup(
                "11:memory:/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/abcdef\n"
            )
            .as_deref(),
            Some("pod/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(
            job_from_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n"),
            None
        );
        assert_eq!(
            slurm_job_from_environ(b"HOME=/root\0SLURM_JOB_ID=99\0").as_deref(),
            Some("99")
        );
    }

    #[test]
    fn an_unreadable_process_is_unknown_not_an_error() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("proc/77");
        std::fs::create_dir_all(&p)?;
        std::fs::write(
            p.join("status"),
            "Name:\ttrain\nUid:\t1234\t1234\t1234\t1234\n",
        )?;
        std::fs::write(p.join("cmdline"), b"python\0train.py\0")?;
        std::fs::write(p.join("cgroup"), "0::/job_5/step_0\n")?;
        let passwd = dir.path().join("passwd");
        std::fs::write(
            &passwd,
            "root:x:0:0::/root:/bin/sh\nalice:x:1234:1234::/home/alice:/bin/sh\n",
        )?;
        let mut fs = ProcFs::new(dir.path().join("proc"), &passwd);
        let o = fs.owner(77);
        assert_eq!(
            (o.user.as_str(), o.command.as_deref(), o.job.as_deref()),
            ("alice", Some("python train.py"), Some("5"))
        );
        let gone = fs.owner(78);
        assert_eq!(
            (gone.user.as_str(), gone.command, gone.job),
            (UNKNOWN_USER, None, None)
        );
        Ok(())
    }
}
