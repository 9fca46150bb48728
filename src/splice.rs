//! Rewriting messages inside a text in place: each message's lines are
//! replaced by its new form, and every byte around them (prose of a pasted
//! transcript, code fences, other messages) is kept as it was.

/// A message's place in a text (1-based, inclusive line numbers) and what replaces it.
pub struct Replacement {
    pub first_line: usize,
    pub last_line: usize,
    pub text: String,
}

/// `text` with each replacement's lines swapped for its text. The new lines
/// get the quote or indentation prefix (`> `) of the first line they
/// replace, and the text's line ending (CRLF stays CRLF). Replacements must
/// not overlap; they may come in any order.
pub fn splice(text: &str, mut replacements: Vec<Replacement>) -> String {
    replacements.sort_by_key(|r| r.first_line);
    let crlf = text.contains("\r\n");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() + 1024);
    let mut next = 0usize; // 0-based index of the next source line to copy
    for r in &replacements {
        let first = r.first_line.saturating_sub(1);
        if first < next || first >= lines.len() {
            continue;
        }
        for line in &lines[next..first] {
            out.push_str(line);
        }
        let prefix: String = lines[first]
            .chars()
            .take_while(|c| matches!(c, '>' | ' ' | '\t'))
            .collect();
        for line in r.text.lines() {
            out.push_str(if line.is_empty() {
                prefix.trim_end()
            } else {
                &prefix
            });
            out.push_str(line);
            out.push_str(if crlf { "\r\n" } else { "\n" });
        }
        next = r.last_line.max(r.first_line).min(lines.len());
        // The replaced block's own last line had no line end: neither does the new one.
        if next == lines.len() && !lines[next - 1].ends_with('\n') && out.ends_with('\n') {
            out.pop();
            if out.ends_with('\r') {
                out.pop();
            }
        }
    }
    for line in &lines[next.min(lines.len())..] {
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_around_the_replaced_lines() {
        let text = "Here you go:\r\n> [[A→B v1]]\r\n> body: |\r\n>   hi\r\n> [[END]]\r\nThanks!";
        let out = splice(
            text,
            vec![Replacement {
                first_line: 2,
                last_line: 5,
                text: "[[A→B v1]]\nbody: |\n  hi\n\nsig: x\n[[END]]\n".into(),
            }],
        );
        assert_eq!(
            out,
            "Here you go:\r\n> [[A→B v1]]\r\n> body: |\r\n>   hi\r\n>\r\n> sig: x\r\n> [[END]]\r\nThanks!"
        );
    }

    #[test]
    fn replaces_several_blocks_and_a_last_line_without_line_end() {
        let text = "a\nX\nb\nY";
        let r = |n, t: &str| Replacement {
            first_line: n,
            last_line: n,
            text: t.into(),
        };
        assert_eq!(splice(text, vec![r(4, "y\n"), r(2, "x\n")]), "a\nx\nb\ny");
    }
}
