//! Where a query's terms occur in a returned passage, read from the passage
//! index's postings and positions rather than by analysing the passage again.
//!
//! A search returns ten or so passages and needs, for each, which of the
//! query's terms it holds (coverage) and the byte ranges of those words
//! (snippets). Analysing every word of every returned passage costs about
//! 40 µs a passage (most of it stemming or a memo lookup per word); the index
//! already knows: a seek per query term finds whether the passage holds it,
//! and its positions are the indexes of the words in the text's tokenization,
//! so only the words up to the last match are tokenized (not stemmed).
//! `analyse_passage` stays the reference this must equal (tests).

use std::sync::Arc;
use tantivy::postings::Postings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, Searcher, TERMINATED, Term};

use super::analyzers::analyzer_name;
use super::fields::LexicalFields;
use super::highlight::{KnownTerms, analyse_passage};
use crate::passage::PassageNo;

/// What a passage holds of a query: the terms it contains among those asked
/// about, and the byte ranges of their words in its text (sorted).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Occurrences {
    pub(crate) known: KnownTerms,
    pub(crate) highlights: Vec<(usize, usize)>,
}

/// Of one passage found in the index: the asked terms it holds, and their positions.
type Found = (Vec<Arc<str>>, Vec<u32>);

/// A returned passage: its number, text and language.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Returned<'a> {
    pub(crate) no: PassageNo,
    pub(crate) text: &'a str,
    pub(crate) language: &'a str,
}

/// The occurrences in each of `passages` of the terms `terms_for` gives for
/// its analyzer (sorted analysed terms), in the order given; a passage the
/// index does not hold has its text analysed instead (`analyse_passage`). A
/// passage's text is indexed in its own language's field (`write_lexical`).
/// Each term's postings are read once per segment and walked in document
/// order across the passages.
pub(crate) fn occurrences<'t>(
    searcher: &Searcher,
    fields: &LexicalFields,
    passages: &[Returned<'_>],
    terms_for: impl Fn(&'static str) -> &'t [String],
) -> tantivy::Result<Vec<Occurrences>> {
    let mut found: Vec<Option<Found>> = vec![None; passages.len()];
    let mut buffer = Vec::new();
    for segment in searcher.segment_readers() {
        // (analyzer, document, passage index) of the passages in this segment, in document order.
        let numbers = segment.inverted_index(fields.no)?;
        let mut here: Vec<(&'static str, DocId, usize)> = Vec::new();
        for (i, passage) in passages.iter().enumerate() {
            if found[i].is_some() {
                continue;
            }
            let number = Term::from_field_u64(fields.no, u64::from(passage.no.0));
            let Some(postings) = numbers.read_postings(&number, IndexRecordOption::Basic)? else { continue };
            if postings.doc() != TERMINATED {
                here.push((analyzer_name(passage.language), postings.doc(), i));
                found[i] = Some((Vec::new(), Vec::new()));
            }
        }
        here.sort_unstable();
        for group in here.chunk_by(|a, b| a.0 == b.0) {
            let name = group[0].0;
            let Some(&field) = fields.text.get(name) else { continue };
            let inverted = segment.inverted_index(field)?;
            for term in terms_for(name) {
                let key = Term::from_field_text(field, term);
                let Some(mut postings) = inverted.read_postings(&key, IndexRecordOption::WithFreqsAndPositions)? else {
                    continue;
                };
                for &(_, doc, i) in group {
                    // Seeks only forward: the postings may already stand past this document.
                    let at = if postings.doc() < doc { postings.seek(doc) } else { postings.doc() };
                    if at == TERMINATED {
                        break;
                    }
                    if at == doc
                        && let Some((held, positions)) = &mut found[i]
                    {
                        held.push(term.as_str().into());
                        postings.positions(&mut buffer);
                        positions.extend_from_slice(&buffer);
                    }
                }
            }
        }
    }
    Ok(found
        .into_iter()
        .zip(passages)
        .map(|(found, passage)| {
            let asked = terms_for(analyzer_name(passage.language));
            match found {
                Some((held, mut positions)) => {
                    positions.sort_unstable();
                    positions.dedup();
                    Occurrences {
                        known: KnownTerms::among(asked, held),
                        highlights: ranges_at(passage.text, &positions),
                    }
                }
                None => {
                    let (highlights, tokens) = analyse_passage(passage.text, passage.language, asked);
                    Occurrences { known: KnownTerms::All(tokens), highlights }
                }
            }
        })
        .collect())
}

/// The byte ranges of the tokens at `positions` (sorted) in the analyzers'
/// tokenization of `text`; reads only up to the last of them.
fn ranges_at(text: &str, positions: &[u32]) -> Vec<(usize, usize)> {
    let mut wanted = positions.iter().map(|&p| p as usize).peekable();
    let mut ranges = Vec::with_capacity(positions.len());
    for (position, range) in words(text).enumerate() {
        let Some(&next) = wanted.peek() else { break };
        if position == next {
            ranges.push(range);
            wanted.next();
        }
    }
    ranges
}

/// The byte ranges of the words of `text` as the analyzers' tokenizer
/// (tantivy's `SimpleTokenizer`: maximal runs of alphanumeric characters)
/// finds them, without copying each word into a token as it does.
fn words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let start = chars.find(|(_, c)| c.is_alphanumeric())?.0;
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

#[cfg(test)]
mod tests {
    use super::super::analyzers::register;
    use super::super::fields::schema;
    use super::*;
    use tantivy::{Index, TantivyDocument};

    const PASSAGES: [(&str, &str); 4] = [
        ("en", "Natural Selection selects; the selection of slight variations, each profitable, is natural selection."),
        ("en", "The Struggle for Existence: a pneumonoultramicroscopicsilicovolcanoconiosisxx word, e-mail, 1859."),
        ("de", "Die natürliche Züchtung und der Kampf um’s Daseyn, Züchtungen der Thiere; ÜBER alle"),
        ("fr", "La sélection naturelle et les sélections des espèces"),
    ];

    /// The passage index as `write_lexical` lays it out (number, text in its language's field).
    fn index() -> (tempfile::TempDir, Searcher, LexicalFields) {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::create_in_dir(dir.path(), schema()).unwrap();
        register(&index);
        let fields = LexicalFields::from_schema(&index.schema()).unwrap();
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000).unwrap();
        for (no, (language, text)) in PASSAGES.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            doc.add_u64(fields.no, no as u64);
            doc.add_text(fields.text[analyzer_name(language)], text);
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        (dir, searcher, fields)
    }

    #[test]
    fn equal_what_analysing_the_passage_finds() {
        let (_dir, searcher, fields) = index();
        // Per analyzer: every other term of its passages, and one they lack.
        let mut asked: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
        for (language, text) in PASSAGES {
            let mut terms: Vec<String> = analyse_passage(text, language, &[]).1.iter().map(|t| t.to_string()).collect();
            terms.sort();
            let entry = asked.entry(analyzer_name(language)).or_default();
            entry.extend(terms.into_iter().step_by(2));
            entry.push("zzzabsent".into());
            entry.sort();
            entry.dedup();
        }
        // In an order that is not the index's, with a passage the index lacks.
        let mut returned: Vec<Returned<'_>> = PASSAGES
            .iter()
            .enumerate()
            .map(|(no, (language, text))| Returned { no: PassageNo(no as u32), text, language })
            .rev()
            .collect();
        returned.insert(1, Returned { no: PassageNo(99), text: "x", language: "en" });
        let found = occurrences(&searcher, &fields, &returned, |name| asked[name].as_slice()).unwrap();
        assert_eq!(found.len(), returned.len());
        let (highlights, tokens) = analyse_passage("x", "en", &asked["en"]);
        assert_eq!(found[1], Occurrences { known: KnownTerms::All(tokens), highlights }, "not indexed: analysed");
        for (passage, found) in returned.iter().zip(&found).filter(|(p, _)| p.no.0 != 99) {
            let terms = &asked[analyzer_name(passage.language)];
            let (highlights, all) = analyse_passage(passage.text, passage.language, terms);
            assert_eq!(found.highlights, highlights, "{}", passage.text);
            for term in terms {
                assert_eq!(found.known.holds(term), Some(all.contains(term.as_str())), "{term}");
            }
            assert_eq!(found.known.holds("not-asked"), None);
        }
    }

    #[test]
    fn words_are_the_tokenizers_tokens() {
        use tantivy::tokenizer::{SimpleTokenizer, TokenStream, Tokenizer};
        for text in [
            "",
            "  ",
            "Natural Selection selects; the the a 1859 e-mail naïve café",
            "Die natürliche Züchtung und der Kampf um’s Daseyn, ÜBER alle",
            "x",
            "ends in a word",
            "«Les espèces» — 42 ½ ٣ 漢字テスト",
        ] {
            let mut tokenizer = SimpleTokenizer::default();
            let mut stream = tokenizer.token_stream(text);
            let mut expected = Vec::new();
            while let Some(token) = stream.next() {
                expected.push((token.offset_from, token.offset_to));
            }
            assert_eq!(words(text).collect::<Vec<_>>(), expected, "{text}");
        }
    }

    #[test]
    fn ranges_are_the_tokens_at_the_positions() {
        let text = "Natural  selection, the selection of variations.";
        let words: Vec<&str> = ranges_at(text, &[1, 3]).iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(words, vec!["selection", "selection"]);
        assert!(ranges_at(text, &[]).is_empty());
        assert!(ranges_at(text, &[40]).is_empty());
    }
}
