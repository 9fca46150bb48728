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
}
