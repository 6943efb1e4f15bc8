//! The JSONL subprocess adapter (protocol in [`crate::protocol`]).

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use metamorph_data::{Error, Example, Prediction, Result};
use serde::Deserialize;

use crate::protocol::{BatchAnswers, Request, Response};
use crate::Model;

/// How to start and talk to a model program.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SubprocessConfig {
    /// Program and arguments, e.g. `["python3", "my_model.py"]`.
    pub command: Vec<String>,
    /// Seconds to wait for a whole batch of responses before giving up (default 120).
    #[serde(default = "default_timeout")]
    pub timeout_secs: f64,
    /// Requests per batch (default 32).
    #[serde(default = "default_batch_size")]
    pub batch_size: usize,
    /// Working directory of the program (default: the current one).
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

fn default_timeout() -> f64 {
    120.0
}

fn default_batch_size() -> usize {
    32
}

struct Running {
    child: Child,
    /// Lets a forced exit (second Ctrl-C) stop the model's process group.
    _group: metamorph_data::process_groups::GroupRegistration,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// A model served by a child process speaking the JSONL protocol.
pub struct SubprocessModel {
    name: String,
    config: SubprocessConfig,
    running: Mutex<Option<Running>>,
}

const STDERR_LINES_KEPT: usize = 20;

impl SubprocessModel {
    /// Starts the program.
    ///
    /// # Errors
    /// [`Error::Model`] if the command is empty, the batch size or timeout is not positive, or the
    /// program cannot be started (with the OS's reason).
    pub fn spawn(name: impl Into<String>, config: SubprocessConfig) -> Result<Self> {
        let name = name.into();
        let fail = |message: String| Error::Model {
            model: name.clone(),
            message,
        };
        let Some((program, args)) = config.command.split_first() else {
            return Err(fail("`command` is empty".into()));
        };
        if config.batch_size == 0 || !config.timeout_secs.is_finite() || config.timeout_secs <= 0.0
        {
            return Err(fail(
                "`batch_size` and `timeout_secs` must be positive".into(),
            ));
        }
        if let Some(dir) = config.workdir.as_deref().filter(|d| !d.is_dir()) {
            return Err(fail(format!(
                "`workdir` {} is not an existing folder",
                dir.display()
            )));
        }
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(&config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &config.workdir {
            command.current_dir(dir);
        }
        // Its own process group: Ctrl-C in the terminal stops metamorph, which then closes the
        // model's stdin, instead of killing the model in the middle of a batch; and on a timeout
        // or failure the whole group is stopped (`stop_group`), grandchildren included.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| fail(format!("cannot start {:?}: {e}", config.command)))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| fail("no stdout pipe".into()))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| fail("no stderr pipe".into()))?;

        let (tx, lines) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name(format!("{name}-stdout"))
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| fail(format!("cannot start reader thread: {e}")))?;
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        let model_name = name.clone();
        std::thread::Builder::new()
            .name(format!("{name}-stderr"))
            .spawn(move || {
                for line in BufReader::new(stderr)
                    .lines()
                    .map_while(std::result::Result::ok)
                {
                    tracing::debug!(model = %model_name, "stderr: {line}");
                    let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                    if tail.len() == STDERR_LINES_KEPT {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            })
            .map_err(|e| fail(format!("cannot start stderr thread: {e}")))?;
        Ok(SubprocessModel {
            name,
            config,
            running: Mutex::new(Some(Running {
                _group: metamorph_data::process_groups::register(child.id()),
                child,
                stdin,
                lines,
                stderr_tail,
            })),
        })
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::Model {
            model: self.name.clone(),
            message: message.into(),
        }
    }

    /// Describes how the child ended (exit status and the last stderr lines).
    fn death_notice(&self, running: &mut Running) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match running.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => break None,
            }
        };
        // Let the stderr thread drain what the child printed last.
        std::thread::sleep(Duration::from_millis(50));
        let tail = running
            .stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let Some(status) = status else {
            // Its stdout closed, yet it runs on: it can never answer.
            stop_group(&mut running.child);
            let stderr = if tail.is_empty() {
                String::new()
            } else {
                format!(
                    "; its last stderr lines:\n  {}",
                    Vec::from(tail.clone()).join("\n  ")
                )
            };
            return format!(
                "the model process closed its stdout but kept running, so it can send no \
                 response; it was stopped{stderr}"
            );
        };
        if tail.is_empty() {
            format!("the model process exited ({status}) with nothing on stderr")
        } else {
            format!(
                "the model process exited ({status}); its last stderr lines:\n  {}",
                Vec::from(tail.clone()).join("\n  ")
            )
        }
    }

    fn round_trip(&self, running: &mut Running, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let started = Instant::now();
        let mut answers = BatchAnswers::new(&self.name, batch).map_err(|m| self.error(m))?;
        let mut payload = Vec::with_capacity(batch.len() * 256);
        for example in batch {
            serde_json::to_writer(&mut payload, &Request::from_example(example))
                .map_err(|e| self.error(format!("cannot encode request `{}`: {e}", example.id)))?;
            payload.push(b'\n');
        }
        let Some(mut stdin) = running.stdin.take() else {
            return Err(self.error("the model's stdin is closed"));
        };
        // Write on another thread so a model that answers while we still write cannot deadlock
        // on full pipes.
        let writer = std::thread::spawn(move || {
            let result = stdin.write_all(&payload).and_then(|()| stdin.flush());
            (stdin, result)
        });
        let deadline = started + Duration::from_secs_f64(self.config.timeout_secs);
        let mut failure = None;
        while answers.missing() > 0 {
            let timeout = deadline.saturating_duration_since(Instant::now());
            let line = match running.lines.recv_timeout(timeout) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => {
                    failure = Some(format!("cannot read the model's stdout: {e}"));
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    failure = Some(self.death_notice(running));
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    stop_group(&mut running.child);
                    failure = Some(format!(
                        "timed out after {:.0} s with {} of {} responses missing; the process was stopped",
                        self.config.timeout_secs,
                        answers.missing(),
                        batch.len()
                    ));
                    break;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let response: Response = match serde_json::from_str(&line) {
                Ok(r) => r,
                Err(e) => {
                    let shown: String = line.chars().take(120).collect();
                    let hint = if !line.trim_start().starts_with('{') {
                        " (print logs to stderr, not stdout)"
                    } else if line.contains("NaN") || line.contains("Infinity") {
                        " (NaN and Infinity are not JSON numbers: send finite numbers)"
                    } else {
                        ""
                    };
                    failure = Some(format!(
                        "printed a line that is not a protocol response ({e}): {shown:?}{hint}"
                    ));
                    break;
                }
            };
            if let Err(message) = answers.accept(response) {
                failure = Some(message);
                break;
            }
        }
        match writer.join() {
            Ok((stdin, Ok(()))) => running.stdin = Some(stdin),
            Ok((_, Err(e))) if failure.is_none() => {
                failure = Some(format!(
                    "cannot write to the model's stdin ({e}); {}",
                    self.death_notice(running)
                ));
            }
            _ => {}
        }
        if let Some(message) = failure {
            return Err(self.error(message));
        }
        let latency = started.elapsed().as_secs_f32() * 1000.0 / batch.len().max(1) as f32;
        answers.finish(latency).map_err(|m| self.error(m))
    }
}

impl Model for SubprocessModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn max_batch(&self) -> usize {
        self.config.batch_size
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let Some(running) = guard.as_mut() else {
            return Err(self.error("the model process has already failed"));
        };
        let mut out = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(self.config.batch_size) {
            match self.round_trip(running, chunk) {
                Ok(predictions) => out.extend(predictions),
                Err(e) => {
                    // A failed exchange leaves the stream out of step: retire the process.
                    if let Some(mut running) = guard.take() {
                        stop_group(&mut running.child);
                        let _ = running.child.wait();
                    }
                    return Err(e);
                }
            }
        }
        Ok(out)
    }
}

impl Drop for SubprocessModel {
    fn drop(&mut self) {
        let running = self
            .running
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(mut running) = running {
            // Closing stdin is the polite way to ask the program to exit.
            drop(running.stdin.take());
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = running.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            stop_group(&mut running.child);
            let _ = running.child.wait();
        }
    }
}

/// Kills the model and every process it started: the child leads its own process group (see
/// [`SubprocessModel::spawn`]), so `sh -c "python3 model.py"` or a launcher script dies with
/// its model instead of leaving it running, and a writer blocked on the model's full stdin pipe
/// is released.
fn stop_group(child: &mut std::process::Child) {
    metamorph_data::process_groups::kill_group(child.id());
    let _ = child.kill();
}
