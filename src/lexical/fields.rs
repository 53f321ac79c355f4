//! The tantivy schema: one text and one title field per analyzer, plus
//! untokenized fields for filtering.

use std::collections::BTreeMap;
use tantivy::schema::{Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions};

use super::analyzers::{ANALYZED_LANGUAGES, PLAIN};

#[derive(Debug, Clone)]
pub struct LexicalFields {
    pub passage_id: Field,
    pub document_id: Field,
    pub work: Field,
    pub language: Field,
    pub year: Field,
    /// analyzer name → passage text field
    pub text: BTreeMap<&'static str, Field>,
    /// analyzer name → document title field
    pub title: BTreeMap<&'static str, Field>,
}

fn analyzers() -> impl Iterator<Item = &'static str> {
    ANALYZED_LANGUAGES.iter().copied().chain(std::iter::once(PLAIN))
}

pub fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field("passage_id", STRING | STORED);
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
    builder.build()
}

impl LexicalFields {
    pub fn from_schema(schema: &Schema) -> Option<Self> {
        let field = |name: &str| schema.get_field(name).ok();
        let mut text = BTreeMap::new();
        let mut title = BTreeMap::new();
        for name in analyzers() {
            text.insert(name, field(&format!("text_{name}"))?);
            title.insert(name, field(&format!("title_{name}"))?);
        }
        Some(Self {
            passage_id: field("passage_id")?,
            document_id: field("document_id")?,
            work: field("work")?,
            language: field("language")?,
            year: field("year")?,
            text,
            title,
        })
    }
}
