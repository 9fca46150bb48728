//! CSDL's short field codes and their full names. A code's meaning depends
//! on where it sits (`r` is the return type of a function but the required
//! flag of a parameter; `p` is a function's parameters, a class's
//! properties, or the fields of a type), so both directions walk the
//! document with a context. User data — parameter names, argument and
//! metadata values, defaults, enums — is never renamed.
//!
//! | context | code | full name |
//! |---|---|---|
//! | element | `t` `n` `d` | type, name, description |
//! | element | `p` | parameters (function, tool, …); properties (class) |
//! | element | `r` | return |
//! | element | `a` `v` `cx` `m` `s` `c` | arguments, value, confidence, metadata, steps, children |
//! | parameter or type | `t` `n` `d` | type, name, description |
//! | parameter or type | `r` | required |
//! | parameter or type | `p` | properties |
//! | parameter or type | `cx` `m` | confidence, metadata |
//! | workflow step | `t` `n` `d` `a` `v` `cx` `m` `s` | type, name, description, arguments, value, confidence, metadata, steps |

use serde_json::{Map, Value};

/// The two spellings of a CSDL document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Short codes (`t`, `n`, `p`…), the wire form.
    Compact,
    /// Full names (`type`, `name`, `parameters`…), for people.
    Expanded,
}

/// Which spelling a document uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Compact,
    Expanded,
    /// Short codes and full names side by side.
    Mixed,
}

/// What an object (or a list of them) is, which decides its codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Element,
    Elements,
    /// A map from user-chosen names to parameter or field types.
    ParamMap,
    /// A parameter, a property, a return type or an `items` type.
    TypeSpec,
    Step,
    Steps,
    /// User data, copied as it is.
    Opaque,
}

/// The (code, full name) pairs of a context; `kind` is the element's type
/// (a class's `p` is its properties, any other element's its parameters).
fn pairs(ctx: Ctx, kind: Option<&str>) -> impl Iterator<Item = (&'static str, &'static str)> {
    const ELEMENT: &[(&str, &str)] = &[
        ("t", "type"),
        ("n", "name"),
        ("d", "description"),
        ("p", "parameters"),
        ("r", "return"),
        ("a", "arguments"),
        ("v", "value"),
        ("cx", "confidence"),
        ("m", "metadata"),
        ("s", "steps"),
        ("c", "children"),
    ];
    const TYPE_SPEC: &[(&str, &str)] = &[
        ("t", "type"),
        ("n", "name"),
        ("d", "description"),
        ("r", "required"),
        ("p", "properties"),
        ("cx", "confidence"),
        ("m", "metadata"),
    ];
    const STEP: &[(&str, &str)] = &[
        ("t", "type"),
        ("n", "name"),
        ("d", "description"),
        ("a", "arguments"),
        ("v", "value"),
        ("cx", "confidence"),
        ("m", "metadata"),
        ("s", "steps"),
    ];
    let table = match ctx {
        Ctx::Element => ELEMENT,
        Ctx::TypeSpec => TYPE_SPEC,
        Ctx::Step => STEP,
        Ctx::Elements | Ctx::Steps | Ctx::ParamMap | Ctx::Opaque => &[],
    };
    let class = ctx == Ctx::Element && kind == Some("class");
    table.iter().map(move |&(code, full)| match code {
        "p" if class => (code, "properties"),
        _ => (code, full),
    })
}

/// The context of the value under `code` (a short code, or an unmapped key).
fn child(ctx: Ctx, code: &str, value: &Value) -> Ctx {
    match (ctx, code) {
        (Ctx::Elements, _) => Ctx::Element,
        (Ctx::Steps, _) => Ctx::Step,
        (Ctx::ParamMap, _) => Ctx::TypeSpec,
        (Ctx::Element, "p") | (Ctx::TypeSpec, "p") if value.is_object() => Ctx::ParamMap,
        (Ctx::Element, "r") | (Ctx::TypeSpec, "items") if value.is_object() => Ctx::TypeSpec,
        (Ctx::Element, "s") | (Ctx::Step, "s") => Ctx::Steps,
        (Ctx::Element, "c") | (Ctx::Element, "methods") => Ctx::Elements,
        _ => Ctx::Opaque,
    }
}

/// The element type an object declares, in either spelling.
fn kind(map: &Map<String, Value>) -> Option<&str> {
    map.get("t")
        .or_else(|| map.get("type"))
        .and_then(Value::as_str)
}

/// A key's (code, name in the target form), when the key is a field name
/// of the source form in this context.
fn rename(
    ctx: Ctx,
    kind: Option<&str>,
    key: &str,
    to: Form,
) -> Option<(&'static str, &'static str)> {
    pairs(ctx, kind).find_map(|(code, full)| match to {
        Form::Expanded if key == code => Some((code, full)),
        Form::Compact if key == full => Some((code, code)),
        _ => None,
    })
}

/// Rewrites a document in the full names.
pub fn expand(doc: &Value) -> Value {
    convert(doc, Ctx::Element, Form::Expanded)
}

/// Rewrites a document in the short codes.
pub fn compact(doc: &Value) -> Value {
    convert(doc, Ctx::Element, Form::Compact)
}

/// Rewrites a document in the given form.
pub fn to_form(doc: &Value, form: Form) -> Value {
    convert(doc, Ctx::Element, form)
}

fn convert(value: &Value, ctx: Ctx, to: Form) -> Value {
    match value {
        Value::Array(items) if matches!(ctx, Ctx::Elements | Ctx::Steps) => Value::Array(
            items
                .iter()
                .map(|item| convert(item, child(ctx, "", item), to))
                .collect(),
        ),
        Value::Object(map) if ctx != Ctx::Opaque => {
            let kind = kind(map);
            let mut out = Map::new();
            for (key, val) in map {
                let (code, new_key) = match rename(ctx, kind, key, to) {
                    // Both spellings present: keep this one as written, so
                    // that nothing is overwritten and the move is lossless.
                    Some((_, target)) if map.contains_key(target) => {
                        (canonical(ctx, kind, key), key.as_str())
                    }
                    Some((code, target)) => (code, target),
                    None => (key.as_str(), key.as_str()),
                };
                out.insert(new_key.to_string(), convert(val, child(ctx, code, val), to));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The short code of a key in either spelling (the key itself if unmapped).
fn canonical<'a>(ctx: Ctx, kind: Option<&str>, key: &'a str) -> &'a str {
    pairs(ctx, kind)
        .find(|(code, full)| key == *code || key == *full)
        .map_or(key, |(code, _)| code)
}

/// Which spelling a document uses.
pub fn spelling(doc: &Value) -> Spelling {
    spelling_of(doc, &compact(doc))
}

/// [`spelling`], given the document's compact spelling.
pub fn spelling_of(doc: &Value, compacted: &Value) -> Spelling {
    if compacted == doc {
        Spelling::Compact
    } else if expand(doc) == *doc {
        Spelling::Expanded
    } else {
        Spelling::Mixed
    }
}

/// A JSON Pointer into the compact form of a document, spelled for the
/// document's expanded form (to place findings in an expanded input).
pub fn expand_pointer(compact_doc: &Value, pointer: &str) -> String {
    let mut out = String::new();
    let mut node = compact_doc;
    let mut ctx = Ctx::Element;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        let (name, next) = match node {
            Value::Object(map) => {
                let kind = kind(map);
                let name = rename(ctx, kind, &segment, Form::Expanded)
                    .map_or(segment.clone(), |(_, full)| full.to_string());
                let next = map.get(&segment);
                (name, next)
            }
            Value::Array(items) => (
                segment.clone(),
                segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            ),
            _ => (segment.clone(), None),
        };
        out.push('/');
        out.push_str(&name.replace('~', "~0").replace('/', "~1"));
        match next {
            Some(n) => {
                ctx = child(ctx, &segment, n);
                node = n;
            }
            None => ctx = Ctx::Opaque,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn function() -> Value {
        json!({
            "t": "function", "n": "search", "d": "Search",
            "p": {
                "query": {"t": "string", "r": true},
                "t": {"t": "integer", "d": "a parameter named t", "default": {"n": 1}},
                "filters": {"t": "object", "p": {"category": {"t": "string"}}}
            },
            "r": {"t": "array", "items": {"t": "object", "p": {"id": {"t": "string"}}}},
            "cx": 0.9,
            "m": {"n": "metadata is user data"}
        })
    }

    #[test]
    fn codes_depend_on_context() {
        let e = expand(&function());
        assert_eq!(e["parameters"]["query"]["required"], json!(true));
        assert_eq!(e["return"]["type"], json!("array"));
        assert_eq!(
            e["return"]["items"]["properties"]["id"]["type"],
            json!("string")
        );
        assert_eq!(
            e["parameters"]["filters"]["properties"]["category"]["type"],
            json!("string")
        );
        // User names and user data are left alone.
        assert_eq!(e["parameters"]["t"]["default"], json!({"n": 1}));
        assert_eq!(e["metadata"], json!({"n": "metadata is user data"}));
        assert_eq!(compact(&e), function());
    }

    #[test]
    fn class_p_is_properties_and_methods_are_elements() {
        let class = json!({"t": "class", "n": "C", "p": {"x": {"t": "string"}},
            "methods": [{"t": "function", "n": "f", "p": {}, "r": {"t": "void"}}]});
        let e = expand(&class);
        assert!(e["properties"]["x"].is_object());
        assert_eq!(e["methods"][0]["return"], json!({"type": "void"}));
        assert_eq!(e["methods"][0]["parameters"], json!({}));
        assert_eq!(compact(&e), class);
    }

    #[test]
    fn workflow_steps_keep_their_own_fields() {
        let wf = json!({"t": "workflow", "n": "w", "s": [
            {"id": "a", "action": "f", "a": {"x": "{{input.x}}"}, "next": "b"},
            {"id": "b", "action": "loop", "s": [{"id": "c", "action": "g"}]}
        ]});
        let e = expand(&wf);
        assert_eq!(e["steps"][0]["arguments"], json!({"x": "{{input.x}}"}));
        assert_eq!(e["steps"][1]["steps"][0]["id"], json!("c"));
        assert_eq!(compact(&e), wf);
    }

    #[test]
    fn spelling_is_recognised() {
        assert_eq!(spelling(&function()), Spelling::Compact);
        assert_eq!(spelling(&expand(&function())), Spelling::Expanded);
        assert_eq!(
            spelling(&json!({"t": "function", "name": "f"})),
            Spelling::Mixed
        );
    }

    #[test]
    fn both_spellings_side_by_side_survive() {
        let odd = json!({"t": "function", "n": "f", "name": "g"});
        assert_eq!(compact(&expand(&odd)), odd);
    }

    #[test]
    fn pointers_follow_the_context() {
        let doc = function();
        assert_eq!(
            expand_pointer(&doc, "/p/query/r"),
            "/parameters/query/required"
        );
        assert_eq!(expand_pointer(&doc, "/p/t/t"), "/parameters/t/type");
        assert_eq!(
            expand_pointer(&doc, "/r/items/p/id/t"),
            "/return/items/properties/id/type"
        );
        assert_eq!(expand_pointer(&doc, ""), "");
    }
}
