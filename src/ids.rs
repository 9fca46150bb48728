//! Message identifiers: ULIDs (the default) and UUIDv7, generated and checked.

use std::borrow::Cow;
use std::str::FromStr;

/// Which kind of identifier an id string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Ulid,
    UuidV7,
}

/// Recognises a ULID (26 Crockford base32 characters, upper or lower case,
/// first character 0–7) or a UUID of version 7 with the RFC 9562 variant.
pub fn classify(id: &str) -> Option<IdKind> {
    if id.len() == 26 && ulid::Ulid::from_str(id).is_ok() {
        return Some(IdKind::Ulid);
    }
    if id.len() == 36 {
        let uuid = uuid::Uuid::try_parse(id).ok()?;
        if uuid.get_version_num() == 7 && uuid.get_variant() == uuid::Variant::RFC4122 {
            return Some(IdKind::UuidV7);
        }
    }
    None
}

/// Why an id that [`classify`] refuses is not a ULID, when it was meant to
/// be one (not 36 characters long, the length of a UUID): the first
/// character outside Crockford's base32 and its 0-based place (`I`, `L`,
/// `O` and `U` are left out of it), a wrong length, or a first character
/// past 7 (a time beyond the year 10889).
pub fn why_not_ulid(id: &str) -> Option<(String, usize)> {
    if classify(id).is_some() || id.chars().count() == 36 {
        return None;
    }
    const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    if let Some((place, c)) = id
        .chars()
        .enumerate()
        .find(|(_, c)| !CROCKFORD.contains(c.to_ascii_uppercase()))
    {
        let why = match c.to_ascii_uppercase() {
            'I' | 'L' | 'O' | 'U' => format!(
                "character {} is `{c}`, which ULIDs leave out (no I, L, O or U: they look like 1, 1, 0 and V)",
                place + 1
            ),
            _ => format!(
                "character {} is `{}`, not one of a ULID's (0-9 and A-Z without I, L, O, U)",
                place + 1,
                crate::chars::describe(c)
            ),
        };
        return Some((why, place));
    }
    let length = id.chars().count();
    if length != 26 {
        return Some((format!("it has {length} characters; a ULID has 26"), 0));
    }
    Some((
        "its first character is past 7 (a ULID's time would overflow)".into(),
        0,
    ))
}

/// The creation time (milliseconds since the Unix epoch) carried by an id.
pub fn timestamp_ms(id: &str) -> Option<u64> {
    match classify(id)? {
        IdKind::Ulid => ulid::Ulid::from_str(id).ok().map(|u| u.timestamp_ms()),
        IdKind::UuidV7 => {
            let uuid = uuid::Uuid::try_parse(id).ok()?;
            let (secs, nanos) = uuid.get_timestamp()?.to_unix();
            Some(secs * 1000 + u64::from(nanos) / 1_000_000)
        }
    }
}

/// The creation time carried by an id, as a date.
pub fn created_at(id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::from_timestamp_millis(i64::try_from(timestamp_ms(id)?).ok()?)
}

/// A fresh ULID, as the spec's examples write them (upper case).
pub fn new_ulid() -> String {
    ulid::Ulid::generate().to_string()
}

/// A fresh UUIDv7 in its hyphenated lower-case form.
pub fn new_uuid7() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}

/// A fresh id of the given kind.
pub fn new_id(kind: IdKind) -> String {
    match kind {
        IdKind::Ulid => new_ulid(),
        IdKind::UuidV7 => new_uuid7(),
    }
}

/// An id as Crosstalk can carry it: a ULID or UUIDv7 as it is, another
/// UUID as the ULID of the same 128 bits (undone by [`as_uuid`]); `None`
/// for anything else.
pub fn as_crosstalk_id(id: &str) -> Option<String> {
    if classify(id).is_some() {
        return Some(id.to_string());
    }
    let uuid = uuid::Uuid::try_parse(id).ok()?;
    // Only the canonical spelling comes back unchanged.
    (uuid.hyphenated().to_string() == id).then(|| ulid::Ulid::from(uuid.as_u128()).to_string())
}

/// The ULID that stands for an id Crosstalk cannot carry (neither a ULID
/// nor a UUID): the time it was sent (RFC 3339; none: 0) and 80 bits of
/// the id's SHA-256. The same id sent at the same time gives the same
/// ULID, so converting a message again gives the same envelope, and an
/// answer's `parent:` leads back to the request.
pub fn derived_ulid(id: &str, sent: Option<&str>) -> String {
    use sha2::Digest;
    let ms = sent
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .and_then(|t| u64::try_from(t.timestamp_millis()).ok())
        .unwrap_or(0);
    let digest = sha2::Sha256::digest(id.as_bytes());
    let mut random = [0u8; 16];
    random[6..].copy_from_slice(&digest[..10]);
    ulid::Ulid::from_parts(ms, u128::from_be_bytes(random)).to_string()
}

/// An id as a UUID: a UUID as it is, a ULID as the UUID of the same 128 bits;
/// `None` for anything else.
pub fn as_uuid(id: &str) -> Option<String> {
    if uuid::Uuid::try_parse(id).is_ok() {
        return Some(id.to_string());
    }
    let ulid = ulid::Ulid::from_str(id).ok()?;
    // Only the canonical (upper-case) spelling comes back unchanged.
    (ulid.to_string() == id).then(|| uuid::Uuid::from_u128(ulid.0).hyphenated().to_string())
}

/// A Crosstalk session in the spec's shape: the UTC hour and six random hex
/// digits (`2025-10-09T16Z 3f9a1c`).
pub fn new_session() -> String {
    let random = ulid::Ulid::generate().random();
    format!(
        "{} {:06x}",
        chrono::Utc::now().format("%Y-%m-%dT%HZ"),
        random & 0xff_ffff
    )
}

/// What starts the token of a session aiproto made up ([`made_up_session`]).
const MADE_UP_SESSION: &str = "aiproto-";

/// The session of a message written in Crosstalk 1.0 (which upstream parsers
/// require) from one that has none, in the spec's shape and made from what
/// the message says: the hour of its timestamp (or of its thread or message
/// id, or now) and `aiproto-` with that id (or random digits). The token
/// marks it as made up: reading it forgets it, as it forgets generated ids.
pub fn made_up_session(timestamp: Option<&str>, id: Option<&str>) -> String {
    let at = timestamp
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc))
        .or_else(|| {
            let ms = timestamp_ms(id?)?;
            chrono::DateTime::from_timestamp_millis(i64::try_from(ms).ok()?)
        })
        .unwrap_or_else(chrono::Utc::now);
    let token = id.map_or_else(
        || format!("{:06x}", ulid::Ulid::generate().random() & 0xff_ffff),
        str::to_string,
    );
    format!("{} {MADE_UP_SESSION}{token}", at.format("%Y-%m-%dT%HZ"))
}

/// Whether a session is one aiproto made up ([`made_up_session`]).
pub fn is_made_up_session(session: &str) -> bool {
    session
        .split_whitespace()
        .last()
        .is_some_and(|token| token.starts_with(MADE_UP_SESSION))
}

/// How an id is compared: a ULID (26 letters and digits) or a UUID (hex
/// and dashes) in any case is the same id, as their specs say, so a parent
/// an assistant retyped in lower case still links to its message. Other
/// ids compare as written.
pub fn comparable(id: &str) -> Cow<'_, str> {
    if id.len() != 26 && id.len() != 36 {
        return Cow::Borrowed(id);
    }
    // One pass: every message of a large input has its id compared.
    let (mut alphanumeric, mut hex, mut lower, mut upper) = (true, true, false, false);
    for b in id.bytes() {
        alphanumeric &= b.is_ascii_alphanumeric();
        hex &= b.is_ascii_hexdigit() || b == b'-';
        lower |= b.is_ascii_lowercase();
        upper |= b.is_ascii_uppercase();
    }
    let ulid = id.len() == 26 && alphanumeric;
    let uuid = id.len() == 36 && hex;
    if ulid && lower {
        Cow::Owned(id.to_ascii_uppercase())
    } else if uuid && upper {
        Cow::Owned(id.to_ascii_lowercase())
    } else {
        Cow::Borrowed(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulids_and_uuids_compare_in_any_case_and_other_ids_as_written() {
        let ulid = "01J9J3DBC4N7P2Q3R5S7T9W1V2";
        assert_eq!(comparable(&ulid.to_ascii_lowercase()), ulid);
        assert!(matches!(comparable(ulid), Cow::Borrowed(_)));
        let uuid = "550e8400-e29b-41d4-a716-446655440000";
        assert_eq!(comparable(&uuid.to_ascii_uppercase()), uuid);
        assert!(matches!(comparable(uuid), Cow::Borrowed(_)));
        // The right length, but not one of them: as written.
        for other in [
            "01J9J3DBC4N7-2Q3R5S7T9W1V2",
            "550E8400-E29B-41D4-A716-44665544000G",
            "Msg-1",
            "",
        ] {
            assert_eq!(comparable(other), other);
        }
    }

    #[test]
    fn a_ulid_that_is_not_one_says_where() {
        let (why, place) = why_not_ulid("01J9J3DBC4N7P2Q3R5S7T9WLV2").unwrap();
        assert_eq!(place, 23);
        assert!(
            why.starts_with("character 24 is `L`, which ULIDs leave out"),
            "{why}"
        );
        let (why, _) = why_not_ulid("01J9J3DBC4N7P2Q3R5S7T9W1V").unwrap();
        assert_eq!(why, "it has 25 characters; a ULID has 26");
        let (why, place) = why_not_ulid("01J9J3DBC4N7-2Q3R5S7T9W1V2").unwrap();
        assert_eq!(place, 12);
        assert!(why.contains("U+002D HYPHEN-MINUS"), "{why}");
        assert!(why_not_ulid("01J9J3DBC4N7P2Q3R5S7T9W1V2").is_none());
    }

    #[test]
    fn a_made_up_session_comes_from_the_message_when_it_can() {
        let session = made_up_session(Some("2025-10-09T16:42:00+02:00"), Some("t-1"));
        assert_eq!(session, "2025-10-09T14Z aiproto-t-1");
        assert!(is_made_up_session(&session));
        // A ULID carries its hour.
        let ulid = "01J9J3D3M6A4M3WQX8G1ZQ0S7K";
        let from_id = made_up_session(None, Some(ulid));
        assert!(from_id.starts_with("2024-10-0"), "{from_id}");
        assert!(from_id.ends_with(ulid));
        assert!(is_made_up_session(&made_up_session(None, None)));
        assert!(!is_made_up_session(&new_session()));
        assert!(!is_made_up_session("2025-10-09T16Z abc123"));
    }

    #[test]
    fn ids_keep_their_bits_between_ulid_and_uuid() {
        let v4 = "9b2f6c1e-3f4a-4d5b-8c6d-7e8f9a0b1c2d";
        let ulid = as_crosstalk_id(v4).unwrap();
        assert_eq!(classify(&ulid), Some(IdKind::Ulid));
        assert_eq!(as_uuid(&ulid).as_deref(), Some(v4));
        // (A ULID whose bits happen to read as a UUIDv7 would stay that UUID.)
        let u = "01J9J3D3M6A4M3WQX8G1ZQ0S7K";
        assert_eq!(as_crosstalk_id(&as_uuid(u).unwrap()).as_deref(), Some(u));
        let v7 = new_uuid7();
        assert_eq!(as_crosstalk_id(&v7), Some(v7.clone()));
        assert_eq!(as_crosstalk_id("msg-1"), None);
        assert_eq!(as_uuid("msg-1"), None);
    }

    #[test]
    fn recognises_spec_examples() {
        assert_eq!(classify("01J9J3D3M6A4M3WQX8G1ZQ0S7K"), Some(IdKind::Ulid));
        assert_eq!(
            classify("018c8e5a-3b2f-7890-abcd-ef1234567890"),
            Some(IdKind::UuidV7)
        );
    }

    #[test]
    fn rejects_truncated_and_v4_ids() {
        assert_eq!(classify("01J9J3D9C2V8M4..."), None);
        assert_eq!(classify("01J9J3D3M6A4M3WQX8G1ZQILOU"), None);
        assert_eq!(classify("f47ac10b-58cc-4372-a567-0e02b2c3d479"), None);
        assert_eq!(classify("<original-thread>"), None);
    }

    #[test]
    fn generated_ids_are_recognised_and_carry_their_time() {
        assert_eq!(classify(&new_ulid()), Some(IdKind::Ulid));
        assert_eq!(classify(&new_uuid7()), Some(IdKind::UuidV7));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let t = timestamp_ms(&new_uuid7()).unwrap_or(0);
        assert!(t.abs_diff(now) < 60_000);
    }
}
