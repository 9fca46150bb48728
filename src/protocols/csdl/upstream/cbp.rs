//! CBP, E3's binary frames for CSDL messages, decoded into the CBP message
//! dicts they carry: one JSON line per frame, so a finding's line is the
//! frame's number.
//!
//! A frame is an 8-byte header — magic `CB 50`, version 1, flags, payload
//! length (u16, big-endian), CRC-16/CCITT-FALSE of the payload — and the
//! payload: MessagePack of a map with one-byte field ids, LZ4-framed when
//! flag 0x04 is set. Flag 0x02 replaces the payload by the xxHash64 of one
//! sent before (deduplication); flag 0x01 puts the xxHash64 of a base
//! message before it (a delta). Both hashes are resolved against the
//! frames earlier in the same input, as E3's registry resolves them; what
//! the input does not hold is said on that frame. Damage (a cut frame, a
//! wrong CRC, a payload that does not decode) is a line with the frame's
//! facts and an `error`; a frame after a cut cannot be found, so reading
//! stops there.

use std::collections::HashMap;
use std::io::Read;

use serde_json::{Map, Value, json};

/// The two bytes every frame starts with.
pub const MAGIC: [u8; 2] = [0xCB, 0x50];
const VERSION: u8 = 1;
const HEADER: usize = 8;
const FLAG_DELTA: u8 = 0x01;
const FLAG_HASH: u8 = 0x02;
const FLAG_LZ4: u8 = 0x04;
const FLAG_ENCRYPTED: u8 = 0x08;
/// How deep MessagePack may nest (E3's messages are a few levels deep).
const MAX_DEPTH: usize = 128;

/// Whether bytes start like a CBP frame: its magic, whatever the version
/// byte after it (`CB 50` is no UTF-8 text, so nothing else is lost; a
/// version aiproto does not read is then named by the frame's finding).
pub fn is_cbp(head: &[u8]) -> bool {
    head.len() >= 2 && head[..2] == MAGIC
}

/// CBP's one-byte ids, from E3's `cbp_schema.py`.
mod ids {
    pub const AGENTS: [(u8, &str); 13] = [
        (0x01, "analyzer"),
        (0x02, "strategist"),
        (0x03, "critic"),
        (0x04, "synthesizer"),
        (0x05, "reflector"),
        (0x10, "lubtfy_orchestrator"),
        (0x11, "researcher"),
        (0x12, "writer"),
        (0x13, "reviewer"),
        (0x20, "nexus"),
        (0xFE, "user"),
        (0xFF, "system"),
        (0x00, "unknown"),
    ];
    pub const TYPES: [(u8, &str); 10] = [
        (0x01, "req"),
        (0x02, "res"),
        (0x03, "ctx"),
        (0x04, "hnd"),
        (0x05, "fbk"),
        (0x06, "syn"),
        (0x07, "delta"),
        (0x10, "dsc"),
        (0x11, "reg"),
        (0x12, "hbt"),
    ];
    pub const PRIORITIES: [(u8, &str); 4] = [
        (0x01, "low"),
        (0x02, "normal"),
        (0x03, "high"),
        (0x04, "critical"),
    ];
    pub const FIELDS: [(u8, &str); 29] = [
        (0x01, "type"),
        (0x02, "sender"),
        (0x03, "receiver"),
        (0x04, "content"),
        (0x05, "metadata"),
        (0x06, "timestamp"),
        (0x07, "message_id"),
        (0x08, "priority"),
        (0x10, "hash"),
        (0x11, "delta_ref"),
        (0x12, "delta_payload"),
        (0x20, "task"),
        (0x21, "target"),
        (0x22, "result"),
        (0x23, "confidence"),
        (0x24, "reasoning"),
        (0x25, "recommendations"),
        (0x26, "risks"),
        (0x27, "opportunities"),
        (0x30, "analysis"),
        (0x31, "strategies"),
        (0x32, "critique"),
        (0x33, "synthesis"),
        (0x34, "reflection"),
        (0x40, "key_factors"),
        (0x41, "next_steps"),
        (0x42, "success_metrics"),
        (0x43, "risk_mitigation"),
        (0x44, "quality_eval"),
    ];

    pub fn name(table: &[(u8, &'static str)], id: u64) -> Option<&'static str> {
        table
            .iter()
            .find(|(i, _)| u64::from(*i) == id)
            .map(|(_, n)| *n)
    }
}

/// Damage found in a frame: a finding code and its words; `stop` when
/// nothing after it is read.
struct Damage {
    code: &'static str,
    message: String,
    stop: bool,
}

fn damage(code: &'static str, message: impl Into<String>) -> Damage {
    Damage {
        code,
        message: message.into(),
        stop: false,
    }
}

/// How many payload bytes (after LZ4, repeats counted each time) a stream
/// may decode to, as a multiple of `--max-message-bytes`: a few kilobytes
/// of repeats or of compressed zeros cannot make gigabytes.
const STREAM_BUDGET: usize = 4;

/// Decodes a stream of CBP frames into JSON Lines: each line a CBP message
/// dict with a `cbp` key of the frame's facts (number, byte offset, size,
/// flags, and its `error` when it was damaged). `max_payload` caps what an
/// LZ4 payload may decompress to.
pub fn to_text(bytes: &[u8], max_payload: usize) -> String {
    let mut registry: HashMap<u64, Vec<u8>> = HashMap::new();
    let mut budget = Budget {
        left: max_payload.saturating_mul(STREAM_BUDGET),
        of: max_payload.saturating_mul(STREAM_BUDGET),
    };
    let mut lines = Vec::new();
    let mut offset = 0;
    let mut number = 0;
    while offset < bytes.len() {
        number += 1;
        let rest = &bytes[offset..];
        let mut facts = Map::new();
        facts.insert("frame".into(), json!(number));
        facts.insert("offset".into(), json!(offset));
        let mut framed = match header(rest, offset) {
            Ok(framed) => framed,
            Err(d) => {
                lines.push(broken(facts, &d));
                break;
            }
        };
        let size = HEADER + framed.payload.len();
        facts.insert("bytes".into(), json!(size));
        facts.insert("flags".into(), json!(flag_names(framed.flags)));
        offset += size;
        if let Some(d) = framed.crc.take() {
            lines.push(broken(facts, &d));
            continue;
        }
        match decode_frame(&framed, &mut registry, &mut facts, max_payload, &mut budget) {
            Ok(mut dict) => {
                dict.insert("cbp".into(), Value::Object(facts));
                lines.push(Value::Object(dict));
            }
            Err(d) => {
                lines.push(broken(facts, &d));
                if d.stop {
                    break;
                }
            }
        }
    }
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text
}

/// A line for a frame that could not be decoded.
fn broken(mut facts: Map<String, Value>, d: &Damage) -> Value {
    facts.insert(
        "error".into(),
        json!({"code": d.code, "message": d.message}),
    );
    json!({ "cbp": facts })
}

fn flag_names(flags: u8) -> Vec<&'static str> {
    [
        (FLAG_DELTA, "delta"),
        (FLAG_HASH, "dedup"),
        (FLAG_LZ4, "lz4"),
        (FLAG_ENCRYPTED, "encrypted"),
    ]
    .iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| *name)
    .collect()
}

/// A frame whose header was read: its flags, its payload, and the damage
/// when the payload's CRC is not the header's (the length is still known,
/// so the next frame can be found).
struct Framed<'a> {
    flags: u8,
    payload: &'a [u8],
    crc: Option<Damage>,
}

/// The header of the frame at the start of `rest` (at byte `offset` of the
/// input): its flags and payload, CRC checked.
fn header(rest: &[u8], offset: usize) -> Result<Framed<'_>, Damage> {
    if rest.len() < HEADER {
        return Err(damage(
            "CSDL-CBP-FRAME",
            format!(
                "cut off: {} byte(s) at byte {offset}, and a frame header alone is {HEADER}",
                rest.len()
            ),
        ));
    }
    if rest[..2] != MAGIC {
        return Err(damage(
            "CSDL-CBP-FRAME",
            format!(
                "no CBP frame starts at byte {offset} (0x{:02X} 0x{:02X}, not CB 50): the bytes before it were not whole frames",
                rest[0], rest[1]
            ),
        ));
    }
    if rest[2] != VERSION {
        return Err(damage(
            "CSDL-CBP-FRAME",
            format!(
                "CBP version {} at byte {offset}; aiproto reads version {VERSION}",
                rest[2]
            ),
        ));
    }
    let flags = rest[3];
    let length = usize::from(u16::from_be_bytes([rest[4], rest[5]]));
    let crc = u16::from_be_bytes([rest[6], rest[7]]);
    let Some(payload) = rest.get(HEADER..HEADER + length) else {
        return Err(damage(
            "CSDL-CBP-FRAME",
            format!(
                "cut off: the header announces {length} payload byte(s), {} follow",
                rest.len() - HEADER
            ),
        ));
    };
    let actual = crc16(payload);
    if actual != crc {
        return Ok(Framed {
            flags,
            payload,
            crc: Some(damage(
                "CSDL-CBP-CRC",
                format!(
                    "the payload's CRC-16 is 0x{actual:04X}, the header says 0x{crc:04X}: the frame was changed or damaged"
                ),
            )),
        });
    }
    Ok(Framed {
        flags,
        payload,
        crc: None,
    })
}

/// The payload bytes a stream may still decode to.
struct Budget {
    left: usize,
    of: usize,
}

/// One frame's payload decoded into its message dict; `facts` gains what
/// the flags resolved to.
fn decode_frame(
    frame: &Framed<'_>,
    registry: &mut HashMap<u64, Vec<u8>>,
    facts: &mut Map<String, Value>,
    max_payload: usize,
    budget: &mut Budget,
) -> Result<Map<String, Value>, Damage> {
    let (flags, payload) = (frame.flags, frame.payload);
    if flags & FLAG_ENCRYPTED != 0 {
        return Err(damage(
            "CSDL-CBP-FRAME",
            "the frame is flagged encrypted, which CBP reserves and does not define",
        ));
    }
    if flags & 0xF0 != 0 {
        return Err(damage(
            "CSDL-CBP-FRAME",
            format!("flag bits 0x{:02X} are none CBP defines", flags & 0xF0),
        ));
    }
    let mut body = payload;
    let mut base = None;
    if flags & FLAG_DELTA != 0 {
        let Some((hash, rest)) = body.split_first_chunk::<8>() else {
            return Err(damage(
                "CSDL-CBP-FRAME",
                "a delta frame starts with its base's 8-byte hash; this one is shorter",
            ));
        };
        base = Some(u64::from_be_bytes(*hash));
        body = rest;
    }
    let owned;
    if flags & FLAG_HASH != 0 {
        let Ok(hash) = <[u8; 8]>::try_from(body) else {
            return Err(damage(
                "CSDL-CBP-FRAME",
                format!(
                    "a deduplicated frame carries an 8-byte hash; this one carries {} byte(s)",
                    body.len()
                ),
            ));
        };
        let hash = u64::from_be_bytes(hash);
        facts.insert("dedup".into(), json!(format!("0x{hash:016x}")));
        let Some(earlier) = registry.get(&hash) else {
            return Err(damage(
                "CSDL-CBP-UNRESOLVED",
                format!(
                    "the frame repeats a message by its hash 0x{hash:016x}, and no earlier frame of this input carried it: its content is unknown here"
                ),
            ));
        };
        owned = earlier.clone();
    } else if flags & FLAG_LZ4 != 0 {
        owned = decompress(body, max_payload)?;
        registry.insert(xxhash_rust::xxh64::xxh64(&owned, 0), owned.clone());
    } else {
        owned = body.to_vec();
        registry.insert(xxhash_rust::xxh64::xxh64(&owned, 0), owned.clone());
    }
    // What the frame decodes to: its payload, and for a delta the base it
    // is merged over (a thousand small deltas over one large base would
    // otherwise write a thousand copies of the base unaccounted).
    let base_bytes = base.and_then(|b| registry.get(&b)).map_or(0, Vec::len);
    budget.left = budget
        .left
        .checked_sub(owned.len().saturating_add(base_bytes))
        .ok_or_else(|| Damage {
            code: "CSDL-CBP-PAYLOAD",
            message: format!(
                "the frames decode to more than {} bytes ({STREAM_BUDGET} × --max-message-bytes): this frame and the rest of the input are not read",
                budget.of
            ),
            stop: true,
        })?;
    let compact = unpack(&owned)?;
    let mut dict = expand_message(&compact)?;
    if let Some(base) = base {
        let base_name = format!("0x{base:016x}");
        match registry
            .get(&base)
            .map(|b| unpack(b).and_then(|c| expand_message(&c)))
        {
            Some(Ok(base_dict)) => {
                facts.insert("delta".into(), json!({"base": base_name, "merged": true}));
                dict = merge_delta(base_dict, dict);
            }
            _ => {
                facts.insert("delta".into(), json!({"base": base_name, "merged": false}));
                facts.insert(
                    "error".into(),
                    json!({
                        "code": "CSDL-CBP-DELTA",
                        "message": format!("a delta against base {base_name}, which no earlier frame of this input carries: read as the changed fields alone"),
                    }),
                );
            }
        }
    }
    Ok(dict)
}

/// An LZ4 frame's content, at most `max` bytes.
fn decompress(body: &[u8], max: usize) -> Result<Vec<u8>, Damage> {
    let mut out = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    lz4_flex::frame::FrameDecoder::new(body)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| {
            damage(
                "CSDL-CBP-PAYLOAD",
                format!("the LZ4 payload does not decompress: {e}"),
            )
        })?;
    if out.len() > max {
        return Err(damage(
            "CSDL-CBP-PAYLOAD",
            format!("the LZ4 payload decompresses to more than {max} bytes (--max-message-bytes)"),
        ));
    }
    Ok(out)
}

/// The MessagePack map of a payload, all of it.
fn unpack(bytes: &[u8]) -> Result<rmpv::Value, Damage> {
    let mut reader = bytes;
    let value = rmpv::decode::read_value_with_max_depth(&mut reader, MAX_DEPTH).map_err(|e| {
        damage(
            "CSDL-CBP-PAYLOAD",
            format!("the payload is not MessagePack: {e}"),
        )
    })?;
    if !reader.is_empty() {
        return Err(damage(
            "CSDL-CBP-PAYLOAD",
            format!(
                "{} byte(s) follow the payload's MessagePack value",
                reader.len()
            ),
        ));
    }
    Ok(value)
}

/// The compact map (field ids) as E3's `to_dict` writes it: names for ids.
fn expand_message(compact: &rmpv::Value) -> Result<Map<String, Value>, Damage> {
    let rmpv::Value::Map(entries) = compact else {
        return Err(damage(
            "CSDL-CBP-PAYLOAD",
            "the payload is not a MessagePack map",
        ));
    };
    let mut dict = Map::new();
    for (key, value) in entries {
        let name = key_name(key)?;
        let value = match (name.as_str(), value.as_u64()) {
            ("type", Some(id)) => id_or_number(&ids::TYPES, id),
            ("sender" | "receiver", Some(id)) => ids::name(&ids::AGENTS, id)
                .map_or_else(|| json!(format!("agent-0x{id:02x}")), |n| json!(n)),
            ("priority", Some(id)) => id_or_number(&ids::PRIORITIES, id),
            _ => to_json(value, &format!("/{name}"))?,
        };
        dict.insert(name, value);
    }
    Ok(dict)
}

fn id_or_number(table: &[(u8, &'static str)], id: u64) -> Value {
    ids::name(table, id).map_or_else(|| json!(id), |n| json!(n))
}

/// A map key: a field id's name (`field_N` for one the table lacks, as
/// E3's decoder writes it) or the text key itself.
fn key_name(key: &rmpv::Value) -> Result<String, Damage> {
    match key {
        rmpv::Value::Integer(i) => Ok(match i.as_u64() {
            Some(id) => {
                ids::name(&ids::FIELDS, id).map_or_else(|| format!("field_{id}"), str::to_string)
            }
            None => format!("field_{i}"),
        }),
        rmpv::Value::String(s) => s
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| damage("CSDL-CBP-PAYLOAD", "a map key is not UTF-8 text")),
        other => Err(damage(
            "CSDL-CBP-PAYLOAD",
            format!("a map key is {other}, neither a field id nor text"),
        )),
    }
}

/// A MessagePack value as JSON; maps' id keys named.
fn to_json(value: &rmpv::Value, path: &str) -> Result<Value, Damage> {
    use rmpv::Value as M;
    Ok(match value {
        M::Nil => Value::Null,
        M::Boolean(b) => json!(b),
        M::Integer(i) => match (i.as_u64(), i.as_i64()) {
            (Some(u), _) => json!(u),
            (_, Some(s)) => json!(s),
            _ => Value::Null,
        },
        M::F32(f) => finite(f64::from(*f), path)?,
        M::F64(f) => finite(*f, path)?,
        M::String(s) => json!(s.as_str().ok_or_else(|| {
            damage(
                "CSDL-CBP-PAYLOAD",
                format!("the text at {path} is not UTF-8"),
            )
        })?),
        M::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| to_json(v, &format!("{path}/{i}")))
                .collect::<Result<_, _>>()?,
        ),
        M::Map(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                let name = key_name(k)?;
                let v = to_json(v, &format!("{path}/{name}"))?;
                map.insert(name, v);
            }
            Value::Object(map)
        }
        M::Binary(_) | M::Ext(..) => {
            return Err(damage(
                "CSDL-CBP-PAYLOAD",
                format!("{path} holds raw bytes, which a CBP message (JSON-like) does not"),
            ));
        }
    })
}

fn finite(f: f64, path: &str) -> Result<Value, Damage> {
    serde_json::Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| {
            damage(
                "CSDL-CBP-PAYLOAD",
                format!("{path} is {f}, which JSON cannot hold"),
            )
        })
}

/// A delta over its base, as E3's `DeltaEncoder._merge`: objects merged
/// key by key, anything else replaced.
fn merge_delta(mut base: Map<String, Value>, delta: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in delta {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(old)), Value::Object(new)) => {
                let merged = merge_delta(std::mem::take(old), new);
                *old = merged;
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
    base
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), as E3 computes it.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &byte in data {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// Frames built as E3's encoder builds them, for tests here and elsewhere.
#[cfg(test)]
pub(crate) mod encode {
    use super::*;

    /// A compact message map (field ids as keys) as MessagePack.
    pub fn pack(entries: Vec<(rmpv::Value, rmpv::Value)>) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &rmpv::Value::Map(entries)).unwrap();
        out
    }

    /// A frame around a payload.
    pub fn frame(flags: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![MAGIC[0], MAGIC[1], VERSION, flags];
        out.extend(u16::try_from(payload.len()).unwrap().to_be_bytes());
        out.extend(crc16(payload).to_be_bytes());
        out.extend(payload);
        out
    }

    pub fn lz4(payload: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(payload).unwrap();
        enc.finish().unwrap()
    }

    pub fn message(kind: u8, sender: u8, content: &str) -> Vec<u8> {
        use rmpv::Value as M;
        pack(vec![
            (M::from(1), M::from(kind)),
            (M::from(2), M::from(sender)),
            (M::from(3), M::from(2)),
            (M::from(6), M::from(1_764_151_200)),
            (M::from(8), M::from(2)),
            (
                M::from(4),
                M::Map(vec![
                    (M::from(0x20), M::from(content)),
                    (M::from("extra"), M::from(1)),
                ]),
            ),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::encode::*;
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<Value> {
        to_text(bytes, 1 << 20)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn the_crc_is_e3_s() {
        // CRC-16/CCITT-FALSE's check value.
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn plain_lz4_dedup_and_delta_frames_decode() {
        let first = message(1, 1, "analyze auth");
        let mut stream = frame(0, &first);
        stream.extend(frame(FLAG_LZ4, &lz4(&message(2, 2, "done"))));
        let hash = xxhash_rust::xxh64::xxh64(&first, 0);
        stream.extend(frame(FLAG_HASH, &hash.to_be_bytes()));
        let mut delta = hash.to_be_bytes().to_vec();
        delta.extend(message(4, 3, "critique"));
        stream.extend(frame(FLAG_DELTA, &delta));
        let got = lines(&stream);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0]["type"], "req");
        assert_eq!(got[0]["sender"], "analyzer");
        assert_eq!(got[0]["receiver"], "strategist");
        assert_eq!(
            got[0]["content"],
            json!({"task": "analyze auth", "extra": 1})
        );
        assert_eq!(got[0]["priority"], "normal");
        assert_eq!(got[0]["cbp"]["frame"], 1);
        assert_eq!(got[1]["type"], "res");
        assert_eq!(got[1]["cbp"]["flags"], json!(["lz4"]));
        assert_eq!(got[2], {
            let mut same = got[0].clone();
            same["cbp"] = got[2]["cbp"].clone();
            same
        });
        assert_eq!(got[3]["cbp"]["delta"]["merged"], true);
        assert_eq!(got[3]["type"], "hnd");
        assert_eq!(got[3]["content"]["task"], "critique");
    }

    #[test]
    fn damage_is_said_on_its_frame_and_reading_stops_only_where_frames_are_lost() {
        let good = frame(0, &message(1, 1, "a"));
        let mut bad_crc = good.clone();
        let last = bad_crc.len() - 1;
        bad_crc[last] ^= 0x20;
        let mut stream = bad_crc;
        stream.extend(frame(FLAG_HASH, &7u64.to_be_bytes()));
        let mut delta = 9u64.to_be_bytes().to_vec();
        delta.extend(message(2, 1, "b"));
        stream.extend(frame(FLAG_DELTA, &delta));
        stream.extend(frame(0, b"\xc1"));
        stream.extend(&good[..good.len() - 3]);
        let got = lines(&stream);
        let codes: Vec<&str> = got
            .iter()
            .map(|l| l["cbp"]["error"]["code"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            codes,
            [
                "CSDL-CBP-CRC",
                "CSDL-CBP-UNRESOLVED",
                "CSDL-CBP-DELTA",
                "CSDL-CBP-PAYLOAD",
                "CSDL-CBP-FRAME"
            ]
        );
        // The unresolved delta is still read, as its changed fields.
        assert_eq!(got[2]["content"]["task"], "b");
        let mut garbage = good.clone();
        garbage.extend(b"not a frame");
        assert_eq!(lines(&garbage)[1]["cbp"]["error"]["code"], "CSDL-CBP-FRAME");
    }

    /// JSON as MessagePack, text keys kept.
    fn msgpack_of(value: &Value) -> rmpv::Value {
        use rmpv::Value as M;
        match value {
            Value::Null => M::Nil,
            Value::Bool(b) => M::from(*b),
            Value::Number(n) => n
                .as_i64()
                .map_or_else(|| M::F64(n.as_f64().unwrap()), M::from),
            Value::String(s) => M::from(s.as_str()),
            Value::Array(items) => M::Array(items.iter().map(msgpack_of).collect()),
            Value::Object(map) => M::Map(
                map.iter()
                    .map(|(k, v)| (M::from(k.as_str()), msgpack_of(v)))
                    .collect(),
            ),
        }
    }

    fn content() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            "[a-z ]{0,12}".prop_map(Value::String),
            any::<i32>().prop_map(|n| json!(n)),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_config::config(200))]

        /// Any stream of messages, each sent plain, LZ4-compressed or as a
        /// repeat by hash, decodes to the same messages in the same order.
        #[test]
        fn every_stream_of_frames_decodes_to_what_was_sent(
            sent in proptest::collection::vec((content(), 0u8..3), 1..6)
        ) {
            use rmpv::Value as M;
            let mut stream = Vec::new();
            // Each frame's payload, and the message it carries.
            let mut carried: Vec<(Vec<u8>, Value)> = Vec::new();
            for (i, (body, how)) in sent.iter().enumerate() {
                let payload = pack(vec![
                    (M::from(1), M::from(1)),
                    (M::from(2), M::from(1)),
                    (M::from(7), M::from(i)),
                    (M::from(4), M::Map(vec![(M::from("body"), msgpack_of(body))])),
                ]);
                match (how, carried.last().cloned()) {
                    (2, Some(earlier)) => {
                        let hash = xxhash_rust::xxh64::xxh64(&earlier.0, 0);
                        stream.extend(frame(FLAG_HASH, &hash.to_be_bytes()));
                        carried.push(earlier);
                        continue;
                    }
                    (1, _) => stream.extend(frame(FLAG_LZ4, &lz4(&payload))),
                    _ => stream.extend(frame(0, &payload)),
                }
                carried.push((payload, json!({"message_id": i, "content": {"body": body}})));
            }
            let got = lines(&stream);
            proptest::prop_assert_eq!(got.len(), sent.len());
            for (line, (_, want)) in got.iter().zip(&carried) {
                proptest::prop_assert!(line["cbp"].get("error").is_none(), "{}", line);
                proptest::prop_assert_eq!(&line["content"], &want["content"]);
                proptest::prop_assert_eq!(&line["message_id"], &want["message_id"]);
            }
        }
    }

    #[test]
    fn repeats_cannot_make_a_small_input_decode_to_a_huge_one() {
        let first = message(1, 1, &"x".repeat(900));
        let hash = xxhash_rust::xxh64::xxh64(&first, 0);
        let mut stream = frame(0, &first);
        for _ in 0..10_000 {
            stream.extend(frame(FLAG_HASH, &hash.to_be_bytes()));
        }
        // 160 KB of repeats would be 9 MB of messages: the budget is 4 × 1,000 bytes.
        let got: Vec<Value> = to_text(&stream, 1000)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), 5, "four read, then the refusal");
        assert_eq!(got[4]["cbp"]["error"]["code"], "CSDL-CBP-PAYLOAD");
        assert!(got[3]["cbp"].get("error").is_none());
    }

    /// Deltas over one large base: each merged message holds the base,
    /// so each is charged the base's bytes too (an 18 KB file once decoded
    /// to 1.4 GB this way).
    #[test]
    fn deltas_over_a_large_base_are_counted_with_their_base() {
        let base = message(1, 1, &"x".repeat(900));
        let hash = xxhash_rust::xxh64::xxh64(&base, 0);
        let mut stream = frame(0, &base);
        let mut delta = hash.to_be_bytes().to_vec();
        delta.extend(message(4, 3, "d"));
        for _ in 0..10_000 {
            stream.extend(frame(FLAG_DELTA, &delta));
        }
        let got: Vec<Value> = to_text(&stream, 1000)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The base and three deltas (each ~900 + ~30 bytes) fit in 4,000.
        assert!(got.len() <= 6, "{} lines", got.len());
        assert_eq!(
            got.last().unwrap()["cbp"]["error"]["code"],
            "CSDL-CBP-PAYLOAD"
        );
        assert_eq!(got[1]["cbp"]["delta"]["merged"], true);
    }

    #[test]
    fn a_payload_that_inflates_past_the_cap_is_refused() {
        let big = message(1, 1, &"x".repeat(60_000));
        let got: Vec<Value> = to_text(&frame(FLAG_LZ4, &lz4(&big)), 1000)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got[0]["cbp"]["error"]["code"], "CSDL-CBP-PAYLOAD");
    }
}
