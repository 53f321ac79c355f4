//! The corpus's entities and what their names mean: the alias table (which
//! entity is called this: `named`, `close_names`), linking (which entities a
//! text mentions: `mentions`, and the build's per-passage links), and
//! authorship (who wrote which document, and whose name contains whose).
//! Built once per opened generation from the store's entities, read-only
//! after. It never reads the store or the lanes, and never builds envelope
//! types: `tools::resolve` turns its answers into the resolution section.

mod authorship;
mod linker;
mod names;

use std::collections::HashMap;

pub(crate) use authorship::Authorship;
pub(crate) use linker::Linker;
pub(crate) use names::CloseName;

use crate::corpus::Entity;
use crate::text::Mention;

pub(crate) struct Concepts {
    entities: Vec<Entity>,
    by_id: HashMap<String, usize>,
    names: names::Names,
    linker: Linker,
    authorship: Authorship,
}

impl Concepts {
    /// `document_authors`: (document id, author as written), for authorship.
    pub(crate) fn new(entities: Vec<Entity>, document_authors: &[(String, String)]) -> Self {
        let linker = Linker::new(&entities);
        let authorship = Authorship::new(&entities, &linker, document_authors);
        Self {
            by_id: entities.iter().enumerate().map(|(i, e)| (e.id.clone(), i)).collect(),
            names: names::Names::new(&entities),
            entities,
            linker,
            authorship,
        }
    }

    pub(crate) fn entity(&self, id: &str) -> Option<&Entity> {
        self.by_id.get(id).map(|i| &self.entities[*i])
    }

    /// Entities with an alias (or canonical name) equal to `term`, in that
    /// language when given; each with the alias that matched. Sorted by id.
    pub(crate) fn named(&self, term: &str, language: Option<&str>) -> Vec<(&Entity, String)> {
        let mut out: Vec<(&Entity, String)> = Vec::new();
        for (i, alias) in self.names.named(term, language) {
            let entity = &self.entities[i];
            if !out.iter().any(|(e, _)| e.id == entity.id) {
                out.push((entity, alias.to_owned()));
            }
        }
        out.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        out
    }

    /// Up to `n` entities whose names are close to `term`, best first (see `Names::close`).
    pub(crate) fn close_names(&self, term: &str, language: Option<&str>, n: usize) -> Vec<CloseName<'_>> {
        self.names.close(term, language, n, &self.entities)
    }

    /// The entity names `text` mentions, in `language` or (none given) in any.
    pub(crate) fn mentions(&self, text: &str, language: Option<&str>) -> Vec<Mention> {
        match language {
            Some(l) => self.linker.link(text, l),
            None => self.linker.link_any_language(text),
        }
    }

    /// The entities the entity lane searches for: those of `mentions` whose
    /// alias names only one entity, less the corpus's authors (their evidence
    /// is their works, which rarely name them; the passages that do are about
    /// them, by others).
    pub(crate) fn searchable(&self, mentions: &[Mention]) -> Vec<String> {
        mentions
            .iter()
            .filter(|m| !m.ambiguous && !self.authorship.is_author(&m.entity))
            .map(|m| m.entity.clone())
            .collect()
    }

    pub(crate) fn authorship(&self) -> &Authorship {
        &self.authorship
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// A small corpus of persons and concepts (also `tools::support`'s).
    pub(crate) use super::authorship::tests::corpus;
    use super::*;

    #[test]
    fn names_resolve_exactly_and_close_names_rank_containment_first() {
        let concepts = Concepts::new(corpus(), &[]);
        let first = &concepts.entities[0];
        assert_eq!(concepts.entity(&first.id).map(|e| &e.id), Some(&first.id));
        assert!(concepts.entity("concept.nothing").is_none());
        let named = concepts.named(&first.name.to_uppercase(), None);
        assert_eq!(named.iter().map(|(e, _)| e.id.as_str()).collect::<Vec<_>>(), [first.id.as_str()]);
        let close = concepts.close_names(&first.name, None, 3);
        assert_eq!(close.first().map(|c| (c.entity.id.as_str(), c.how)), Some((first.id.as_str(), "contains")));
    }
}
