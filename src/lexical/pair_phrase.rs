//! A phrase of common words answered from the pair field (`common_words`):
//! the pairs' short posting lists find the passages and count the matches,
//! and the score is the positional phrase's own — BM25 with the phrase
//! words' summed IDF, the text field's length norm and the match count — so
//! the results are the same as the `PhraseQuery` it replaces, faster.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25Weight, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, TantivyError, Term};

#[derive(Debug, Clone)]
pub(super) struct PairPhraseQuery {
    /// The phrase's terms in the text field, in order (they set the score).
    phrase: Vec<Term>,
    /// Its pair terms in the pair field, one position apart (they find the passages).
    pairs: Vec<Term>,
}

impl PairPhraseQuery {
    /// `phrase` holds at least two terms and `pairs` one fewer (`CommonWords::phrase_pairs`).
    pub(super) fn new(text: Field, phrase: &[(usize, String)], pair_field: Field, pairs: &[String]) -> Self {
        Self {
            phrase: phrase.iter().map(|(_, t)| Term::from_field_text(text, t)).collect(),
            pairs: pairs.iter().map(|p| Term::from_field_text(pair_field, p)).collect(),
        }
    }
}

impl Query for PairPhraseQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let (Some(first), Some(pair)) = (self.phrase.first(), self.pairs.first()) else {
            return Err(TantivyError::InvalidArgument("a pair phrase needs two words".into()));
        };
        // What `PhraseQuery` computes for the same terms.
        let similarity = match enable_scoring {
            EnableScoring::Enabled { statistics_provider, .. } => {
                Some(Bm25Weight::for_terms(statistics_provider, &self.phrase)?)
            }
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(PairPhraseWeight {
            text: first.field(),
            pair_field: pair.field(),
            pairs: self.pairs.clone(),
            similarity,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for term in &self.phrase {
            visitor(term, true);
        }
    }
}

struct PairPhraseWeight {
    text: Field,
    pair_field: Field,
    pairs: Vec<Term>,
    similarity: Option<Bm25Weight>,
}

impl Weight for PairPhraseWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let similarity = self.similarity.as_ref().map(|w| w.boost_by(boost));
        let norms = match similarity {
            Some(_) => reader.fieldnorms_readers().get_field(self.text)?,
            None => None,
        };
        let norms = norms.unwrap_or_else(|| FieldNormReader::constant(reader.max_doc(), 1));
        let index = reader.inverted_index(self.pair_field)?;
        // One pair: its term frequency is the match count, and no positions are read.
        let record =
            if self.pairs.len() == 1 { IndexRecordOption::WithFreqs } else { IndexRecordOption::WithFreqsAndPositions };
        let mut lists = Vec::with_capacity(self.pairs.len());
        for term in &self.pairs {
            match index.read_postings(term, record)? {
                Some(postings) => lists.push(postings),
                None => return Ok(Box::new(EmptyScorer)),
            }
        }
        Ok(Box::new(PairScorer::new(lists, similarity, norms)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!("document #{doc} does not match")));
        }
        Ok(Explanation::new("phrase of common words, from their pairs", scorer.score()))
    }
}

/// The pairs' postings, pair `i` one position after pair `i - 1`: their
/// conjunction, each document counted and scored as the phrase would be.
struct PairScorer {
    lists: Vec<SegmentPostings>,
    /// How often the pairs line up in the current document (the phrase's count).
    count: u32,
    similarity: Option<Bm25Weight>,
    norms: FieldNormReader,
    positions: Vec<Vec<u32>>,
}

impl PairScorer {
    fn new(lists: Vec<SegmentPostings>, similarity: Option<Bm25Weight>, norms: FieldNormReader) -> Self {
        let positions = vec![Vec::new(); lists.len()];
        let mut scorer = Self { lists, count: 0, similarity, norms, positions };
        let first = scorer.lists.iter().map(DocSet::doc).max().unwrap_or(TERMINATED);
        scorer.settle(first);
        scorer
    }

    /// Moves to the first document from `candidate` (not before any list's
    /// current one) that every list holds with the pairs lined up.
    fn settle(&mut self, mut candidate: DocId) -> DocId {
        loop {
            let mut aligned = false;
            while !aligned {
                aligned = true;
                for list in &mut self.lists {
                    let doc = list.seek(candidate);
                    if doc > candidate {
                        candidate = doc;
                        aligned = false;
                    }
                }
            }
            if candidate == TERMINATED {
                return TERMINATED;
            }
            self.count = self.lined_up();
            if self.count > 0 {
                return candidate;
            }
            candidate = self.lists.first_mut().map_or(TERMINATED, DocSet::advance);
        }
    }

    /// The positions where pair 0 starts and every pair `i` is `i` later.
    fn lined_up(&mut self) -> u32 {
        if let [only] = self.lists.as_slice() {
            return only.term_freq();
        }
        for (list, out) in self.lists.iter_mut().zip(&mut self.positions) {
            out.clear();
            list.positions(out);
        }
        let (first, rest) = self.positions.split_at(1);
        let starts = first.first().map_or(&[][..], Vec::as_slice);
        let holds = |p: u32| rest.iter().zip(1u32..).all(|(list, i)| list.binary_search(&(p + i)).is_ok());
        starts.iter().filter(|p| holds(**p)).count() as u32
    }
}

impl DocSet for PairScorer {
    fn advance(&mut self) -> DocId {
        let next = self.lists.first_mut().map_or(TERMINATED, DocSet::advance);
        self.settle(next)
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if target <= self.doc() {
            return self.doc();
        }
        self.settle(target)
    }

    fn doc(&self) -> DocId {
        self.lists.first().map_or(TERMINATED, DocSet::doc)
    }

    fn size_hint(&self) -> u32 {
        self.lists.iter().map(DocSet::size_hint).min().unwrap_or(0)
    }
}

impl Scorer for PairScorer {
    fn score(&mut self) -> Score {
        match &self.similarity {
            Some(weight) => weight.score(self.norms.fieldnorm_id(self.doc()), self.count),
            None => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::analyzers::register;
    use crate::lexical::common_words::{CommonWords, Sample};
    use crate::lexical::fields::{LexicalFields, schema};
    use crate::lexical::query::analyze;
    use proptest::prelude::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::PhraseQuery;
    use tantivy::{Index, TantivyDocument};

    /// Four words that stem to themselves, a stop word (it leaves a gap) and a
    /// word no phrase holds (it splits one).
    const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "the", "zircon"];

    fn text(words: &[usize]) -> String {
        words.iter().map(|w| WORDS[*w]).collect::<Vec<_>>().join(" ")
    }

    /// Every (document, score) of `query`, by document.
    fn hits(index: &Index, query: &dyn Query) -> Vec<(u32, f32)> {
        let searcher = index.reader().map(|r| r.searcher());
        let searcher = searcher.unwrap_or_else(|e| panic!("reader: {e}"));
        let top = searcher.search(query, &TopDocs::with_limit(1_000)).unwrap_or_else(|e| panic!("search: {e}"));
        let mut out: Vec<(u32, f32)> = top.into_iter().map(|(score, a)| (a.doc_id, score)).collect();
        out.sort_by_key(|(doc, _)| *doc);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The pair query finds the same passages with the same scores (to the
        /// bit) as the positional phrase, over passages where a word may repeat
        /// and a stop word or another word may split a pair.
        #[test]
        fn a_pair_phrase_matches_and_scores_as_the_positional_phrase(
            passages in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..24), 1..40),
            phrase in prop::collection::vec(0..4usize, 2..5),
        ) {
            let index = Index::create_in_ram(schema());
            register(&index);
            let fields = LexicalFields::from_schema(&index.schema()).unwrap_or_else(|| panic!("schema"));
            let (text_field, pair_field) = (fields.text["en"], fields.pairs["en"]);
            let mut sample = Sample::default();
            // Enough passages of the four words that each is common, the rare one not.
            let filler: Vec<String> = (0..200).map(|_| text(&[0, 1, 2, 3])).collect();
            let passages: Vec<String> = passages.iter().map(|p| text(p)).chain(filler).collect();
            for p in &passages {
                sample.add("en", p);
            }
            let common = CommonWords::choose(&sample);
            let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
                .unwrap_or_else(|e| panic!("writer: {e}"));
            for p in &passages {
                let mut doc = TantivyDocument::default();
                doc.add_text(text_field, p);
                if let Some(pairs) = common.pair_tokens("en", p) {
                    doc.add_pre_tokenized_text(pair_field, pairs);
                }
                writer.add_document(doc).unwrap_or_else(|e| panic!("add: {e}"));
            }
            writer.commit().unwrap_or_else(|e| panic!("commit: {e}"));

            let tokens = analyze("en", &text(&phrase));
            let pairs = common.phrase_pairs("en", &tokens);
            prop_assert!(pairs.is_some(), "four common words, no stop word: always pairs");
            let pairs = pairs.unwrap_or_default();
            let positional = PhraseQuery::new(tokens.iter().map(|(_, t)| Term::from_field_text(text_field, t)).collect());
            let paired = PairPhraseQuery::new(text_field, &tokens, pair_field, &pairs);
            let expected = hits(&index, &positional);
            prop_assert!(!expected.is_empty() || passages.iter().all(|p| !p.contains(&text(&phrase))));
            prop_assert_eq!(hits(&index, &paired), expected);
        }
    }
}
