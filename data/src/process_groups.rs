//! The process groups of the models metamorph started, so that exiting at once (a second
//! Ctrl-C) stops them too instead of leaving them running.
//!
//! A model subprocess leads its own process group (so a terminal's Ctrl-C reaches metamorph
//! alone, which then shuts the model down politely). That also means nothing else stops it when
//! metamorph leaves without running destructors: [`stop_all`] does, and the second-interrupt
//! handler of [`crate::CancelToken::install_ctrl_c`] calls it before exiting.

use std::sync::Mutex;

static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// A registered process group; unregistered when dropped.
#[derive(Debug)]
pub struct GroupRegistration(u32);

/// Registers the process group led by `pid` until the returned value is dropped.
pub fn register(pid: u32) -> GroupRegistration {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    GroupRegistration(pid)
}

impl Drop for GroupRegistration {
    fn drop(&mut self) {
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = groups.iter().position(|&g| g == self.0) {
            groups.swap_remove(i);
        }
    }
}

/// Kills every registered process group (SIGKILL), returning how many were signalled.
pub fn stop_all() -> usize {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    groups.iter().filter(|&&pid| kill_group(pid)).count()
}

/// Sends SIGKILL to the process group led by `pid`; true when the signal was delivered.
pub fn kill_group(pid: u32) -> bool {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the process group `pid`; it touches no
        // memory of ours.
        return unsafe { libc::kill(-pid, libc::SIGKILL) } == 0;
    }
    let _ = pid;
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn stop_all_kills_a_registered_group() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30; wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let registration = register(child.id());
        assert!(stop_all() >= 1);
        let status = child.wait().unwrap();
        assert!(!status.success());
        drop(registration);
        assert!(!GROUPS.lock().unwrap().contains(&child.id()));
    }
}
