//! A graded run as one self-contained HTML page (`--format html`): the
//! grade per protocol and level, then the failures grouped by spec
//! section, each with its vector, its file in a written kit, what was
//! expected and what came back. No script, no external file: it opens from
//! a CI artifact as it is, under any content security policy.

use std::collections::BTreeMap;

use super::grade::{self, Observed, Outcome};
use super::vectors::{KIT_VERSION, Level};
use crate::report::escape;

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1b1b1b}\
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0}\
th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}th{background:#f3f3f3}\
.none{color:#a00;font-weight:600}.mandatory{color:#8a5a00;font-weight:600}.full{color:#176b1f;font-weight:600}\
details{border:1px solid #ddd;border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}summary{cursor:pointer;font-weight:600}\
.vector{border-top:1px solid #eee;padding:.4rem 0}.vector:first-of-type{border-top:0}\
code{font:13px ui-monospace,monospace;background:#f6f6f6;padding:0 .2rem}.level-mandatory{color:#a00}\
.level-recommended,.level-decision{color:#8a5a00}dl{display:grid;grid-template-columns:9rem 1fr;margin:.3rem 0}\
dt{color:#555}dd{margin:0;white-space:pre-wrap;word-break:break-word}";

/// The page for `outcomes`, graded from `what` (the implementation's command or URL).
pub fn page(outcomes: &[Outcome], what: &str) -> String {
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.passed()).collect();
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>Conformance kit {KIT_VERSION}: {}</title><style>{STYLE}</style></head><body>\n\
         <h1>Conformance kit {KIT_VERSION}</h1>\n<p>Graded: <code>{}</code> — {} vectors, {} passed, \
         <strong>{} failed</strong>.</p>\n",
        escape(what),
        escape(what),
        outcomes.len(),
        outcomes.len() - failed.len(),
        failed.len()
    );
    html.push_str(&grades(outcomes));
    if failed.is_empty() {
        html.push_str("<p id=\"no-failures\">Every vector passed.</p>\n");
    } else {
        html.push_str(&failures(&failed));
    }
    html.push_str(
        "<p>Rerun one failure with <code>--only ID</code> (or a section, or a glob); \
         <code>aiproto conformance vectors --out DIR</code> writes each vector's file.</p>\n\
         </body></html>\n",
    );
    html
}

/// The grade table: per protocol, each level's passed/total and the compliance.
fn grades(outcomes: &[Outcome]) -> String {
    let mut html = String::from(
        "<h2>Grades</h2>\n<table id=\"grades\"><tr><th>protocol</th><th>mandatory</th>\
         <th>recommended</th><th>decision</th><th>compliance</th></tr>\n",
    );
    for (protocol, grade) in grade::tally(outcomes) {
        let cell = |level: Level| {
            let c = grade.count(level);
            if c.total == 0 {
                "—".to_string()
            } else {
                format!("{}/{}", c.passed, c.total)
            }
        };
        let compliance = grade.compliance();
        html.push_str(&format!(
            "<tr><td>{protocol}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{compliance}\">{compliance}</td></tr>\n",
            cell(Level::Mandatory),
            cell(Level::Recommended),
            cell(Level::Decision),
        ));
    }
    html.push_str("</table>\n");
    html
}

/// The failures, a `<details>` per spec section (most failures first), a
/// block per vector inside; and the causes counted.
fn failures(failed: &[&Outcome]) -> String {
    let mut causes: BTreeMap<&'static str, (usize, &'static str)> = BTreeMap::new();
    let mut sections: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for o in failed {
        sections
            .entry(o.vector.section.as_str())
            .or_default()
            .push(o);
        if let Some((failure, _)) = &o.failure {
            causes
                .entry(failure.code())
                .or_insert((0, failure.meaning()))
                .0 += 1;
        }
    }
    let mut html = String::from(
        "<h2>Failures by cause</h2>\n<table id=\"causes\"><tr><th>cause</th><th>vectors</th>\
         <th>meaning</th></tr>\n",
    );
    for (code, (n, meaning)) in &causes {
        html.push_str(&format!(
            "<tr><td><code>{code}</code></td><td>{n}</td><td>{meaning}</td></tr>\n"
        ));
    }
    html.push_str("</table>\n<h2>Failures by spec section</h2>\n");
    let mut sections: Vec<(&str, Vec<&Outcome>)> = sections.into_iter().collect();
    sections.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    for (section, outcomes) in sections {
        let mandatory = outcomes
            .iter()
            .filter(|o| o.vector.level == Level::Mandatory)
            .count();
        html.push_str(&format!(
            "<details class=\"section\"><summary>{} — {} failed ({mandatory} mandatory)</summary>\n",
            escape(section),
            outcomes.len()
        ));
        for o in outcomes {
            html.push_str(&vector(o));
        }
        html.push_str("</details>\n");
    }
    html
}

fn vector(o: &Outcome) -> String {
    let v = &o.vector;
    let (code, why) = o
        .failure
        .as_ref()
        .map(|(f, why)| (f.code(), why.as_str()))
        .unwrap_or(("", ""));
    let level = v.level.name();
    format!(
        "<div class=\"vector\" id=\"{id}\"><code>{id}</code> <span class=\"level-{level}\">{level}</span> \
         <code>{code}</code>\n<dl><dt>file</dt><dd><code>{file}</code></dd><dt>about</dt><dd>{about}</dd>\
         <dt>expected</dt><dd>{expected}</dd><dt>came back</dt><dd>{observed}</dd><dt>why</dt><dd>{why}</dd></dl></div>\n",
        id = escape(&v.id),
        file = escape(&v.kit_path().to_string_lossy()),
        about = escape(&v.about),
        expected = v.expect.name(),
        observed = escape(&observed(&o.observed)),
        why = escape(why),
    )
}

/// What the implementation answered, in words.
fn observed(o: &Observed) -> String {
    match o {
        Observed::Broken { why } => format!("no verdict: {why}"),
        Observed::Verdict {
            accepted,
            errors,
            problem,
            said,
            ..
        } => {
            let mut text = if *accepted { "accepted" } else { "refused" }.to_string();
            if !errors.is_empty() {
                text.push_str(&format!(" with {}", errors.join(", ")));
            }
            if let Some(said) = said {
                text.push_str(&format!("; it said: {said}"));
            }
            if let Some(problem) = problem {
                text.push_str(&format!("; {problem}"));
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::grade::grade;
    use crate::conformance::vectors;

    #[test]
    fn the_page_groups_failures_and_escapes_what_came_back() {
        let all = vectors::all();
        let reject = all
            .iter()
            .find(|v| v.expect == vectors::Expect::Reject && v.level == Level::Mandatory)
            .unwrap()
            .clone();
        let accept = all
            .iter()
            .find(|v| v.expect == vectors::Expect::Accept)
            .unwrap()
            .clone();
        let outcomes = vec![
            grade(reject.clone(), Observed::accepted(vec![], vec![]), false),
            grade(
                accept,
                Observed::Broken {
                    why: "<script>alert(1)</script>".into(),
                },
                false,
            ),
        ];
        let page = page(&outcomes, "python3 my<parser>.py");
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains(&format!("id=\"{}\"", reject.id)));
        assert!(page.contains("Failures by spec section"));
        assert!(page.contains("CONF-ACCEPTED") && page.contains("CONF-BROKEN"));
        assert!(!page.contains("<script>") && page.contains("&lt;script&gt;"));
        assert!(page.contains("my&lt;parser&gt;.py"));
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "nothing external"
        );
    }
}
