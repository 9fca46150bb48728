//! MSP's prose side, a layer above the protocols: the encoder that reads
//! English into minimal signals, the decoder that writes them back, the
//! fact check and the judge (lexical, MiniLM sentence embeddings with its
//! own BERT, remote LLM backends), and the pipeline that runs them end to
//! end. The signal itself (its schema, compact and expanded forms, model
//! mapping) is the codec in `crate::protocols::msp`.

pub mod backend;
#[cfg(feature = "minilm")]
pub mod bert;
pub mod brief;
mod cover;
pub mod cues;
#[cfg(feature = "minilm")]
pub mod embedding;
pub mod facts;
mod fields;
pub mod guide;
pub mod intent;
mod lexical;
pub mod lists;
pub mod meaning;
mod merge;
pub mod negation;
pub mod offline;
pub mod pairs;
pub mod pipeline;
#[cfg(test)]
mod proptests;
pub mod rate;
pub mod remote;
mod template;
