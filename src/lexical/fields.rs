//! The tantivy schema: one text and one title field per analyzer, plus
//! untokenized fields for filtering. The passage index and the document index
//! (one tantivy document per corpus document, for the feedback lane) share it.

use std::collections::BTreeMap;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use super::analyzers::{ANALYZED_LANGUAGES, PLAIN};

#[derive(Debug, Clone)]
pub(crate) struct LexicalFields {
    /// The passage's number (`PassageNo`): a fast field, so a hit's number is
    /// read from a column rather than from the stored document. In the document
    /// index it holds every passage number of the document.
    pub(crate) no: Field,
    pub(crate) document_id: Field,
    pub(crate) work: Field,
    pub(crate) language: Field,
    pub(crate) year: Field,
    /// analyzer name → passage text field
    pub(crate) text: BTreeMap<&'static str, Field>,
    /// analyzer name → document title field
    pub(crate) title: BTreeMap<&'static str, Field>,
    /// Document index only (stored, not searched): the analyzer of the
    /// document and its term counts (`feedback::TermCounts`), read for the
    /// feedback documents of a query. Absent from generations built before it.
    pub(crate) analyzer: Option<Field>,
    pub(crate) terms: Option<Field>,
    /// analyzer name → the passage index's common-word pairs (`common_words`);
    /// empty in generations built before them.
    pub(crate) pairs: BTreeMap<&'static str, Field>,
}

/// The name of the passage-number field (fast-field columns are read by name).
pub(crate) const NO_FIELD: &str = "no";
const ANALYZER_FIELD: &str = "analyzer";
const TERMS_FIELD: &str = "terms";

fn pairs_field(analyzer: &str) -> String {
    format!("pairs_{analyzer}")
}

fn analyzers() -> impl Iterator<Item = &'static str> {
    ANALYZED_LANGUAGES.iter().copied().chain(std::iter::once(PLAIN))
}

pub(crate) fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_u64_field(NO_FIELD, INDEXED | FAST);
    builder.add_text_field("document_id", STRING);
    builder.add_text_field("work", STRING);
    builder.add_text_field("language", STRING);
    builder.add_i64_field("year", INDEXED);
    for name in analyzers() {
        let indexing =
            TextFieldIndexing::default().set_tokenizer(name).set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let options = TextOptions::default().set_indexing_options(indexing);
        builder.add_text_field(&format!("text_{name}"), options.clone());
        builder.add_text_field(&format!("title_{name}"), options);
    }
    // Last, so every earlier field keeps the number it has in older generations.
    builder.add_text_field(ANALYZER_FIELD, STORED);
    builder.add_text_field(TERMS_FIELD, STORED);
    // Pre-tokenized by the writer (the tokenizer named is never run); the
    // phrase's score uses the text field's norms, so these need none.
    for name in analyzers() {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(PLAIN)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions)
            .set_fieldnorms(false);
        builder.add_text_field(&pairs_field(name), TextOptions::default().set_indexing_options(indexing));
    }
    builder.build()
}

impl LexicalFields {
    pub(crate) fn from_schema(schema: &Schema) -> Option<Self> {
        let field = |name: &str| schema.get_field(name).ok();
        let mut text = BTreeMap::new();
        let mut title = BTreeMap::new();
        for name in analyzers() {
            text.insert(name, field(&format!("text_{name}"))?);
            title.insert(name, field(&format!("title_{name}"))?);
        }
        Some(Self {
            no: field(NO_FIELD)?,
            document_id: field("document_id")?,
            work: field("work")?,
            language: field("language")?,
            year: field("year")?,
            text,
            title,
            analyzer: field(ANALYZER_FIELD),
            terms: field(TERMS_FIELD),
            pairs: analyzers().filter_map(|name| Some((name, field(&pairs_field(name))?))).collect(),
        })
    }
}
