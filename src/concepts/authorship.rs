//! Whose words a passage holds and whom its names mean: the person entities
//! that author the corpus's documents, and the namesakes of each person.
//!
//! Two facts the verdict needs for person questions. An author entity
//! ("Darwin" in the Origin) is the speaker of every passage of its works, so
//! a mention is not how its evidence is found: it is covered by authorship,
//! and naming it in a question says whose text to read, not what to look for.
//! A namesake is another person whose name contains the person's name
//! ("Erasmus Darwin" for "Darwin"): the linker gives a passage's "Erasmus
//! Darwin" to Erasmus (leftmost-longest), so a passage mentioning the namesake
//! and not the person speaks of someone else.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::linker::Linker;
use crate::corpus::Entity;
use crate::text::normalized_words;

/// The entity kind whose shared names make namesakes. Concepts are left out:
/// "selection" inside "natural selection" is a narrower concept, not another one.
pub(crate) const PERSON_KIND: &str = "person";

#[derive(Debug, Default, Clone)]
pub(crate) struct Authorship {
    /// Document id → the person entities its author field names.
    authors_of: HashMap<String, Vec<String>>,
    /// Every entity some document's author field names.
    author_entities: BTreeSet<String>,
    /// The words of every author field, entity or not: a question naming the
    /// author ("what does Darwin say") names the corpus, not what it is about.
    author_words: BTreeSet<String>,
    /// Person → the other persons whose names contain one of its names.
    namesakes: BTreeMap<String, Vec<String>>,
}

impl Authorship {
    /// `document_authors`: (document id, author as written). An author field
    /// may name several people ("Charles Darwin / Heinrich Georg Bronn").
    pub(crate) fn new(entities: &[Entity], linker: &Linker, document_authors: &[(String, String)]) -> Self {
        let people: BTreeSet<&str> = entities.iter().filter(|e| e.kind == PERSON_KIND).map(|e| e.id.as_str()).collect();
        let mut authors_of = HashMap::new();
        let mut author_entities = BTreeSet::new();
        let mut author_words = BTreeSet::new();
        // Many documents share an author: each distinct author field is linked once.
        let mut linked: HashMap<&str, Vec<String>> = HashMap::new();
        for (document, author) in document_authors {
            let named = linked.entry(author.as_str()).or_insert_with(|| {
                author_words.extend(normalized_words(author));
                linker
                    .link_any_language(author)
                    .into_iter()
                    .filter(|m| !m.ambiguous && people.contains(m.entity.as_str()))
                    .map(|m| m.entity)
                    .collect()
            });
            if !named.is_empty() {
                author_entities.extend(named.iter().cloned());
                authors_of.insert(document.clone(), named.clone());
            }
        }
        Self { authors_of, author_entities, author_words, namesakes: namesakes(entities) }
    }

    /// The person entities that wrote `document`.
    pub(crate) fn authors_of(&self, document: &str) -> &[String] {
        self.authors_of.get(document).map_or(&[], Vec::as_slice)
    }

    /// Whether `entity` wrote some document of the corpus.
    pub(crate) fn is_author(&self, entity: &str) -> bool {
        self.author_entities.contains(entity)
    }

    /// The words of the authors' names.
    pub(crate) fn author_words(&self) -> &BTreeSet<String> {
        &self.author_words
    }

    /// The other persons whose names contain one of `person`'s names.
    pub(crate) fn namesakes_of(&self, person: &str) -> &[String] {
        self.namesakes.get(person).map_or(&[], Vec::as_slice)
    }
}

/// For each person, the persons with a longer name containing one of its
/// names as whole words ("erasmus darwin" contains "darwin"). Equal names are
/// not namesakes here: a shared alias is a collision, which resolution reports.
fn namesakes(entities: &[Entity]) -> BTreeMap<String, Vec<String>> {
    let names = |e: &Entity| -> Vec<Vec<String>> {
        std::iter::once(e.name.as_str())
            .chain(e.aliases.iter().map(|a| a.name.as_str()))
            .map(normalized_words)
            .filter(|w| !w.is_empty())
            .collect()
    };
    let people: Vec<(&Entity, Vec<Vec<String>>)> =
        entities.iter().filter(|e| e.kind == PERSON_KIND).map(|e| (e, names(e))).collect();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (person, short) in &people {
        for (other, long) in &people {
            if person.id == other.id {
                continue;
            }
            let contains = long
                .iter()
                .any(|l| short.iter().any(|s| s.len() < l.len() && l.windows(s.len()).any(|w| w == s.as_slice())));
            if contains {
                out.entry(person.id.clone()).or_default().push(other.id.clone());
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::Alias;

    pub(crate) fn entity(id: &str, kind: &str, aliases: &[&str]) -> Entity {
        Entity {
            id: id.into(),
            name: aliases[0].into(),
            kind: kind.into(),
            aliases: aliases
                .iter()
                .map(|n| Alias { name: (*n).into(), language: "*".into(), review_status: "reviewed".into() })
                .collect(),
            period: None,
            status: None,
            review_status: "reviewed".into(),
            ambiguous: false,
            senses: vec![],
            definition: None,
            relations: vec![],
            extra: BTreeMap::new(),
        }
    }

    pub(crate) fn corpus() -> Vec<Entity> {
        vec![
            entity("person.charles", PERSON_KIND, &["Charles Darwin", "Darwin", "Mr. Darwin"]),
            entity("person.erasmus", PERSON_KIND, &["Erasmus Darwin", "Dr. Darwin"]),
            entity("person.bronn", PERSON_KIND, &["Heinrich Georg Bronn", "Bronn"]),
            entity("concept.selection", "concept", &["selection"]),
            entity("concept.natural_selection", "concept", &["natural selection"]),
        ]
    }

    #[test]
    fn a_longer_name_containing_a_persons_name_is_a_namesake_and_concepts_are_not() {
        let entities = corpus();
        let a = Authorship::new(&entities, &Linker::new(&entities), &[]);
        assert_eq!(a.namesakes_of("person.charles"), ["person.erasmus"]);
        assert!(a.namesakes_of("person.erasmus").is_empty(), "`Darwin` does not contain `Erasmus Darwin`");
        assert!(a.namesakes_of("concept.selection").is_empty());
    }

    #[test]
    fn author_fields_name_the_author_entities_of_each_document() {
        let entities = corpus();
        let docs = [
            ("d.en".to_owned(), "Charles Darwin".to_owned()),
            ("d.de".to_owned(), "Charles Darwin / Heinrich Georg Bronn".to_owned()),
            ("d.anon".to_owned(), "Anonymous".to_owned()),
        ];
        let a = Authorship::new(&entities, &Linker::new(&entities), &docs);
        assert_eq!(a.authors_of("d.en"), ["person.charles"]);
        assert_eq!(a.authors_of("d.de"), ["person.bronn", "person.charles"]);
        assert!(a.authors_of("d.anon").is_empty());
        assert!(a.is_author("person.charles") && !a.is_author("person.erasmus"));
        assert!(a.author_words().contains("anonymous") && a.author_words().contains("bronn"));
    }
}
