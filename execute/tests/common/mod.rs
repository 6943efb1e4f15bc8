//! A small HTTP/1.1 server on 127.0.0.1 for the HTTP adapters' tests: it records every
//! request and answers through a handler, one thread per connection.
#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use std::path::Path;

use metamorph_data::{Error, Example, Prediction};
use metamorph_execute::{Model, ModelConfig};
use serde_json::{json, Value};

/// A request as the server received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The last message's text: the filled prompt.
    pub fn prompt(&self) -> &str {
        self.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
    }
}

/// What the server answers.
pub enum Reply {
    /// Status, extra headers, body.
    Http(u16, Vec<(&'static str, String)>, String),
    /// Say nothing for this long, then close the connection.
    Hang(Duration),
}

pub fn status(code: u16, message: &str) -> Reply {
    let body = json!({"error": {"message": message, "type": "server_error"}});
    Reply::Http(code, vec![], body.to_string())
}

type Handler = dyn Fn(&Received, usize) -> Reply + Send + Sync;

pub struct Server {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
    pub max_in_flight: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Flight {
    now: Mutex<usize>,
    changed: Condvar,
}

impl Server {
    /// Serves `handler(request, its index)` on a free port. With `gather`, each request is held
    /// until that many are in flight (or `hold` passes), so that a client which keeps
    /// that many requests in flight reaches it whatever the scheduling.
    pub fn start(
        gather: Option<(usize, Duration)>,
        handler: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let flight = Arc::new(Flight::default());
        let handler: Arc<Handler> = Arc::new(handler);
        {
            let (received, max_in_flight) = (received.clone(), max_in_flight.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    let (received, max_in_flight, flight, handler) = (
                        received.clone(),
                        max_in_flight.clone(),
                        flight.clone(),
                        handler.clone(),
                    );
                    std::thread::spawn(move || {
                        serve(
                            stream,
                            gather,
                            &received,
                            &max_in_flight,
                            &flight,
                            &*handler,
                        )
                    });
                }
            });
        }
        Server {
            base_url,
            received,
            max_in_flight,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    gather: Option<(usize, Duration)>,
    received: &Mutex<Vec<Received>>,
    max_in_flight: &AtomicUsize,
    flight: &Flight,
    handler: &Handler,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let request = Received {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let index = {
        let mut all = received.lock().unwrap();
        all.push(request.clone());
        all.len() - 1
    };
    {
        let mut now = flight.now.lock().unwrap();
        *now += 1;
        max_in_flight.fetch_max(*now, Ordering::SeqCst);
        flight.changed.notify_all();
        if let Some((n, hold)) = gather {
            let deadline = Instant::now() + hold;
            while *now < n && Instant::now() < deadline {
                now = flight
                    .changed
                    .wait_timeout(now, Duration::from_millis(20))
                    .unwrap()
                    .0;
            }
        }
    }
    let reply = handler(&request, index);
    // Leave the count before answering: the client may send its next request at once.
    *flight.now.lock().unwrap() -= 1;
    let mut stream = stream;
    match reply {
        Reply::Hang(d) => std::thread::sleep(d),
        Reply::Http(code, extra, body) => {
            let mut head = format!(
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in extra {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    }
}

/// A model config from `base` with the keys of `extra` added or replaced.
pub fn model_config(mut base: Value, extra: Value) -> ModelConfig {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

pub fn start(config: &ModelConfig) -> Arc<dyn Model> {
    config.start(Path::new(".")).unwrap()
}

pub fn predict(model: &dyn Model, examples: &[Example]) -> metamorph_data::Result<Vec<Prediction>> {
    let refs: Vec<&Example> = examples.iter().collect();
    model.predict(&refs)
}

/// The message of the model error `result` must be.
pub fn model_error(result: metamorph_data::Result<Vec<Prediction>>) -> String {
    match result {
        Err(e @ Error::Model { .. }) => e.to_string(),
        other => panic!("expected a model error, got {other:?}"),
    }
}
