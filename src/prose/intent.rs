//! A message's intent read from its meaning: the sentence embedding of
//! each of its sentences compared with labelled prototypes (zero-shot
//! classification by the nearest labelled example), for the phrasings a
//! list of cue words cannot foresee ("would you mind …", "it would be
//! great if …", "any idea how …"). It decides only for a text in which no
//! cue word is found ([`super::cues`]), and only when it is sure; else
//! the cue reading stands, as it does without a model.

use std::sync::{Arc, Mutex};

use super::backend::{Embed, MspError, cosine};
use super::cues;
use crate::protocols::msp::Intent;

/// How people ask for each intent: the labelled prototypes. Short and
/// plain on purpose: a message is compared sentence by sentence, so
/// greetings and sign-offs around the request do not blur it.
const PROTOTYPES: &[(Intent, &[&str])] = &[
    (
        Intent::Analyze,
        &[
            "Analyze the data and find the cause.",
            "Investigate why the service is slow.",
            "Find out what is causing the errors.",
            "Look into the problem and explain it.",
            "Dig into the logs to understand the failure.",
            "Diagnose the root cause of the outage.",
            "Break down the costs and explain the trend.",
            "Compare the results and explain the differences.",
            "Figure out why the numbers changed.",
            "Study the metrics and identify patterns.",
        ],
    ),
    (
        Intent::Generate,
        &[
            "Write a document for me.",
            "Create a new page.",
            "Draft a message to the customer.",
            "Generate a report template.",
            "Build a tool that does this.",
            "Come up with some ideas.",
            "Put together a presentation.",
            "Design a new system.",
            "Produce a first version of the code.",
            "Make a new checklist.",
        ],
    ),
    (
        Intent::Evaluate,
        &[
            "Review my work and give feedback.",
            "Check whether this is correct.",
            "Assess the risk of the change.",
            "Tell me what you think of this proposal.",
            "Is this good enough? Give your opinion.",
            "Rate these options.",
            "Verify that it works as intended.",
            "Judge the quality of the answer.",
            "Test it and tell me if it holds up.",
            "Approve or reject the request.",
        ],
    ),
    (
        Intent::Transform,
        &[
            "Translate this text into another language.",
            "Convert the file to another format.",
            "Summarize this document.",
            "Rewrite the paragraph more simply.",
            "Refactor the code.",
            "Shorten the text.",
            "Restart the server.",
            "Upgrade the system to the new version.",
            "Fix the bug in the code.",
            "Move the data to the new database.",
        ],
    ),
    (
        Intent::Query,
        &[
            "What is the value of this?",
            "How many are there?",
            "Where can I find it?",
            "Who is responsible for this?",
            "When will it happen?",
            "Is there a way to do this?",
            "Look up the information for me.",
            "I need to know the details.",
            "Tell me the name of the person.",
            "Find the document I am looking for.",
        ],
    ),
    (
        Intent::Respond,
        &[
            "In answer to your question, here is the information.",
            "Replying to your message: yes.",
            "To answer your question, it is done this way.",
            "As you asked, here are the details.",
            "Yes, that is correct.",
            "No, that is not possible.",
            "Thanks for your question, the answer is below.",
            "Regarding your request, here is what I found.",
            "Sure, I can do that.",
            "You asked about this; the answer is that.",
        ],
    ),
    (
        Intent::Delegate,
        &[
            "Hand this task over to another agent.",
            "Assign the work to the other team.",
            "Pass this on to someone else.",
            "Let another agent take care of it.",
            "Route the request to the right team.",
            "Forward this to the people who handle it.",
            "Take over this task from me.",
            "Give this job to the other worker.",
            "Put someone else in charge of this.",
            "Have the other agent do it.",
        ],
    ),
    (
        Intent::Report,
        &[
            "The job finished successfully.",
            "The service went down.",
            "Status update: the work is done.",
            "For your information, this happened.",
            "We released the new version.",
            "The numbers went up this month.",
            "The test failed.",
            "Just letting you know that it is complete.",
            "The scan found problems.",
            "Here is the weekly summary.",
        ],
    ),
];

/// How much closer the best intent must be than the next for the model's
/// reading to stand over the cue reading.
const SURE_MARGIN: f64 = 0.04;

/// The labelled prototypes, embedded by one model.
pub struct Prototypes {
    labelled: Vec<(Intent, Vec<f64>)>,
}

impl Prototypes {
    /// Embeds every prototype once.
    pub fn embed(embed: &Embed) -> Result<Self, MspError> {
        let texts: Vec<&str> = PROTOTYPES
            .iter()
            .flat_map(|(_, t)| t.iter().copied())
            .collect();
        let vectors = embed(&texts)?;
        let intents = PROTOTYPES
            .iter()
            .flat_map(|(intent, t)| std::iter::repeat_n(*intent, t.len()));
        Ok(Prototypes {
            labelled: intents.zip(vectors.into_iter().map(widen)).collect(),
        })
    }

    /// The intent the model reads in `text`, and by how much it is closer
    /// than the next: each sentence is scored against each intent's
    /// nearest prototype, and the text's intent is that of its most
    /// telling sentence.
    pub fn read(&self, text: &str, embed: &Embed) -> Result<(Intent, f64), MspError> {
        let sentences: Vec<&str> = cues::sentences(text).collect();
        let sentences = if sentences.is_empty() {
            vec![text]
        } else {
            sentences
        };
        let vectors = embed(&sentences)?;
        let mut best = (Intent::Report, f64::MIN, 0.0);
        for vector in vectors.into_iter().map(widen) {
            let mut scores: Vec<(Intent, f64)> = Intent::ALL
                .iter()
                .map(|intent| {
                    let nearest = self
                        .labelled
                        .iter()
                        .filter(|(i, _)| i == intent)
                        .map(|(_, p)| cosine(&vector, p))
                        .fold(f64::MIN, f64::max);
                    (*intent, nearest)
                })
                .collect();
            scores.sort_by(|a, b| b.1.total_cmp(&a.1));
            let (intent, score) = scores[0];
            if score > best.1 {
                best = (intent, score, score - scores[1].1);
            }
        }
        Ok((best.0, best.2))
    }
}

fn widen(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(f64::from).collect()
}

/// The prototypes of the model behind `embed`, embedded once a process
/// per model (a model is known by its embedding of the first prototype).
pub fn prototypes(embed: &Embed) -> Result<Arc<Prototypes>, MspError> {
    static SEEN: Mutex<Vec<Arc<Prototypes>>> = Mutex::new(Vec::new());
    let probe = embed(&[PROTOTYPES[0].1[0]])?
        .pop()
        .map(widen)
        .unwrap_or_default();
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = seen
        .iter()
        .find(|p| p.labelled.first().map(|l| &l.1) == Some(&probe))
    {
        return Ok(known.clone());
    }
    let embedded = Arc::new(Prototypes::embed(embed)?);
    seen.push(embedded.clone());
    Ok(embedded)
}

/// The model's reading of a text that has no cue word, when it is sure of
/// it; None for a text with a cue (the cue reading stands) or when the
/// model is unsure.
pub fn by_meaning(text: &str, embed: &Embed) -> Result<Option<Intent>, MspError> {
    if cues::cued_intent(text).is_some() {
        return Ok(None);
    }
    let (intent, margin) = prototypes(embed)?.read(text, embed)?;
    Ok((margin >= SURE_MARGIN).then_some(intent))
}

/// The intent of `text`: its cue word's, else the model's reading when it
/// is sure of it, else the cue reading's fallback (QUERY for a question,
/// REPORT otherwise).
pub fn intent_of(text: &str, embed: Option<&Embed>) -> Result<Intent, MspError> {
    if let Some(embed) = embed
        && let Some(intent) = by_meaning(text, embed)?
    {
        return Ok(intent);
    }
    Ok(cues::intent_of(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The phrasing table: (intent, text) for each line that is not a comment.
    fn table() -> Vec<(Intent, &'static str)> {
        include_str!("testdata/intent-phrasings.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (intent, text) = l.split_once('\t').expect("intent<TAB>text");
                let intent = Intent::ALL
                    .iter()
                    .find(|i| i.as_str() == intent)
                    .unwrap_or_else(|| panic!("unknown intent {intent}"));
                (*intent, text)
            })
            .collect()
    }

    /// How many of the table's lines `read` gets right, and the misses.
    fn score(read: impl Fn(&str) -> Intent) -> (usize, Vec<String>) {
        let table = table();
        let mut misses = Vec::new();
        for (intent, text) in &table {
            let got = read(text);
            if got != *intent {
                misses.push(format!(
                    "{} read as {}: {text}",
                    intent.as_str(),
                    got.as_str()
                ));
            }
        }
        (table.len() - misses.len(), misses)
    }

    #[test]
    fn the_table_covers_every_intent_with_twenty_phrasings() {
        let table = table();
        assert!(table.len() >= 150);
        for intent in Intent::ALL {
            assert_eq!(
                table.iter().filter(|(i, _)| i == intent).count(),
                20,
                "{intent:?}"
            );
        }
    }

    #[test]
    fn the_cue_reading_of_the_table() {
        let (right, misses) = score(|text| intent_of(text, None).unwrap());
        eprintln!(
            "cues: {right}/{} right\n{}",
            table().len(),
            misses.join("\n")
        );
        assert!(right >= 115, "{right}");
    }

    #[test]
    fn the_model_reading_of_the_table() {
        let Some(model) = super::super::embedding::tests::model() else {
            return;
        };
        let embed = |texts: &[&str]| {
            model
                .embed_all(texts)
                .map_err(|e| MspError::new(super::super::backend::ErrorKind::Judge, e))
        };
        let (right, misses) = score(|text| intent_of(text, Some(&embed)).unwrap());
        let prototypes = prototypes(&embed).unwrap();
        eprintln!(
            "model: {right}/{} right\n{}",
            table().len(),
            misses.join("\n")
        );
        let (alone, _) = score(|text| prototypes.read(text, &embed).unwrap().0);
        eprintln!("model alone: {alone}/{}", table().len());
        assert!(right >= 129, "{right}");
    }
}
