//! Token counts with the OpenAI tokenizers (tiktoken), offline: the measure
//! CSDL and MSP exist to lower. The tables load once, on first use.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A tiktoken encoding aiproto counts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Encoding {
    /// GPT-4o and later (the default).
    #[default]
    #[serde(rename = "o200k_base")]
    O200kBase,
    /// GPT-4 and GPT-3.5.
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl Encoding {
    pub const ALL: &'static [Encoding] = &[Encoding::O200kBase, Encoding::Cl100kBase];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// How many tokens the text is. Special-token text (`<|endoftext|>`)
    /// counts as ordinary text: a message is data, not a prompt template.
    pub fn count(self, text: &str) -> usize {
        let bpe = match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len()
    }

    /// How many tokens a text of any length is, read line by line: what
    /// [`count`](Self::count) gives for the whole text, in memory bounded by
    /// `chunk_bytes` and the longest line. The text is counted in chunks cut
    /// only before a line that begins with a character other than white
    /// space, where both encodings' pre-tokenisers split anyway (a token
    /// never spans a line end followed by such a character). `name` names
    /// the input in an error.
    pub fn count_lines(
        self,
        mut reader: impl std::io::BufRead,
        name: &str,
        chunk_bytes: usize,
    ) -> Result<usize, crate::input::InputError> {
        let io = |error| crate::input::InputError::Io {
            path: name.to_string(),
            error,
        };
        let mut total = 0;
        let mut chunk = String::new();
        let mut line = Vec::new();
        let mut number = 0;
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
                break;
            }
            number += 1;
            let text = std::str::from_utf8(&line).map_err(|e| {
                let column = String::from_utf8_lossy(&line[..e.valid_up_to()])
                    .chars()
                    .count()
                    + 1;
                crate::input::InputError::NotUtf8 {
                    path: name.to_string(),
                    line: number,
                    column,
                    what: crate::input::NotText::of(&line, e.valid_up_to()),
                }
            })?;
            let cut_here = text.chars().next().is_some_and(|c| !c.is_whitespace());
            if chunk.len() >= chunk_bytes && cut_here {
                total += self.count(&chunk);
                chunk.clear();
            }
            chunk.push_str(text);
        }
        Ok(total + self.count(&chunk))
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::ALL
            .iter()
            .copied()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown encoding `{s}` (known: o200k_base, cl100k_base)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        assert_eq!(Encoding::O200kBase.count(""), 0);
        assert_eq!(Encoding::O200kBase.count("hello world"), 2);
        assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
        // Special-token text is counted as text, never refused.
        assert!(Encoding::O200kBase.count("<|endoftext|>") > 1);
    }

    #[test]
    fn parses_names() {
        assert_eq!("cl100k_base".parse(), Ok(Encoding::Cl100kBase));
        assert!("gpt2".parse::<Encoding>().is_err());
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_config::config(64))]
        /// Counting line by line in small chunks gives the count of the whole.
        #[test]
        fn counting_in_chunks_counts_the_whole(
            lines in proptest::collection::vec("[ \t]{0,2}[a-zA-Z0-9 .,{}\":é\t-]{0,12}[\r]?", 0..40),
            chunk in 1usize..64,
        ) {
            let text = lines.join("\n");
            for encoding in Encoding::ALL {
                let chunked = encoding
                    .count_lines(std::io::Cursor::new(text.as_bytes()), "t", chunk)
                    .unwrap();
                proptest::prop_assert_eq!(chunked, encoding.count(&text));
            }
        }
    }
}
