//! Every embedded JSON Schema by name (`hsp/1.0/fact`, `msp/1.0/signal`,
//! `aiproto/validate-report`): the published contract, for every face.

use crate::protocols::{a2a, csdl, hsp, msp};

/// The report schema of `validate --format json`.
const REPORT: &str = include_str!("../schemas/aiproto/validate-report.schema.json");
const VERIFY_REPORT: &str = include_str!("../schemas/aiproto/verify-report.schema.json");

/// Every embedded schema: (name, text).
pub fn all() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = hsp::schemas::FILES
        .iter()
        .map(|f| (format!("hsp/{}/{}", f.version.as_str(), f.name), f.text))
        .collect();
    out.push(("csdl/1.0/element".into(), csdl::SCHEMA));
    out.push(("msp/1.0/signal".into(), msp::SCHEMA_1_0));
    out.push(("msp/2.0/signal".into(), msp::SCHEMA_2_0));
    // The A2A project's own bundle, as vendored (Apache-2.0).
    out.push(("a2a/1.0/bundle".into(), a2a::schema::BUNDLE));
    out.push(("aiproto/validate-report".into(), REPORT));
    out.push(("aiproto/verify-report".into(), VERIFY_REPORT));
    out
}
