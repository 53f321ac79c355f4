//! Which of a query's terms a passage holds, as the lexical index or an
//! analysis of the passage tells it: plain data that the search returns with
//! each hit and coverage reads.

use rustc_hash::FxHashSet;
use std::sync::Arc;

/// The distinct terms of a passage. Only asked "does it hold this term?", so a hash set.
pub(crate) type PassageTokens = FxHashSet<Arc<str>>;

/// What is known of the terms a passage holds: all of them (it was analysed),
/// or which of the terms a search asked about (read from the index).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KnownTerms {
    All(PassageTokens),
    Among { asked: Vec<String>, held: PassageTokens },
}

impl KnownTerms {
    /// Of `asked` (sorted), the passage holds `held`.
    pub(crate) fn among(asked: &[String], held: impl IntoIterator<Item = Arc<str>>) -> Self {
        KnownTerms::Among { asked: asked.to_vec(), held: held.into_iter().collect() }
    }

    /// Whether the passage holds `term`; `None` when that was not asked.
    pub(crate) fn holds(&self, term: &str) -> Option<bool> {
        match self {
            KnownTerms::All(tokens) => Some(tokens.contains(term)),
            KnownTerms::Among { asked, held } => {
                asked.binary_search_by(|t| t.as_str().cmp(term)).is_ok().then(|| held.contains(term))
            }
        }
    }
}
