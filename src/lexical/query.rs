//! Turning a natural-language query into a tantivy query without ever failing
//! on syntax: quoted spans become phrases that must match, the rest are terms
//! whose adjacency earns a proximity bonus. No query-parser syntax is exposed.

use std::ops::Bound;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use super::analyzers::{ANALYZED_LANGUAGES, ANALYZERS, PLAIN, analyzer, analyzer_name, analyzer_names, analyzer_slot};
use super::common_words::CommonWords;
use super::fields::LexicalFields;
use super::pair_phrase::PairPhraseQuery;
use crate::lane::{Filters, ParsedQuery};
use crate::passage::PassageNo;

/// How much a match of all free terms in order adds, relative to one term.
const PROXIMITY_BOOST: f32 = 2.0;
/// Title matches count less than text matches: a title is shared by every
/// passage of its document.
pub(super) const TITLE_BOOST: f32 = 0.5;

/// (position, term) pairs of `text` under an analyzer.
pub(super) fn analyze(analyzer_name: &str, text: &str) -> Vec<(usize, String)> {
    let mut analyzer = analyzer(analyzer_name);
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push((token.position, token.text.clone()));
    }
    out
}

/// A query under every analyzer, analysed once per call: the lexical and
/// feedback lanes and the occurrences of returned passages read it, and none
/// analyses the query again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnalysedQuery {
    /// Per analyzer, in `analyzer_names` order.
    under: [Analysed; ANALYZERS],
}

/// The query under one analyzer.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Analysed {
    /// The free text's (position, term) pairs.
    free: Vec<(usize, String)>,
    /// Each quoted phrase's (position, term) pairs, in the query's order.
    phrases: Vec<Vec<(usize, String)>>,
    /// The index terms of the free text's spelling variants here.
    variants: Vec<String>,
    /// Every term above, sorted and deduplicated.
    terms: Vec<String>,
}

impl AnalysedQuery {
    pub(crate) fn new(query: &ParsedQuery) -> Self {
        Self {
            under: analyzer_names().map(|name| {
                let free = analyze(name, &query.free_text);
                let phrases: Vec<Vec<(usize, String)>> = query.phrases.iter().map(|p| analyze(name, p)).collect();
                let variants: Vec<String> =
                    query.variants.iter().filter(|v| v.analyzer == name).map(|v| v.term.clone()).collect();
                let mut terms: Vec<String> = free
                    .iter()
                    .chain(phrases.iter().flatten())
                    .map(|(_, t)| t.clone())
                    .chain(variants.clone())
                    .collect();
                terms.sort();
                terms.dedup();
                Analysed { free, phrases, variants, terms }
            }),
        }
    }

    /// How many quoted phrases the query has (the same under every analyzer).
    fn phrase_count(&self) -> usize {
        self.under[0].phrases.len()
    }

    /// The query under analyzer `name` (or a language code's analyzer).
    pub(crate) fn under(&self, name: &str) -> &Analysed {
        &self.under[analyzer_slot(analyzer_name(name))]
    }
}

impl Analysed {
    /// Every term the query has here, sorted (what a returned passage is checked for).
    pub(crate) fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The free text's and the phrases' terms, then the variants', in query order (repeats kept).
    pub(super) fn searched(&self) -> impl Iterator<Item = &str> {
        let analysed = self.free.iter().chain(self.phrases.iter().flatten()).map(|(_, t)| t.as_str());
        analysed.chain(self.variants.iter().map(String::as_str))
    }
}

/// The terms analyzer `name` makes of one word, sorted (empty: it drops the word).
pub(crate) fn word_terms(name: &str, word: &str) -> Vec<String> {
    let mut terms: Vec<String> = analyze(name, word).into_iter().map(|(_, t)| t).collect();
    terms.sort();
    terms.dedup();
    terms
}

fn term_query(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::WithFreqs))
}

/// A phrase (or single term) over `field`; `None` when nothing survives analysis.
fn sequence_query(field: Field, tokens: &[(usize, String)]) -> Option<Box<dyn Query>> {
    match tokens {
        [] => None,
        [(_, only)] => Some(term_query(field, only)),
        [(first, _), ..] => {
            let terms = tokens.iter().map(|(pos, t)| (pos - first, Term::from_field_text(field, t))).collect();
            Some(Box::new(PhraseQuery::new_with_offset(terms)))
        }
    }
}

/// A language whose passages hold less than this share of the best language's
/// query-term occurrences is not searched (see `plausible_languages`).
const LANGUAGE_SHARE: f64 = 0.1;

/// The analyzers a query is searched under. With a language filter, that one.
/// Otherwise every analyzer whose passages contain the query's terms about as
/// often as the best one's: BM25 statistics are per field, so an English query
/// would otherwise rank first the few German passages that quote English words
/// (rare there, so high IDF).
pub(crate) fn plausible_languages(
    searcher: &Searcher,
    fields: &LexicalFields,
    query: &AnalysedQuery,
    filters: &Filters,
) -> Vec<&'static str> {
    if let Some(language) = &filters.language {
        return vec![analyzer_name(language)];
    }
    let all = ANALYZED_LANGUAGES.iter().copied().chain(std::iter::once(PLAIN));
    let occurrences: Vec<(&'static str, f64)> = all
        .map(|name| {
            let Some(&field) = fields.text.get(name) else { return (name, 0.0) };
            let total: u64 = query
                .under(name)
                .searched()
                .map(|term| searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0))
                .sum();
            (name, total as f64)
        })
        .collect();
    let best = occurrences.iter().map(|(_, n)| *n).fold(0.0, f64::max);
    if best == 0.0 {
        return occurrences.into_iter().map(|(name, _)| name).collect();
    }
    occurrences.into_iter().filter(|(_, n)| *n >= best * LANGUAGE_SHARE).map(|(name, _)| name).collect()
}

/// The phrase (or single term) `tokens` under analyzer `name`: from the pair
/// field when every word is common (the same matches and scores, far shorter
/// lists), positionally otherwise; `None` when nothing survives analysis.
fn phrase_query(
    fields: &LexicalFields,
    common: &CommonWords,
    name: &str,
    text: Field,
    tokens: &[(usize, String)],
) -> Option<Box<dyn Query>> {
    if let (Some(&pair_field), Some(pairs)) = (fields.pairs.get(name), common.phrase_pairs(name, tokens)) {
        return Some(Box::new(PairPhraseQuery::new(text, tokens, pair_field, &pairs)));
    }
    sequence_query(text, tokens)
}

pub(crate) fn build(
    fields: &LexicalFields,
    common: &CommonWords,
    query: &AnalysedQuery,
    filters: &Filters,
    allowed: Option<&[PassageNo]>,
    languages: &[&'static str],
) -> Option<Box<dyn Query>> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();

    for phrase in 0..query.phrase_count() {
        let per_language: Vec<(Occur, Box<dyn Query>)> = languages
            .iter()
            .filter_map(|name| {
                let field = *fields.text.get(name)?;
                let tokens = &query.under(name).phrases[phrase];
                phrase_query(fields, common, name, field, tokens).map(|q| (Occur::Should, q))
            })
            .collect();
        if !per_language.is_empty() {
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(per_language))));
        }
    }

    let mut free: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for name in languages {
        let (Some(&text), Some(&title)) = (fields.text.get(name), fields.title.get(name)) else { continue };
        let analysed = query.under(name);
        let tokens = &analysed.free;
        // A spelling variant is searched as the word it stands for (not in the proximity phrase).
        for term in tokens.iter().map(|(_, t)| t.as_str()).chain(analysed.variants.iter().map(String::as_str)) {
            free.push((Occur::Should, term_query(text, term)));
            free.push((Occur::Should, Box::new(BoostQuery::new(term_query(title, term), TITLE_BOOST))));
        }
        if tokens.len() >= 2
            && let Some(phrase) = phrase_query(fields, common, name, text, tokens)
        {
            free.push((Occur::Should, Box::new(BoostQuery::new(phrase, PROXIMITY_BOOST))));
        }
    }
    let has_terms = !free.is_empty();
    if has_terms {
        let occur = if clauses.is_empty() { Occur::Must } else { Occur::Should };
        clauses.push((occur, Box::new(BooleanQuery::new(free))));
    }
    if clauses.is_empty() {
        return None;
    }
    clauses.extend(filter_clauses(fields, filters, allowed));
    Some(Box::new(BooleanQuery::new(clauses)))
}

/// The filters as clauses every hit must satisfy. In the document index,
/// `allowed` keeps the documents holding at least one allowed passage.
pub(super) fn filter_clauses(
    fields: &LexicalFields,
    filters: &Filters,
    allowed: Option<&[PassageNo]>,
) -> Vec<(Occur, Box<dyn Query>)> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if let Some(language) = &filters.language {
        clauses.push((Occur::Must, term_query(fields.language, language)));
    }
    if let Some(work) = &filters.work {
        clauses.push((Occur::Must, term_query(fields.work, work)));
    }
    if let Some((first, last)) = filters.years {
        let bound = |year: i32| Bound::Included(Term::from_field_i64(fields.year, i64::from(year)));
        clauses.push((Occur::Must, Box::new(RangeQuery::new(bound(first), bound(last)))));
    }
    if let Some(allowed) = allowed {
        clauses.push((Occur::Must, passages_query(fields, allowed)));
    }
    clauses
}

/// Matches the passages with these numbers (in the document index: the documents holding one).
pub(super) fn passages_query(fields: &LexicalFields, numbers: &[PassageNo]) -> Box<dyn Query> {
    let terms = numbers.iter().map(|no| Term::from_field_u64(fields.no, u64::from(no.0)));
    Box::new(TermSetQuery::new(terms))
}

/// Whether a weighted query also searches the title fields (the passage
/// index's; the document index holds titles in its text).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Titles {
    Searched,
    InText,
}

/// A query of weighted analysed terms, `(analyzer, term, weight)`: each term
/// scores its BM25 times its weight in the text field and, with
/// `Titles::Searched`, `TITLE_BOOST` times that in the title field. `None`
/// when no term has a field.
pub(super) fn weighted_terms(
    fields: &LexicalFields,
    terms: &[(&'static str, String, f32)],
    titles: Titles,
    filters: &Filters,
    allowed: Option<&[PassageNo]>,
) -> Option<Box<dyn Query>> {
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (name, term, weight) in terms {
        let Some(&text) = fields.text.get(name) else { continue };
        should.push((Occur::Should, Box::new(BoostQuery::new(term_query(text, term), *weight))));
        if let (Titles::Searched, Some(&title)) = (titles, fields.title.get(name)) {
            should.push((Occur::Should, Box::new(BoostQuery::new(term_query(title, term), weight * TITLE_BOOST))));
        }
    }
    if should.is_empty() {
        return None;
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
    clauses.extend(filter_clauses(fields, filters, allowed));
    Some(Box::new(BooleanQuery::new(clauses)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{SpellingVariant, parse_query};

    #[test]
    fn a_query_is_analysed_once_under_every_analyzer_with_its_variants_where_they_were_found() {
        let mut parsed = parse_query("\"natural selection\" of the varieties");
        parsed.variants = vec![SpellingVariant {
            asked: "varieties".into(),
            found: "varietys".into(),
            analyzer: "en",
            term: "varieti".into(),
            passages: 3,
        }];
        let query = AnalysedQuery::new(&parsed);
        let en = query.under("en");
        assert_eq!(en.free, [(2, "varieti".to_owned())], "stop words dropped, positions kept");
        assert_eq!(en.phrases, [vec![(0, "natur".to_owned()), (1, "select".to_owned())]]);
        assert_eq!(en.variants, ["varieti"]);
        assert_eq!(en.terms(), ["natur", "select", "varieti"]);
        assert_eq!(en.searched().collect::<Vec<_>>(), ["varieti", "natur", "select", "varieti"]);
        // The plain analyzer keeps every word and has no English variant; a language code finds its analyzer.
        let plain = query.under("plain");
        assert_eq!(plain.terms(), ["natural", "of", "selection", "the", "varieties"]);
        assert!(plain.variants.is_empty());
        assert_eq!(query.under("la"), plain);
        assert_eq!(query.under("de-AT"), query.under("de"));
        assert_eq!(query.phrase_count(), 1);
    }
}
