//! Seed 001's change, in Rust: the Anthropic Messages `tools[].input_schema` passes.
//!
//! - `flatten`: the old line, on every lane: a Responses-style root flatten (merge branch
//!   properties, force type object, strip root oneOf/anyOf/allOf/enum/not)
//! - `narrow`: the new line, on the first-party lane only: strip exactly the recorded root
//!   keywords (oneOf/anyOf/allOf), merge their properties, keep everything else, restore the
//!   object type a stripped composition leaves missing
//! - `first_party`: the gate: provider identity anthropic, or a base URL on api.anthropic.com
//!
//! One decision a line, so the ledger's find/replace mutants are one-line changes.

use serde_json::{Map, Value};

const COMPOSITIONS: [&str; 3] = ["oneOf", "anyOf", "allOf"];
const FIRST_PARTY_HOST: &str = "api.anthropic.com";

/// "`a` + `b`" for one branch's required names (sorted, unique), or None.
fn group_label(branch: &Value) -> Option<String> {
    let required = branch.get("required")?.as_array()?;
    let mut names: Vec<String> = required.iter().filter_map(Value::as_str).map(|n| format!("`{n}`")).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        None
    } else {
        Some(names.join(" + "))
    }
}

/// The dropped exactly-one / at-least-one / all constraint, in words.
pub fn constraint_note(schema: &Value) -> Option<String> {
    let prefixes = [("oneOf", "Exactly one"), ("anyOf", "At least one"), ("allOf", "All")];
    for (keyword, prefix) in prefixes {
        let Some(branches) = schema.get(keyword).and_then(Value::as_array) else { continue };
        let mut groups: Vec<String> = branches.iter().filter_map(group_label).collect();
        groups.sort();
        groups.dedup();
        if groups.len() >= 2 {
            return Some(format!("{prefix} of these parameter groups must be provided: {}.", groups.join(" | ")));
        }
    }
    None
}

pub fn generic_note(keyword: &str) -> String {
    match keyword {
        "oneOf" => "The arguments must match exactly one of several alternative shapes, which this schema does not spell out.",
        "anyOf" => "The arguments must match at least one of several alternative shapes, which this schema does not spell out.",
        _ => "The arguments must also satisfy further combined constraints, which this schema does not spell out.",
    }
    .to_string()
}

pub fn with_note(description: &str, note: Option<String>) -> String {
    match note {
        None => description.to_string(),
        Some(note) if description.is_empty() => note,
        Some(note) => format!("{description}\n\n{note}"),
    }
}

/// Branch properties copied into the root: the first branch to declare a name wins, the root wins over all.
fn merge_branch_properties(schema: &mut Map<String, Value>) {
    let mut merged = Map::new();
    for keyword in COMPOSITIONS {
        let Some(branches) = schema.get(keyword).and_then(Value::as_array) else { continue };
        for branch in branches {
            let Some(declared) = branch.get("properties").and_then(Value::as_object) else { continue };
            for (name, sub) in declared {
                merged.entry(name.clone()).or_insert_with(|| sub.clone());
            }
        }
    }
    if merged.is_empty() {
        return;
    }
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    let properties = schema["properties"].as_object_mut().expect("made an object above");
    for (name, sub) in merged {
        properties.entry(name).or_insert(sub);
    }
}

/// Remove root keywords one after the other, as seed 001's Rust does: with `preserve_order`
/// serde_json's `Map::remove` is a swap_remove (the last key takes the removed key's place),
/// the key order the built-in subject models too (its `registry.swap_remove`).
fn strip(schema: &mut Map<String, Value>, keywords: &[&str]) {
    for keyword in keywords {
        schema.remove(*keyword);
    }
}

fn prune_dangling_required(schema: &mut Map<String, Value>) {
    let declared: Vec<String> =
        schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|name| name.as_str().is_some_and(|n| declared.iter().any(|d| d == n)));
    }
}

/// The old pass: whatever the schema, the root comes out a plain object.
pub fn flatten(schema: Value) -> (Value, Option<String>) {
    let note = constraint_note(&schema);
    let Value::Object(mut schema) = schema else { return (Value::Object(Map::new()), note) };
    merge_branch_properties(&mut schema);
    schema.insert("type".into(), Value::from("object"));
    strip(&mut schema, &["oneOf", "anyOf", "allOf", "enum", "not"]);
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    prune_dangling_required(&mut schema);
    (Value::Object(schema), note)
}

/// The new pass on the first-party lane: narrow exactly the recorded root keywords.
pub fn narrow(schema: Value) -> (Value, Option<String>) {
    let mut note = constraint_note(&schema);
    let Value::Object(mut schema) = schema else { return (Value::Object(Map::new()), note) };
    let stripped = COMPOSITIONS.into_iter().find(|keyword| schema.contains_key(*keyword));
    merge_branch_properties(&mut schema);
    strip(&mut schema, &COMPOSITIONS);
    let merged_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    if stripped.is_some() && !schema.contains_key("type") {
        schema.insert("type".into(), Value::from("object"));
    }
    prune_dangling_required(&mut schema);
    if note.is_none() && !merged_properties {
        note = stripped.map(generic_note);
    }
    (Value::Object(schema), note)
}

/// The host of a URL (after any userinfo, without port or trailing dot), lower-cased.
fn host_of(base_url: &str) -> Option<String> {
    let url = base_url.trim();
    let rest = match url.find("://") {
        Some(at) if at > 0 && url[..at].chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) => &url[at + 3..],
        Some(_) => return None,
        None => url.strip_prefix("//")?,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if host_port.starts_with('[') {
        return None; // an IP literal is never the first-party host
    }
    let host = host_port.split(':').next()?;
    Some(host.to_ascii_lowercase().trim_end_matches('.').to_string())
}

pub fn first_party_endpoint(base_url: &Value) -> bool {
    base_url.as_str().and_then(host_of).is_some_and(|host| host == FIRST_PARTY_HOST)
}

pub fn first_party(lane: &Value) -> bool {
    let by_identity = lane.get("provider").and_then(Value::as_str) == Some("anthropic");
    let by_endpoint = first_party_endpoint(lane.get("base_url").unwrap_or(&Value::Null));
    by_identity || by_endpoint
}
