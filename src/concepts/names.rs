//! The alias table: every entity's canonical name and aliases, normalised, for
//! exact lookups (`named`) and suggestions (`close`). Linking text is the
//! linker's job; this answers "which entity is called this?".

use std::collections::HashMap;

use crate::corpus::Entity;
use crate::text::{normalized_words, without_possessive};

/// A name close to an asked term (a suggestion for an unresolved one).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CloseName<'e> {
    pub(crate) entity: &'e Entity,
    /// The entity's name, as written, that came closest.
    pub(crate) alias: String,
    /// "contains", "shared_words" or "similar_spelling".
    pub(crate) how: &'static str,
}

/// Normalised alias words → (entity index, alias as written, language; `*` for the canonical name).
#[derive(Default)]
pub(super) struct Names {
    by_words: HashMap<Vec<String>, Vec<(usize, String, String)>>,
}

impl Names {
    pub(super) fn new(entities: &[Entity]) -> Self {
        let mut by_words: HashMap<Vec<String>, Vec<(usize, String, String)>> = HashMap::new();
        for (i, entity) in entities.iter().enumerate() {
            let names = std::iter::once((entity.name.as_str(), "*"))
                .chain(entity.aliases.iter().map(|a| (a.name.as_str(), a.language.as_str())));
            for (name, language) in names {
                let key = normalized_words(name);
                if key.is_empty() {
                    continue;
                }
                let slot = by_words.entry(key).or_default();
                if !slot.iter().any(|(j, _, l)| *j == i && l == language) {
                    slot.push((i, name.to_owned(), language.to_owned()));
                }
            }
        }
        Self { by_words }
    }

    /// (entity index, alias as written) of every name equal to `term`, in that
    /// language when given (canonical names match in every language).
    pub(super) fn named<'a>(
        &'a self,
        term: &str,
        language: Option<&'a str>,
    ) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        self.by_words.get(&normalized_words(term)).into_iter().flatten().filter_map(
            move |(i, alias, alias_language)| {
                language.is_none_or(|l| alias_language == l || alias_language == "*").then_some((*i, alias.as_str()))
            },
        )
    }

    /// Up to `n` entities whose names are close to `term`, best first: a name
    /// that contains the term or is contained in it, then names sharing a
    /// word, then names spelt alike (normalised Damerau-Levenshtein ≥ 0.7).
    /// One per entity of `entities` (the list this table was built from),
    /// with its closest name; ties by entity id and alias, so the answer does
    /// not depend on hash order.
    pub(super) fn close<'e>(
        &self,
        term: &str,
        language: Option<&str>,
        n: usize,
        entities: &'e [Entity],
    ) -> Vec<CloseName<'e>> {
        // Possessives compare as their base word: "Mivart" is close to "Mivart's objections".
        let base = |w: &String| without_possessive(w).to_owned();
        let words: Vec<String> = normalized_words(term).iter().map(base).collect();
        if words.is_empty() {
            return Vec::new();
        }
        let phrase = words.join(" ");
        let content: Vec<&String> = words.iter().filter(|w| w.chars().count() > 2).collect();
        let padded = |s: &str| format!(" {s} ");
        let mut best: HashMap<usize, Closeness> = HashMap::new();
        for (key, owners) in &self.by_words {
            let key: Vec<String> = key.iter().map(base).collect();
            let alias = key.join(" ");
            let similarity = strsim::normalized_damerau_levenshtein(&phrase, &alias);
            let (tier, how) = if padded(&alias).contains(&padded(&phrase)) || padded(&phrase).contains(&padded(&alias))
            {
                (3, "contains")
            } else if content.iter().any(|w| key.contains(w)) {
                (2, "shared_words")
            } else if similarity >= 0.7 {
                (1, "similar_spelling")
            } else {
                continue;
            };
            for (i, written, alias_language) in owners {
                if language.is_some_and(|l| alias_language != l && alias_language != "*") {
                    continue;
                }
                let candidate = Closeness { tier, similarity, alias: written.clone(), how };
                if best.get(i).is_none_or(|b| candidate.beats(b)) {
                    best.insert(*i, candidate);
                }
            }
        }
        let mut ranked: Vec<(usize, Closeness)> = best.into_iter().collect();
        ranked.sort_by(|(ia, a), (ib, b)| {
            b.tier
                .cmp(&a.tier)
                .then(b.similarity.total_cmp(&a.similarity))
                .then_with(|| entities[*ia].id.cmp(&entities[*ib].id))
        });
        ranked
            .into_iter()
            .take(n)
            .map(|(i, c)| CloseName { entity: &entities[i], alias: c.alias, how: c.how })
            .collect()
    }
}

/// How close one alias is to a term.
struct Closeness {
    /// 3 contains, 2 shares a word, 1 spelt alike.
    tier: u8,
    similarity: f64,
    alias: String,
    how: &'static str,
}

impl Closeness {
    /// Higher tier, then higher similarity, then the alphabetically first alias.
    fn beats(&self, other: &Closeness) -> bool {
        self.tier
            .cmp(&other.tier)
            .then(self.similarity.total_cmp(&other.similarity))
            .then_with(|| other.alias.cmp(&self.alias))
            .is_gt()
    }
}
