//! The previous release's node-to-node payloads, read and answered by this one: what lets
//! the two run side by side during a rolling upgrade ([`super::wire`]). The fixtures in
//! `tests/fixtures/wire/1/` were written by the previous release itself (its README says
//! how): every request and answer kind, and what two of its nodes said to each other
//! while playing (captured from NATS).

use super::inbox::{decode, encode};
use super::subjects::{Envelope, LobbyChange, Moved, NodeHeard, SessionEnded};
use crate::table::{Answer, Out};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The previous release's format version, and where its payloads are kept.
const PREVIOUS: u32 = 1;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire")
        .join(PREVIOUS.to_string());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "bin")))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The frames of a batch as the previous release wrote them: whether made for one
/// connection, and the JSON.
fn frames(mut payload: &[u8]) -> Vec<(bool, Vec<u8>)> {
    let mut out = Vec::new();
    while payload.len() >= 5 {
        let len = u32::from_le_bytes(payload[1..5].try_into().unwrap()) as usize;
        out.push((payload[0] == 1, payload[5..5 + len].to_vec()));
        payload = &payload[5 + len..];
    }
    out
}

/// What kind of payload a fixture is, by its name's first word.
fn kind(name: &str) -> &str {
    name.trim_start_matches("captured-")
        .split(['-', '.'])
        .next()
        .unwrap()
}

/// Whether everything `old` says, `new` says the same (`new` may say more: fields the
/// previous release's readers skip). An absent field and a null one are the same to
/// serde's readers of an `Option`.
fn contains(old: &Value, new: &Value, at: &str, missing: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (key, value) in o {
                match n.get(key) {
                    Some(v) => contains(value, v, &format!("{at}.{key}"), missing),
                    None if value.is_null() => {}
                    None => missing.push(format!("{at}.{key} is gone")),
                }
            }
        }
        (Value::Array(o), Value::Array(n)) if o.len() == n.len() => {
            for (i, (a, b)) in o.iter().zip(n).enumerate() {
                contains(a, b, &format!("{at}[{i}]"), missing);
            }
        }
        _ if old == new => {}
        _ => missing.push(format!("{at}: was {old}, now {new}")),
    }
}

/// Reads `bytes` as this release's `T`, writes it again, and checks that what it writes
/// still says everything the previous release wrote.
fn read_and_write<T: DeserializeOwned + Serialize>(
    name: &str,
    bytes: &[u8],
    problems: &mut Vec<String>,
) {
    let value: T = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => return problems.push(format!("{name}: this release cannot read it: {e}")),
    };
    let old: Value = serde_json::from_slice(bytes).unwrap();
    let new = serde_json::to_value(&value).unwrap();
    let mut missing = Vec::new();
    contains(&old, &new, "", &mut missing);
    for m in missing {
        problems.push(format!("{name}: written again, {m}"));
    }
}

/// Every object of `value` with more than one key (a struct, or an internally tagged
/// enum; a one-key object may be an externally tagged enum) given a key no release uses.
fn with_a_later_field(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for v in map.values_mut() {
                with_a_later_field(v);
            }
            if map.len() > 1 {
                map.insert("a_later_release_field".into(), Value::from(1));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(with_a_later_field),
        _ => {}
    }
}

fn check_json<T: DeserializeOwned + Serialize>(
    name: &str,
    bytes: &[u8],
    problems: &mut Vec<String>,
) {
    read_and_write::<T>(name, bytes, problems);
    let mut later: Value = serde_json::from_slice(bytes).unwrap();
    with_a_later_field(&mut later);
    if let Err(e) = serde_json::from_value::<T>(later) {
        problems.push(format!(
            "{name}: with a field a later release adds, this release cannot read it ({e}): a \
             type on the wire denies unknown fields"
        ));
    }
}

#[test]
fn this_release_reads_every_payload_of_the_previous_release_and_writes_all_it_read() {
    let fixtures = fixtures();
    let mut problems = Vec::new();
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for (name, bytes) in &fixtures {
        let kind = kind(name).to_string();
        *kinds.entry(kind.clone()).or_default() += 1;
        match kind.as_str() {
            "envelope" => check_json::<Envelope>(name, bytes, &mut problems),
            "answer" => check_json::<Answer>(name, bytes, &mut problems),
            "lobby" => check_json::<LobbyChange>(name, bytes, &mut problems),
            "moved" => check_json::<Moved>(name, bytes, &mut problems),
            "node" => {
                check_json::<NodeHeard>(name, bytes, &mut problems);
                let heard: NodeHeard = serde_json::from_slice(bytes).unwrap();
                assert_eq!(
                    heard.wire, PREVIOUS,
                    "{name}: a heartbeat without a version"
                );
            }
            "session_ended" => check_json::<SessionEnded>(name, bytes, &mut problems),
            "batch" => {
                if decode(bytes::Bytes::from(bytes.clone())).is_none() {
                    problems.push(format!("{name}: this release cannot read the batch"));
                    continue;
                }
                // Every frame, own or shared, read as this release's message and written
                // again with everything the previous release's frame said (the page reads
                // both kinds; an own frame is also read by the connection's node).
                for (i, (_, text)) in frames(bytes).into_iter().enumerate() {
                    check_json::<poker_protocol::ServerMsg>(
                        &format!("{name} frame {i}"),
                        &text,
                        &mut problems,
                    );
                }
                let batch = decode(bytes::Bytes::from(bytes.clone())).unwrap();
                assert_eq!(encode(batch).len(), bytes.len(), "{name}: encoded again");
            }
            other => problems.push(format!("{name}: unknown kind {other}")),
        }
    }
    eprintln!(
        "{} payloads of release format {PREVIOUS}: {kinds:?}",
        fixtures.len()
    );
    for wanted in [
        "envelope",
        "answer",
        "lobby",
        "moved",
        "node",
        "session_ended",
        "batch",
    ] {
        assert!(kinds.contains_key(wanted), "no {wanted} fixture: {kinds:?}");
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The batch frames the previous release sent, each as this release reads it: a frame
/// made for one connection (own) must be read as a message, not passed on unread.
#[test]
fn every_frame_the_previous_release_sent_a_connection_is_read_as_a_message() {
    let mut own = 0;
    for (name, bytes) in fixtures() {
        if kind(&name) != "batch" {
            continue;
        }
        let batch = decode(bytes::Bytes::from(bytes.clone())).unwrap();
        for (out, (was_own, _)) in batch.iter().zip(frames(&bytes)) {
            if was_own {
                own += 1;
                assert!(
                    matches!(out, Out::Own(_)),
                    "{name}: an own frame was not read"
                );
            }
        }
    }
    assert!(own > 0, "no own frame among the fixtures");
}
