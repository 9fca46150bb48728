//! The order in which a message's clauses bring a signal's decoding
//! closest in meaning to the message, by the judge's sentence model.
//!
//! A mean-pooled sentence embedding of a text is close to the mean of its
//! parts' embeddings, each weighted by its length. So the meaning of a
//! candidate's decoding is taken as the embedding of what every candidate
//! says plus the weighted embeddings of the clauses it adds, and the
//! clauses are ordered greedily: each time the one that brings that sum
//! closest to the message's own embedding (what the judge compares with)
//! per token it costs. The order is only a proposal: the judge still
//! decodes and scores every candidate whole.

/// A text's embedding and its weight (its length in tokens).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub vector: Vec<f32>,
    pub weight: f64,
}

/// The clauses not in `chosen`, in the order that brings `start` (what
/// every candidate says, the chosen clauses included) closest to
/// `message`: each step's gain in cosine similarity divided by the
/// clause's `cost` in tokens; the earlier clause on a tie.
pub fn order(
    message: &[f32],
    start: &Part,
    clauses: &[Part],
    cost: &[usize],
    chosen: &[usize],
) -> Vec<usize> {
    let message: Vec<f64> = message.iter().copied().map(f64::from).collect();
    let mut sum = vec![0.0f64; message.len()];
    add(&mut sum, start);
    let mut left: Vec<usize> = (0..clauses.len()).filter(|i| !chosen.contains(i)).collect();
    let mut out = Vec::with_capacity(left.len());
    let mut trial = vec![0.0f64; message.len()];
    while !left.is_empty() {
        let now = cosine(&sum, &message);
        let mut best: Option<(f64, usize)> = None;
        for (at, &i) in left.iter().enumerate() {
            trial.copy_from_slice(&sum);
            add(&mut trial, &clauses[i]);
            let gain = (cosine(&trial, &message) - now) / cost[i].max(1) as f64;
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, at));
            }
        }
        let Some((_, at)) = best else { break };
        let i = left.remove(at);
        add(&mut sum, &clauses[i]);
        out.push(i);
    }
    out
}

fn add(sum: &mut [f64], part: &Part) {
    for (s, &v) in sum.iter_mut().zip(&part.vector) {
        *s += part.weight * f64::from(v);
    }
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let denominator = norm(a) * norm(b);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(vector: &[f32], weight: f64) -> Part {
        Part {
            vector: vector.to_vec(),
            weight,
        }
    }

    #[test]
    fn the_clause_that_says_what_is_missing_comes_first() {
        // The message says x once, y twice and z once; the start says x
        // already: a clause about y brings it closest first, then the one
        // about z (by then the most missing), then the second y.
        let start = part(&[1.0, 0.0, 0.0], 1.0);
        let clauses = [
            part(&[1.0, 0.0, 0.0], 1.0),
            part(&[0.0, 0.0, 1.0], 1.0),
            part(&[0.0, 1.0, 0.0], 1.0),
            part(&[0.0, 1.0, 0.0], 1.0),
        ];
        assert_eq!(
            order(&[1.0, 2.0, 1.0], &start, &clauses, &[1, 1, 1, 1], &[0]),
            [2, 1, 3]
        );
    }

    #[test]
    fn a_cheaper_clause_wins_at_the_same_meaning_and_ties_keep_text_order() {
        let start = part(&[1.0, 0.0], 1.0);
        let clauses = [
            part(&[1.0, 0.0], 1.0),
            part(&[0.0, 1.0], 1.0),
            part(&[0.0, 1.0], 1.0),
            part(&[0.0, 1.0], 1.0),
        ];
        // Clause 3 says what 1 and 2 say for a third of the tokens.
        assert_eq!(
            order(&[1.0, 3.0], &start, &clauses, &[1, 3, 3, 1], &[0])[0],
            3
        );
        // Equal clauses at equal cost: the earlier first.
        assert_eq!(
            order(&[1.0, 3.0], &start, &clauses, &[1, 2, 2, 2], &[0])[0],
            1
        );
    }

    #[test]
    fn every_clause_not_chosen_is_ordered_once() {
        let start = part(&[0.5, 0.5, 0.0], 2.0);
        let clauses: Vec<Part> = (0..9)
            .map(|i| part(&[i as f32, 1.0, (9 - i) as f32], 1.0 + i as f64))
            .collect();
        let mut got = order(&[1.0, 1.0, 1.0], &start, &clauses, &[3; 9], &[2, 5]);
        got.sort_unstable();
        assert_eq!(got, [0, 1, 3, 4, 6, 7, 8]);
    }
}
