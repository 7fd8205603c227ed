//! The Rust end of wire-harness's JSON-lines pipeline protocol, version 1 (docs/protocol.md).
//!
//! ```no_run
//! use wire_harness_adapter::{serve, Pipeline};
//! fn build(input: &serde_json::Value, _lane: &serde_json::Value) -> Result<serde_json::Value, wire_harness_adapter::Failure> {
//!     Ok(input.clone())
//! }
//! serve("my-client", "1.2.0", vec![("new", Box::new(build) as Pipeline)]);
//! ```
//!
//! A pipeline is a function `(input, lane) -> Result<Value, Failure>`; a panic inside one is
//! answered as an error (type `panic`, with its message and `file:line`) and the program goes
//! on. stdout belongs to the protocol: `serve` moves the real stdout to a private descriptor and
//! points descriptor 1 at stderr, so a stray `println!` can never corrupt an answer.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::os::fd::FromRawFd;
use std::panic::{self, AssertUnwindSafe};

use serde_json::{json, Value};

pub const PROTOCOL_VERSION: u64 = 1;

/// A pipeline's own error: its kind (an error class name) and message.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: String,
    pub message: String,
}

impl Failure {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Failure { kind: kind.to_string(), message: message.into() }
    }
}

pub type Pipeline = Box<dyn Fn(&Value, &Value) -> Result<Value, Failure>>;

extern "C" {
    fn dup(fd: i32) -> i32;
    fn dup2(old: i32, new: i32) -> i32;
}

thread_local! {
    static PANIC_AT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The real stdout, private to the protocol; descriptor 1 becomes a copy of stderr.
fn protocol_stdout() -> BufWriter<File> {
    std::io::stdout().flush().ok();
    // SAFETY: dup/dup2 on the process's own standard descriptors; the new descriptor is owned
    // by the File from here on.
    let file = unsafe {
        let private = dup(1);
        assert!(private >= 0, "cannot duplicate stdout");
        dup2(2, 1);
        File::from_raw_fd(private)
    };
    BufWriter::with_capacity(1 << 16, file)
}

fn error_answer(id: Value, kind: &str, message: &str, at: &str) -> Value {
    let message: String = message.chars().take(2000).collect();
    json!({"type": "error", "id": id, "error": {"type": kind, "message": message, "where": at}})
}

fn answer(request: &Value, pipelines: &[(&str, Pipeline)]) -> Value {
    let id = request.get("id").filter(|v| v.is_u64() || v.is_i64()).cloned().unwrap_or(Value::Null);
    if request.get("type").and_then(Value::as_str) != Some("call") {
        let found: String = request.to_string().chars().take(200).collect();
        return error_answer(id, "BadRequest", &format!("expected a call or shutdown message, found {found}"), "");
    }
    if id.is_null() {
        return error_answer(id, "BadRequest", "a call needs an integer id", "");
    }
    let name = request.get("pipeline").and_then(Value::as_str).unwrap_or("");
    let Some((_, pipeline)) = pipelines.iter().find(|(n, _)| *n == name) else {
        let served: Vec<&str> = pipelines.iter().map(|(n, _)| *n).collect();
        let message = format!("no pipeline {name:?}; this program serves {}", served.join(", "));
        return error_answer(id, "UnknownPipeline", &message, "");
    };
    let null = Value::Null;
    let input = request.get("input").unwrap_or(&null);
    let lane = request.get("lane").unwrap_or(&null);
    match panic::catch_unwind(AssertUnwindSafe(|| pipeline(input, lane))) {
        Ok(Ok(output)) => json!({"type": "result", "id": id, "output": output}),
        Ok(Err(failure)) => error_answer(id, &failure.kind, &failure.message, ""),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            let at = PANIC_AT.with(|p| p.borrow().clone());
            error_answer(id, "panic", &message, &at)
        }
    }
}

/// Answer calls on stdin until `shutdown` or end of input, then return.
pub fn serve(name: &str, version: &str, pipelines: Vec<(&str, Pipeline)>) {
    assert!(!pipelines.is_empty(), "serve() needs at least one pipeline");
    let mut out = protocol_stdout();
    // A panic's place (file name and line, no full path) is kept for its error answer; the
    // default hook's message would go to stderr anyway, so it is replaced by one short line.
    panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| {
                let file = l.file().rsplit('/').next().unwrap_or(l.file());
                format!("{file}:{}", l.line())
            })
            .unwrap_or_default();
        eprintln!("pipeline panicked at {at}");
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
    let mut names: Vec<&str> = pipelines.iter().map(|(n, _)| *n).collect();
    names.sort();
    let hello = json!({"type": "hello", "protocol": PROTOCOL_VERSION, "pipelines": names,
                       "implementation": {"name": name, "version": version,
                                          "language": concat!("rust, wire-harness-adapter ", env!("CARGO_PKG_VERSION"))}});
    let send = |out: &mut BufWriter<File>, message: &Value| {
        let _ = writeln!(out, "{message}");
        let _ = out.flush();
    };
    send(&mut out, &hello);
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                send(&mut out, &error_answer(Value::Null, "BadRequest", "a line that is not UTF-8", ""));
                continue;
            }
            Err(_) => break, // stdin is gone: nothing more will come
        };
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = match serde_json::from_str(&line) {
            Ok(value) => value,
            Err(err) => {
                send(&mut out, &error_answer(Value::Null, "BadRequest", &format!("a line that is not JSON: {err}"), ""));
                continue;
            }
        };
        if request.get("type").and_then(Value::as_str) == Some("shutdown") {
            break;
        }
        send(&mut out, &answer(&request, &pipelines));
    }
}
