//! The lexical lanes: BM25 over passage text with one analyzer per language,
//! and the feedback lane over whole documents (`feedback`). `build` writes the
//! two tantivy indexes of a generation; `LexicalIndex` reads them and answers
//! `search` and `feedback_search`, each with a ranked list of passage numbers.

mod analyzers;
mod build;
mod common_words;
mod directory;
mod feedback;
mod fields;
mod highlight;
mod occurrences;
mod pair_phrase;
mod query;
mod sparse;
mod variants;

pub(crate) use analyzers::{ANALYZERS, analyzer_name, analyzer_names, analyzer_slot};
pub(crate) use build::LexicalWriter;
pub(crate) use highlight::{KnownTerms, analyse_passage};
pub(crate) use occurrences::{Occurrences, Returned};
pub(crate) use query::{AnalysedQuery, word_terms};
pub(crate) use sparse::{PassageTerms, SparseManifest, Weigher, query_vector as sparse_query_vector};

use std::collections::{HashMap, HashSet};
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::schema::{Field, Value};
use tantivy::{Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument};

use crate::error::{Error, Result};
use crate::lane::{Filters, Lane, LaneHits, SpellingVariant};
use crate::passage::PassageNo;
use fields::LexicalFields;

/// One tantivy index of a generation, opened read-only.
struct Part {
    reader: IndexReader,
    fields: LexicalFields,
    /// Each segment's passage-number column, by segment ordinal: read once at
    /// open (a generation never changes, and the reader never reloads).
    numbers: Vec<Column<u64>>,
    /// The words whose pairs the index holds (none in the document index and
    /// in passage indexes built before pairs: their phrases are positional).
    common: common_words::CommonWords,
}

/// Bytes of the passage index's query files held in memory (`directory`): it
/// is searched by every lexical call and read for every returned passage.
const PASSAGE_INDEX_RESIDENT: usize = 256 << 20;
/// The same for the document index, searched only by the feedback lane (which
/// runs where there are no vectors).
const DOCUMENT_INDEX_RESIDENT: usize = 64 << 20;

impl Part {
    fn open(dir: &std::path::Path, what: &str, resident: usize) -> Result<Self> {
        let index = Index::open(directory::ReadOnlyDirectory::new(dir, resident)).map_err(|e| Error::IndexCorrupt {
            path: dir.to_owned(),
            reason: format!("{what} cannot be opened ({})", plain(&e)),
        })?;
        analyzers::register(&index);
        let fields = LexicalFields::from_schema(&index.schema()).ok_or_else(|| Error::IndexCorrupt {
            path: dir.to_owned(),
            reason: format!("{what} has an unexpected schema"),
        })?;
        let corrupt =
            |reason: String| Error::IndexCorrupt { path: dir.to_owned(), reason: format!("{what}: {reason}") };
        let metas = index.load_metas().map_err(|e| corrupt(plain(&e)))?;
        let common = common_words::CommonWords::from_payload(metas.payload.as_deref())
            .map_err(|reason| corrupt(format!("{reason}; rebuild it")))?;
        let reader: IndexReader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let numbers = reader
            .searcher()
            .segment_readers()
            .iter()
            .map(|segment| segment.fast_fields().u64(fields::NO_FIELD))
            .collect::<tantivy::Result<Vec<_>>>()
            .map_err(|e| Error::IndexCorrupt {
                path: dir.to_owned(),
                reason: format!("{what} has no passage numbers ({}); rebuild it", plain(&e)),
            })?;
        Ok(Self { reader, fields, numbers, common })
    }

    /// The passage numbers a hit holds: one for a passage, all of a document's for a document.
    fn numbers_of(&self, address: tantivy::DocAddress) -> impl Iterator<Item = PassageNo> + '_ {
        self.numbers
            .get(address.segment_ord as usize)
            .into_iter()
            .flat_map(move |column| column.values_for_doc(address.doc_id))
            .filter_map(|no| u32::try_from(no).ok().map(PassageNo))
    }
}

/// Passages per requested document the feedback lane reads to find each document's best passage.
const REPRESENTATIVE_POOL: usize = 4;

pub(crate) struct LexicalIndex {
    passages: Part,
    /// The feedback lane's document index; `None` in generations built before it.
    documents: Option<Part>,
}

impl LexicalIndex {
    /// Opens the passage index in `dir` and the document index in `documents`
    /// (a generation built before the feedback lane has none: that lane then finds nothing).
    pub(crate) fn open(dir: &std::path::Path, documents: &std::path::Path) -> Result<Self> {
        let passages = Part::open(dir, "lexical index", PASSAGE_INDEX_RESIDENT)?;
        let documents = if documents.exists() {
            let part = Part::open(documents, "document index", DOCUMENT_INDEX_RESIDENT)?;
            if part.fields.terms.is_none() || part.fields.analyzer.is_none() {
                return Err(Error::IndexCorrupt {
                    path: documents.to_owned(),
                    reason: "document index has no term counts; rebuild it".into(),
                });
            }
            Some(part)
        } else {
            tracing::warn!(
                "the generation has no document index (built before the feedback lane): rebuild it to use that lane"
            );
            None
        };
        Ok(Self { passages, documents })
    }

    /// Ranks passages for `query` by BM25; at most `depth` hits, only among
    /// `allowed` passage ids when given.
    pub(crate) fn search(
        &self,
        query: &AnalysedQuery,
        filters: &Filters,
        allowed: Option<&[PassageNo]>,
        depth: usize,
    ) -> Result<LaneHits> {
        let part = &self.passages;
        let searcher = part.reader.searcher();
        let languages = query::plausible_languages(&searcher, &part.fields, query, filters);
        let Some(tantivy_query) = query::build(&part.fields, &part.common, query, filters, allowed, &languages) else {
            return Ok(LaneHits { lane: Lane::Lexical, hits: Vec::new() });
        };
        let top = searcher.search(&tantivy_query, &TopDocs::with_limit(depth.max(1)))?;
        // Numbers come from the fast-field column; no stored document is read.
        let scored =
            top.into_iter().filter_map(|(score, address)| Some((part.numbers_of(address).next()?, score))).collect();
        Ok(LaneHits::from_scored(Lane::Lexical, scored))
    }

    /// The analyzers the lexical lane searches `query` under (a sparse lexical
    /// lane asks too, so both backends search the same languages).
    pub(crate) fn languages_for(&self, query: &AnalysedQuery, filters: &Filters) -> Vec<&'static str> {
        query::plausible_languages(&self.passages.reader.searcher(), &self.passages.fields, query, filters)
    }

    /// Whether the generation has the feedback lane's document index.
    pub(crate) fn has_documents(&self) -> bool {
        self.documents.is_some()
    }

    /// The feedback lane: documents ranked by BM25 over their whole text for
    /// the query expanded with the words of its best documents (RM3, see
    /// `feedback`), at most `depth`, each represented by its passage scoring
    /// best for the expanded query among the top `REPRESENTATIVE_POOL` × depth
    /// (ties: the lower number; none there: its first passage) and ranked at
    /// its document's score.
    pub(crate) fn feedback_search(
        &self,
        query: &AnalysedQuery,
        filters: &Filters,
        allowed: Option<&[PassageNo]>,
        depth: usize,
    ) -> Result<LaneHits> {
        let empty = || LaneHits { lane: Lane::Feedback, hits: Vec::new() };
        let Some(documents) = &self.documents else { return Ok(empty()) };
        let searcher = documents.reader.searcher();
        let languages = query::plausible_languages(&searcher, &documents.fields, query, filters);
        let Some(first) = query::build(&documents.fields, &documents.common, query, filters, allowed, &languages)
        else {
            return Ok(empty());
        };
        let best = searcher.search(&first, &TopDocs::with_limit(feedback::FEEDBACK_DOCUMENTS))?;
        if best.is_empty() {
            return Ok(empty());
        }
        let stored = read_counts(&searcher, &documents.fields, &best)?;
        let feedback_documents: Vec<feedback::FeedbackDocument<'_>> = stored
            .iter()
            .map(|(score, analyzer, counts)| feedback::FeedbackDocument {
                score: *score,
                analyzer,
                counts: feedback::decode_counts(counts),
            })
            .collect();
        let query_terms: Vec<(&'static str, String)> = languages
            .iter()
            .flat_map(|&name| query.under(name).searched().map(move |t| (name, t.to_owned())))
            .collect();
        let expanded = feedback::expand(&query_terms, &feedback_documents);
        let Some(second) = query::weighted_terms(&documents.fields, &expanded, query::Titles::InText, filters, allowed)
        else {
            return Ok(empty());
        };
        let ranked = searcher.search(&second, &TopDocs::with_limit(depth.max(1)))?;
        // Each ranked document's passages (those allowed), then the best of them for the expanded query.
        let allowed: Option<HashSet<PassageNo>> = allowed.map(|a| a.iter().copied().collect());
        let mut document_of: HashMap<PassageNo, usize> = HashMap::new();
        let mut first_passage: Vec<Option<PassageNo>> = Vec::with_capacity(ranked.len());
        for (i, (_, address)) in ranked.iter().enumerate() {
            let numbers: Vec<PassageNo> =
                documents.numbers_of(*address).filter(|no| allowed.as_ref().is_none_or(|a| a.contains(no))).collect();
            first_passage.push(numbers.iter().min().copied());
            document_of.extend(numbers.into_iter().map(|no| (no, i)));
        }
        // The best passage of each ranked document among the expanded query's
        // top passages. Restricting the query to the documents' passages would
        // need a term set over the number field, whose dictionary walk cost
        // more than this whole lane; a document with none of its passages
        // there is represented by its first.
        let mut representative: Vec<Option<(f32, PassageNo)>> = vec![None; ranked.len()];
        if let Some(within) =
            query::weighted_terms(&self.passages.fields, &expanded, query::Titles::Searched, filters, None)
        {
            let passages = self.passages.reader.searcher();
            let pool = depth.max(1).saturating_mul(REPRESENTATIVE_POOL);
            for (score, address) in passages.search(&within, &TopDocs::with_limit(pool))? {
                let Some(no) = self.passages.numbers_of(address).next() else { continue };
                let Some(&i) = document_of.get(&no) else { continue };
                let better = representative[i].is_none_or(|(s, n)| score > s || (score == s && no < n));
                if better {
                    representative[i] = Some((score, no));
                }
            }
        }
        let scored = ranked
            .iter()
            .zip(representative.iter().zip(&first_passage))
            .filter_map(|((score, _), (best, first))| Some((best.map(|(_, no)| no).or(*first)?, *score)))
            .collect();
        Ok(LaneHits::from_scored(Lane::Feedback, scored))
    }

    /// Which of the query's terms each returned passage holds and where their
    /// words are in its text (see `occurrences`), in the order given.
    pub(crate) fn occurrences(&self, passages: &[Returned<'_>], query: &AnalysedQuery) -> Result<Vec<Occurrences>> {
        let searcher = self.passages.reader.searcher();
        let terms_for = |name: &'static str| query.under(name).terms();
        Ok(occurrences::occurrences(&searcher, &self.passages.fields, passages, terms_for)?)
    }

    /// How many passages contain `word` (as their language's analyzer reduces
    /// it), in the language where it is most frequent; 0 when it occurs
    /// nowhere or every analyzer drops it.
    pub(crate) fn passages_with(&self, word: &str) -> u64 {
        let searcher = self.passages.reader.searcher();
        let mut most = 0;
        for (name, field) in &self.passages.fields.text {
            for (_, term) in query::analyze(name, word) {
                most = most.max(searcher.doc_freq(&tantivy::Term::from_field_text(*field, &term)).unwrap_or(0));
            }
        }
        most
    }

    /// Spellings the corpus holds of those of `words` (a query's content
    /// words) that occur nowhere in it (see `variants`), for at most
    /// `MAX_RESPELLED_WORDS` such words, each with at most `MAX_VARIANTS`, most
    /// passages first. A variant is looked for only under the analyzers
    /// whose passages hold another of the words (the language the query is
    /// asked in: an English "whales" is no spelling of German "Wale"), or
    /// under every analyzer when the word is the only one. A stop word of any
    /// analyzer is no content word ("there" is not a spelling of "three").
    pub(crate) fn spelling_variants(&self, words: &[String]) -> Vec<SpellingVariant> {
        let searcher = self.passages.reader.searcher();
        let fields: Vec<(&'static str, Field)> =
            self.passages.fields.text.iter().map(|(name, field)| (*name, *field)).collect();
        // Per word: None for a stop word, else per field whether its passages hold the word.
        let held: Vec<Option<Vec<bool>>> = words
            .iter()
            .map(|word| {
                let per_field: Vec<Vec<(usize, String)>> =
                    fields.iter().map(|(name, _)| query::analyze(name, word)).collect();
                if per_field.iter().any(Vec::is_empty) {
                    return None;
                }
                let holds = |(field, terms): (Field, &Vec<(usize, String)>)| {
                    terms.iter().any(|(_, t)| doc_freq(&searcher, field, t) > 0)
                };
                Some(fields.iter().map(|(_, f)| *f).zip(&per_field).map(holds).collect())
            })
            .collect();
        let absent = held.iter().enumerate().filter(|(_, h)| h.as_ref().is_some_and(|h| !h.contains(&true)));
        let mut out = Vec::new();
        for (w, _) in absent.take(MAX_RESPELLED_WORDS) {
            let others: Vec<&Vec<bool>> =
                held.iter().enumerate().filter(|(o, _)| *o != w).filter_map(|(_, h)| h.as_ref()).collect();
            let searched: Vec<(&'static str, Field)> = fields
                .iter()
                .enumerate()
                .filter(|(f, _)| others.is_empty() || others.iter().any(|h| h[*f]))
                .map(|(_, field)| *field)
                .collect();
            out.extend(variants_of(&searcher, &words[w], &searched));
        }
        out
    }
}

/// The spelling variants of one absent word under these analyzers' fields,
/// at most `MAX_VARIANTS`, most passages first.
fn variants_of(searcher: &Searcher, word: &str, fields: &[(&'static str, Field)]) -> Vec<SpellingVariant> {
    let mut found: Vec<SpellingVariant> = Vec::new();
    let mut add = |analyzer: &'static str, spelling: String, term: String, passages: u64| {
        if !found.iter().any(|v| v.analyzer == analyzer && v.term == term) {
            found.push(SpellingVariant { asked: word.to_owned(), found: spelling, analyzer, term, passages });
        }
    };
    for spelling in variants::orthographic(word) {
        for (name, field) in fields {
            for (_, term) in query::analyze(name, &spelling) {
                let passages = doc_freq(searcher, *field, &term);
                if passages > 0 {
                    add(name, spelling.clone(), term, passages);
                }
            }
        }
    }
    for (name, field) in fields {
        for (_, stem) in query::analyze(name, word) {
            for (term, passages) in variants::stem_neighbours(searcher, *field, &stem) {
                add(name, term.clone(), term, passages);
            }
        }
    }
    found.sort_by(|a, b| b.passages.cmp(&a.passages).then_with(|| (a.analyzer, &a.term).cmp(&(b.analyzer, &b.term))));
    found.truncate(MAX_VARIANTS);
    found
}

/// How many passages of `field` hold `term` (0 when the lookup fails).
fn doc_freq(searcher: &Searcher, field: Field, term: &str) -> u64 {
    searcher.doc_freq(&tantivy::Term::from_field_text(field, term)).unwrap_or(0)
}

/// Absent query words whose spelling variants are looked up (each costs a
/// few hundred dictionary lookups; a long query's many absent words are mostly
/// not misspellings).
const MAX_RESPELLED_WORDS: usize = 8;

/// Spelling variants searched per absent word: enough for a word's regional
/// and historical spellings, few enough that a guess cannot swamp the query.
const MAX_VARIANTS: usize = 3;

/// Each feedback document's score, analyzer and stored term counts.
fn read_counts(
    searcher: &Searcher,
    fields: &LexicalFields,
    best: &[(f32, tantivy::DocAddress)],
) -> Result<Vec<(f32, &'static str, String)>> {
    let (Some(analyzer_field), Some(terms_field)) = (fields.analyzer, fields.terms) else { return Ok(Vec::new()) };
    let mut out = Vec::with_capacity(best.len());
    for (score, address) in best {
        let doc: TantivyDocument = searcher.doc(*address)?;
        let analyzer = doc.get_first(analyzer_field).and_then(|v| v.as_str()).map_or(analyzers::PLAIN, analyzer_name);
        let counts = doc.get_first(terms_field).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        out.push((*score, analyzer, counts));
    }
    Ok(out)
}

/// A tantivy error as a sentence: its `Display` of an unreadable file is the
/// `Debug` form of the I/O error, which is not for people.
fn plain(error: &tantivy::TantivyError) -> String {
    use tantivy::directory::error::OpenReadError;
    match error {
        tantivy::TantivyError::OpenReadError(OpenReadError::IoError { io_error, filepath }) => {
            format!("{}: {io_error}", filepath.display())
        }
        tantivy::TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(path)) => {
            format!("{} is missing", path.display())
        }
        tantivy::TantivyError::IoError(io_error) => io_error.to_string(),
        other => other.to_string(),
    }
}
