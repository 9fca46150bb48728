//! Who the person at this keyboard is, as the keystore says: the senders
//! their own keys sign for (their ids where no `signs-for` is given). The
//! primer never tells a chat to write as one of them, from any face.

use crate::protocols::crosstalk::primer::PERSON;
use crate::sign::keystore::Keystore;

/// `HUMAN` and the senders the person's own keys sign for; patterns (`*`)
/// name nobody in particular and are left out. A keystore that cannot be
/// read adds nothing: `HUMAN` is still the person.
pub fn person_names() -> Vec<String> {
    let mut names = vec![PERSON.to_string()];
    let own = Keystore::open()
        .and_then(|store| store.own_keys())
        .unwrap_or_default();
    for key in own {
        let senders = if key.signs_for.is_empty() {
            vec![key.id.clone()]
        } else {
            key.signs_for.clone()
        };
        names.extend(senders.into_iter().filter(|s| !s.contains('*')));
    }
    names.sort();
    names.dedup();
    names
}
