//! The example's two pipelines, served over the JSON-lines protocol: `target/release/pipes`.
//!
//! - `old` flattens every tool's input_schema on every Messages lane
//! - `new` narrows on the first-party lane, ships input_schema verbatim everywhere else

mod passes;

use passes::{first_party, flatten, narrow, with_note};
use serde_json::{json, Map, Value};
use wire_harness_adapter::{serve, Failure, Pipeline};

fn body(input: &Value, lane: &Value, tools: Vec<Value>) -> Value {
    let mut out = Map::new();
    out.insert("model".into(), lane.get("model").filter(|m| m.is_string()).cloned().unwrap_or(json!("claude-sonnet-4-5")));
    out.insert("max_tokens".into(), json!(1024));
    if let Some(system) = input.get("system").filter(|s| s.as_str().is_some_and(|s| !s.is_empty())) {
        out.insert("system".into(), system.clone());
    }
    out.insert("messages".into(), json!([{"role": "user", "content": "Use the tools you need."}]));
    out.insert("tools".into(), Value::Array(tools));
    Value::Object(out)
}

fn tools_of(input: &Value) -> Result<&Vec<Value>, Failure> {
    input.get("tools").and_then(Value::as_array).ok_or_else(|| Failure::new("KeyError", "the input has no tools list"))
}

fn entry(tool: &Value, description: String, schema: Value) -> Value {
    json!({"name": tool.get("name").cloned().unwrap_or(Value::Null), "description": description, "input_schema": schema})
}

fn description(tool: &Value) -> &str {
    tool.get("description").and_then(Value::as_str).unwrap_or("")
}

fn build_old(input: &Value, lane: &Value) -> Result<Value, Failure> {
    let mut tools = Vec::new();
    for tool in tools_of(input)? {
        let (schema, note) = flatten(tool.get("input_schema").cloned().unwrap_or(Value::Null));
        tools.push(entry(tool, with_note(description(tool), note), schema));
    }
    Ok(body(input, lane, tools))
}

fn build_new(input: &Value, lane: &Value) -> Result<Value, Failure> {
    let gate = first_party(lane);
    let mut tools = Vec::new();
    for tool in tools_of(input)? {
        let declared = tool.get("input_schema").cloned().unwrap_or(Value::Null);
        if !gate {
            tools.push(entry(tool, description(tool).to_string(), declared));
            continue;
        }
        let (schema, note) = narrow(declared);
        tools.push(entry(tool, with_note(description(tool), note), schema));
    }
    Ok(body(input, lane, tools))
}

fn main() {
    let pipelines: Vec<(&str, Pipeline)> = vec![("old", Box::new(build_old)), ("new", Box::new(build_new))];
    serve("rust-example", env!("CARGO_PKG_VERSION"), pipelines);
}
