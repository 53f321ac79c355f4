//! The corpus's documents a batch at a time, in corpus order (by file, then
//! position in the file), so a build holds one batch, not the corpus. Files
//! other than JSONL are read whole, several at once; a JSONL file is read a
//! record at a time and split across batches. Errors come in file order.

use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

use super::discover::FileKind;
use super::{Corpus, Document, FileNote, FileRead, SourceFile, jsonl, read_document_file};
use crate::error::{Error, FileLocation, Result};

/// Files read at once (in parallel) for one batch.
const BATCH_FILES: usize = 32;
/// A batch of JSONL records ends after this many documents…
const BATCH_DOCUMENTS: usize = 8_192;
/// …or this many bytes of their text, whichever comes first.
const BATCH_TEXT_BYTES: usize = 8 << 20;

/// One step of the stream.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// Source records of the files whose documents start here, in file order
    /// (a skipped file has none): they come before their documents.
    pub(crate) sources: Vec<SourceFile>,
    pub(crate) documents: Vec<Document>,
    /// Files skipped or read with a warning, in file order.
    pub(crate) notes: Vec<FileNote>,
    /// Bytes of the corpus's files read for this batch.
    pub(crate) bytes: u64,
}

pub(crate) struct Batches<'a> {
    corpus: &'a Corpus,
    next_file: usize,
    jsonl: Option<jsonl::Reader>,
    /// Where each document id was first defined: an id is unique in the corpus.
    seen: HashMap<String, FileLocation>,
    /// Bytes of text per language, for a corpus that declares no default.
    language_bytes: BTreeMap<String, usize>,
}

impl<'a> Batches<'a> {
    pub(super) fn new(corpus: &'a Corpus) -> Self {
        Self { corpus, next_file: 0, jsonl: None, seen: HashMap::new(), language_bytes: BTreeMap::new() }
    }

    /// The next batch; `None` once every file is read.
    pub(crate) fn next_batch(&mut self) -> Result<Option<Batch>> {
        let mut batch = Batch::default();
        if self.jsonl.is_none() {
            let Some(file) = self.corpus.files.get(self.next_file) else { return Ok(None) };
            if file.kind == FileKind::Jsonl {
                let (reader, source) = jsonl::Reader::open(&file.path, &file.relative, &self.corpus.config)?;
                self.next_file += 1;
                self.jsonl = Some(reader);
                batch.sources.push(source);
            } else {
                self.read_files(&mut batch)?;
            }
        }
        if let Some(reader) = &mut self.jsonl {
            let (before, mut text_bytes) = (reader.bytes, 0);
            let mut ended = false;
            while !ended && batch.documents.len() < BATCH_DOCUMENTS && text_bytes < BATCH_TEXT_BYTES {
                match reader.next_document(&self.corpus.config)? {
                    Some(document) => {
                        text_bytes += document.text.len();
                        batch.documents.push(document);
                    }
                    None => ended = true,
                }
            }
            batch.bytes += reader.bytes - before;
            if ended {
                self.jsonl = None;
            }
        }
        for document in &batch.documents {
            if let Some(first) = self.seen.get(&document.id) {
                return Err(Error::DuplicateDocumentId {
                    id: document.id.clone(),
                    first: first.clone(),
                    second: document.location.clone(),
                });
            }
            self.seen.insert(document.id.clone(), document.location.clone());
            *self.language_bytes.entry(document.language.clone()).or_default() += document.text.len();
        }
        Ok(Some(batch))
    }

    /// Reads the next run of whole files (up to the next JSONL file) into `batch`.
    fn read_files(&mut self, batch: &mut Batch) -> Result<()> {
        let rest = &self.corpus.files[self.next_file..];
        let run = rest.iter().take(BATCH_FILES).take_while(|f| f.kind != FileKind::Jsonl).count();
        let files = &rest[..run];
        self.next_file += run;
        // Every file of the run is read before an error is returned, so of two
        // bad files the first in file order is named, whichever a thread met first.
        let read: Vec<Result<FileRead>> = files
            .par_iter()
            .map(|file| read_document_file(file, &self.corpus.config, &self.corpus.bibliography))
            .collect();
        for read in read {
            let FileRead { source, documents, note } = read?;
            batch.bytes += source.bytes;
            let skipped = matches!(note, Some(FileNote::Skipped { .. }));
            batch.notes.extend(note);
            if !skipped {
                batch.sources.push(source);
                batch.documents.extend(documents);
            }
        }
        Ok(())
    }

    /// How many documents were read.
    pub(crate) fn documents(&self) -> usize {
        self.seen.len()
    }

    /// The language most of the text is in (by bytes), for a corpus without a declared default.
    pub(crate) fn majority_language(&self) -> String {
        let most = self.language_bytes.iter().max_by_key(|(_, n)| **n);
        most.map_or_else(|| "en".to_owned(), |(language, _)| language.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{LoadOptions, open};

    fn write(root: &std::path::Path, name: &str, text: &str) {
        std::fs::write(root.join(name), text).unwrap();
    }

    #[test]
    fn batches_keep_corpus_order_and_split_a_long_jsonl_file() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "corpus.toml", "name = \"x\"\n");
        write(root.path(), "a.md", "---\nid: a\n---\nAlpha text.\n");
        let records: String =
            (0..BATCH_DOCUMENTS + 5).map(|i| format!("{{\"id\": \"r{i}\", \"text\": \"t\"}}\n")).collect();
        write(root.path(), "b.jsonl", &records);
        write(root.path(), "c.md", "---\nid: c\n---\nGamma text.\n");
        let corpus = open(root.path(), LoadOptions::default()).unwrap();
        let mut batches = corpus.batches();
        let mut seen: Vec<(Vec<String>, usize)> = Vec::new();
        while let Some(batch) = batches.next_batch().unwrap() {
            seen.push((batch.sources.iter().map(|s| s.path.clone()).collect(), batch.documents.len()));
        }
        let expected = [
            (vec!["a.md".to_owned()], 1),
            (vec!["b.jsonl".to_owned()], BATCH_DOCUMENTS),
            (vec![], 5),
            (vec!["c.md".to_owned()], 1),
        ];
        assert_eq!(seen, expected);
        assert_eq!(batches.documents(), BATCH_DOCUMENTS + 7);
    }

    #[test]
    fn an_id_defined_twice_names_both_places_across_batches() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "corpus.toml", "name = \"x\"\n");
        write(root.path(), "a.jsonl", "{\"id\": \"same\", \"text\": \"t\"}\n");
        write(root.path(), "b.md", "---\nid: same\n---\nText.\n");
        let corpus = open(root.path(), LoadOptions::default()).unwrap();
        let mut batches = corpus.batches();
        let error = loop {
            match batches.next_batch() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the duplicate went unnoticed"),
                Err(error) => break error,
            }
        };
        assert!(matches!(error, Error::DuplicateDocumentId { ref id, .. } if id == "same"), "{error}");
        assert!(error.to_string().contains("a.jsonl:1"), "{error}");
    }
}
