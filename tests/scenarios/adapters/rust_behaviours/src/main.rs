//! Pipelines that exercise the Rust adapter's edges: a panic, a declared failure, a println!.

use serde_json::{json, Value};
use wire_harness_adapter::{serve, Failure, Pipeline};

fn panics(_input: &Value, _lane: &Value) -> Result<Value, Failure> {
    panic!("bad shape")
}

fn fails(_input: &Value, _lane: &Value) -> Result<Value, Failure> {
    Err(Failure::new("KeyError", "no tools"))
}

fn prints(input: &Value, _lane: &Value) -> Result<Value, Failure> {
    println!("progress, through println!");
    Ok(json!({"printed": input.get("n").cloned().unwrap_or(Value::Null)}))
}

fn main() {
    let pipelines: Vec<(&str, Pipeline)> =
        vec![("panics", Box::new(panics)), ("fails", Box::new(fails)), ("prints", Box::new(prints))];
    serve("rust-behaviours", "1", pipelines);
}
