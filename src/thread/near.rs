//! Which id a parent id retyped with a slip was meant to be, found among
//! many: each id is cut into pieces and indexed by them, so that a guess
//! looks up a few pieces instead of comparing the parent with every id
//! (35,751 orphans among 99,315 ids took ten minutes that way).
//!
//! Why a piece finds every near miss: two slips (a character changed,
//! added or dropped, two neighbours swapped) touch at most four of an id's
//! five pieces — a swap across a cut touches two — so one piece of the
//! id meant is in the parent as written, at most two places from where
//! it sits in that id.

use std::borrow::Cow;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The most edits a slip is taken to be.
const SLIPS: usize = 2;
/// The pieces each id is cut into: one more than two slips can touch.
const PIECES: usize = 2 * SLIPS + 1;
/// The most ids one piece may stand for to be looked up. A piece that
/// many ids share (the `msg-` of `msg-000001`…, an empty piece of a short
/// id) finds nothing on its own: ids that alike would make every parent a
/// near miss of many, and comparing with all of them is what this index
/// is here to avoid. The other pieces are still looked up.
const MOST_SHARING_A_PIECE: usize = 256;
/// The bits of a key that say where to search for it.
const TOP_BITS: u32 = 16;

/// Ids indexed by their pieces, for [`NearIds::guess`].
pub struct NearIds<'a> {
    /// Each id as written and as compared ([`crate::ids::comparable`]), by
    /// the position it was given at; `None` for a message without one.
    ids: Vec<Option<(&'a str, Cow<'a, str>)>>,
    /// `(key of (length, piece number, piece), position)`, sorted ([`key`]).
    pieces: Vec<(u64, u32)>,
    /// Where the keys of each value of their top [`TOP_BITS`] bits start
    /// in `pieces`: keys are hashes, spread evenly, so a lookup searches a
    /// handful of entries.
    starts: Vec<u32>,
}

impl<'a> NearIds<'a> {
    /// Indexes `ids`, each known afterwards by its position.
    pub fn new(ids: impl IntoIterator<Item = Option<&'a str>>) -> NearIds<'a> {
        let ids: Vec<_> = ids
            .into_iter()
            .map(|id| id.map(|id| (id, crate::ids::comparable(id))))
            .collect();
        let mut pieces = Vec::with_capacity(ids.len() * PIECES);
        for (at, id) in ids.iter().enumerate() {
            let Some((_, compared)) = id else {
                continue;
            };
            let bytes = compared.as_bytes();
            for piece in 0..PIECES {
                let (start, end) = bounds(bytes.len(), piece);
                let at = u32::try_from(at).unwrap_or(u32::MAX);
                pieces.push((key(bytes.len(), piece, &bytes[start..end]), at));
            }
        }
        pieces.sort_unstable();
        let mut starts = Vec::with_capacity((1 << TOP_BITS) + 1);
        let mut at = 0;
        for top in 0..=1u64 << TOP_BITS {
            while at < pieces.len() && pieces[at].0 >> (64 - TOP_BITS) < top {
                at += 1;
            }
            starts.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        NearIds {
            ids,
            pieces,
            starts,
        }
    }

    /// The position of the one id (other than the one at `except`) that
    /// `wanted` is one or two slips from, the nearest (case ignored where
    /// [`crate::ids::comparable`] ignores it). None when none is that near,
    /// or when two different ids are equally nearest: a guess would then
    /// be a coin toss.
    pub fn guess(&self, wanted: &str, except: Option<usize>) -> Option<usize> {
        let compared = crate::ids::comparable(wanted);
        let wanted = compared.as_bytes();
        let mut found: Vec<u32> = Vec::new();
        // An id meant is at most two characters longer or shorter.
        for length in wanted.len().saturating_sub(SLIPS)..=wanted.len() + SLIPS {
            for piece in 0..PIECES {
                let (start, end) = bounds(length, piece);
                for at in start.saturating_sub(SLIPS)..=start + SLIPS {
                    let Some(text) = wanted.get(at..at + (end - start)) else {
                        continue;
                    };
                    let sharing = self.sharing(key(length, piece, text));
                    if sharing.len() <= MOST_SHARING_A_PIECE {
                        found.extend(sharing.iter().map(|&(_, id)| id));
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut best: Option<(usize, usize)> = None;
        let mut tied = false;
        for at in found.into_iter().map(|at| at as usize) {
            if Some(at) == except {
                continue;
            }
            let Some(Some((_, id))) = self.ids.get(at) else {
                continue;
            };
            let distance = edits(wanted, id.as_bytes());
            if distance == 0 || distance > SLIPS {
                continue;
            }
            match best {
                Some((d, b)) if d == distance && self.written(b) != self.written(at) => tied = true,
                Some((d, _)) if d <= distance => {}
                _ => {
                    best = Some((distance, at));
                    tied = false;
                }
            }
        }
        best.filter(|_| !tied).map(|(_, at)| at)
    }

    /// The entries of the index under `key`.
    fn sharing(&self, key: u64) -> &[(u64, u32)] {
        let top = (key >> (64 - TOP_BITS)) as usize;
        let (from, to) = (self.starts[top] as usize, self.starts[top + 1] as usize);
        let near = &self.pieces[from..to];
        let first = near.partition_point(|&(k, _)| k < key);
        let count = near[first..].partition_point(|&(k, _)| k == key);
        &near[first..first + count]
    }

    /// The id at `at` as written.
    fn written(&self, at: usize) -> Option<&str> {
        self.ids.get(at)?.as_ref().map(|(written, _)| *written)
    }
}

/// Where piece `piece` of an id of `length` bytes starts and ends.
fn bounds(length: usize, piece: usize) -> (usize, usize) {
    (piece * length / PIECES, (piece + 1) * length / PIECES)
}

/// The index's key of a piece: the same bytes at the same piece of an id
/// of another length are another key. Two pieces that hash alike only
/// bring one more id to compare.
fn key(length: usize, piece: usize, text: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    (length, piece, text).hash(&mut h);
    h.finish()
}

/// Edits from `a` to `b`: characters changed, added or dropped, and two
/// neighbours swapped (optimal string alignment distance).
fn edits(a: &[u8], b: &[u8]) -> usize {
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The guess made by comparing with every id: what the index must
    /// give whenever no piece is shared by too many ids.
    fn compared_with_all(wanted: &str, known: &[&str]) -> Option<usize> {
        let compared = crate::ids::comparable(wanted);
        let mut best: Option<(usize, usize)> = None;
        let mut tied = false;
        for (at, id) in known.iter().enumerate() {
            let distance = edits(compared.as_bytes(), crate::ids::comparable(id).as_bytes());
            if distance == 0 || distance > SLIPS {
                continue;
            }
            match best {
                Some((d, b)) if d == distance && known[b] != *id => tied = true,
                Some((d, _)) if d <= distance => {}
                _ => {
                    best = Some((distance, at));
                    tied = false;
                }
            }
        }
        best.filter(|_| !tied).map(|(_, at)| at)
    }

    fn guess(wanted: &str, known: &[&str]) -> Option<usize> {
        NearIds::new(known.iter().map(|id| Some(*id))).guess(wanted, None)
    }

    #[test]
    fn a_parent_retyped_with_a_slip_is_matched_to_the_one_id_it_nearly_is() {
        let known = ["01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DBC4N7P2Q3R5S7T9W1V3"];
        // V2 and V3 are each one change from VZ: a tie gives no guess.
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W1VZ", &known), None);
        let one = ["01J9J3DBC4N7P2Q3R5S7T9W1V2", "01KAAAAAAAAAAAAAAAAAAAAAAA"];
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W1VZ", &one), Some(0));
        // Two neighbours swapped, a character dropped, lower case.
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W12V", &one), Some(0));
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W1V", &one), Some(0));
        assert_eq!(guess("01j9j3dbc4n7p2q3r5s7t9w1vz", &one), Some(0));
        // Three slips, or the id itself: no guess.
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9WXYZ", &one), None);
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W1V2", &one), None);
        // The same id twice is one id, not a tie; the one excepted is not
        // a guess.
        let twice = ["01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DBC4N7P2Q3R5S7T9W1V2"];
        assert_eq!(guess("01J9J3DBC4N7P2Q3R5S7T9W1VZ", &twice), Some(0));
        let ids = NearIds::new(one.iter().map(|id| Some(*id)));
        assert_eq!(ids.guess("01J9J3DBC4N7P2Q3R5S7T9W1VZ", Some(0)), None);
    }

    #[test]
    fn two_swaps_across_the_cuts_still_leave_a_piece_to_find_it_by() {
        // 25 bytes: pieces of 5. Swapping across the first and the last
        // cut touches four pieces; the middle one finds the id.
        let known = ["abcdefghijklmnopqrstuvwxy", "zzzzzzzzzzzzzzzzzzzzzzzzz"];
        assert_eq!(guess("abcdfeghijklmnopqrsutvwxy", &known), Some(0));
        // A character added at the start and one dropped at the end: every
        // piece is two places from where it was.
        assert_eq!(guess("..abcdefghijklmnopqrstuvw", &known), None);
        assert_eq!(guess(".abcdefghijklmnopqrstuvwx", &known), Some(0));
    }

    #[test]
    fn ids_that_share_pieces_with_many_are_still_guessed_as_comparing_all_would() {
        // 5,000 names numbered in turn: every piece but the last is
        // shared by 500 ids or more and is not looked up.
        let known: Vec<String> = (0..5_000).map(|i| format!("m{i:05}")).collect();
        let known: Vec<&str> = known.iter().map(String::as_str).collect();
        let ids = NearIds::new(known.iter().map(|id| Some(*id)));
        let mut guessed = 0;
        for i in (0..5_000).step_by(53) {
            for wanted in [
                format!("m{i:05}x"),
                format!("m{:05}", i * 7 % 10_000).replacen('0', "", 1),
                format!("n{i:05}"),
                format!("m{i:04}"),
            ] {
                let got = ids.guess(&wanted, None);
                assert_eq!(got, compared_with_all(&wanted, &known), "{wanted}");
                guessed += usize::from(got.is_some());
            }
        }
        assert!(guessed > 50, "{guessed} guesses");
    }

    /// Ids of the shapes people use: UUIDs, ULIDs and names with numbers.
    fn an_id() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "01[0-9A-HJKMNP-TV-Z]{24}",
            "[a-z]{2,6}-[0-9]{1,6}",
            "[a-zA-Z0-9]{1,8}",
        ]
    }

    /// An id with up to three slips made in it.
    fn slipped(id: String, slips: Vec<(usize, u8, char)>) -> String {
        let mut chars: Vec<char> = id.chars().collect();
        for (at, kind, with) in slips {
            let at = at % (chars.len() + 1);
            match kind % 4 {
                0 if at < chars.len() => chars[at] = with,
                1 => chars.insert(at, with),
                2 if at < chars.len() => {
                    chars.remove(at);
                }
                _ if at + 1 < chars.len() => chars.swap(at, at + 1),
                _ => {}
            }
        }
        chars.into_iter().collect()
    }

    proptest! {
        #![proptest_config(crate::proptest_config::config(512))]

        #[test]
        fn the_index_guesses_what_comparing_with_every_id_guesses(
            known in prop::collection::vec(an_id(), 1..40),
            pick in any::<prop::sample::Index>(),
            slips in prop::collection::vec((any::<usize>(), any::<u8>(), prop::char::range('0', 'z')), 0..4),
        ) {
            let wanted = slipped(pick.get(&known).clone(), slips);
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let expected = compared_with_all(&wanted, &known);
            let got = guess(&wanted, &known);
            // Equally near ids written alike may be guessed by either
            // position: the id is what is compared.
            prop_assert_eq!(got.map(|at| known[at]), expected.map(|at| known[at]), "{} among {:?}", wanted, known);
        }
    }
}
