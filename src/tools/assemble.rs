//! Evidence assembly: turns found passages into evidence items and a tool's
//! draft into a finished call — coverage, provenance summary, the warnings
//! that follow from them, the signals and the verdict. Every tool ends here,
//! so these facts are computed one way; `Finished::into_envelope` is the one
//! step to the wire.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::evidence::{Item, NotEvidence, Share, Why};
use super::support::{CorpusTerms, Support, assess, key_terms};
use crate::fusion::{FusionMethod, WeightedLane, fuse};
use crate::lane::{KnownTerms, Lane, LaneHits, SpellingVariant};
use crate::passage::PassageNo;
use crate::query_words::content_words;
use crate::search::Reader;
use crate::search::{QueryTerms, QueryWord, SearchHit, passage_terms};
use crate::store::{PassageRow, SourceRow};
use crate::surface::ToolError;
use crate::surface::envelope::*;
use crate::surface::{EvidenceState, Operation, Signals, decide};
use crate::surface::{Warning, WarningCode};

pub(crate) const TRACE_COMPLETE: &str = "COMPLETE";
pub(crate) const TRACE_INCOMPLETE: &str = "SOURCE_TRACE_INCOMPLETE";

/// What a tool hands over to be finished: the sections it filled, its
/// evidence, what the evidence is asked to hold, and its own facts.
pub(crate) struct Draft {
    pub(crate) operation: Operation,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) resolution: Resolution,
    pub(crate) retrieval: Retrieval,
    pub(crate) evidence: Vec<Item>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) asked: Asked,
    pub(crate) facts: Facts,
}

impl Draft {
    pub(crate) fn new(operation: Operation, arguments: Map<String, Value>) -> Self {
        Self {
            operation,
            arguments,
            resolution: Resolution::default(),
            retrieval: Retrieval::default(),
            evidence: Vec::new(),
            warnings: Vec::new(),
            asked: Asked::default(),
            facts: Facts::None,
        }
    }
}

/// What the evidence is asked to hold, for coverage and support.
#[derive(Default)]
pub(crate) struct Asked {
    /// The query as the search analysed it, whose content words coverage checks
    /// (none for lookups and concept tools).
    pub(crate) query: Option<QueryTerms>,
    /// Entities the evidence should mention.
    pub(crate) entities: Vec<String>,
    /// Concept arguments that named several entities, so nothing was searched.
    pub(crate) undecided: u32,
}

/// What one tool adds to coverage and provenance.
pub(crate) enum Facts {
    None,
    /// trace_concept: the periods it spans (for gaps) and its groups.
    Trace {
        periods: Vec<String>,
        groups: Vec<PeriodGroup>,
    },
    /// compare_concepts: each side's coverage.
    Compare(Vec<SideCoverage>),
    /// terminology_lookup: the mappings found and the reviewed ones among them.
    Terminology {
        mappings: u32,
        reviewed: u32,
    },
    /// get_context: the window and whether it reached the document's edges.
    Context(ContextWindow),
    /// trace_source: the passage's provenance chain (boxed: the largest by far).
    Source(Box<ProvenanceChain>),
}

impl Facts {
    /// The periods the operation spans, for gaps.
    fn periods(&self) -> &[String] {
        match self {
            Facts::Trace { periods, .. } => periods,
            _ => &[],
        }
    }

    /// The mappings found and the reviewed ones among them.
    fn mappings(&self) -> (u32, u32) {
        match self {
            Facts::Terminology { mappings, reviewed } => (*mappings, *reviewed),
            _ => (0, 0),
        }
    }

    /// Moves the tool's own sections into coverage and provenance.
    fn place(self, coverage: &mut Coverage, provenance: &mut ProvenanceSummary) {
        match self {
            Facts::Trace { groups, .. } => coverage.groups = groups,
            Facts::Compare(sides) => coverage.sides = sides,
            Facts::Context(window) => coverage.context_window = Some(window),
            Facts::Source(chain) => provenance.chain = Some(*chain),
            Facts::None | Facts::Terminology { .. } => {}
        }
    }
}

/// A finished call, before the wire: the envelope's sections with the
/// evidence still typed, and the verdict. `into_envelope` makes the wire form.
pub(crate) struct Finished {
    arguments: Map<String, Value>,
    resolution: Resolution,
    retrieval: Retrieval,
    pub(crate) evidence: Vec<Item>,
    coverage: Coverage,
    provenance: ProvenanceSummary,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) verdict: EvidenceState,
    /// No item supports the query: every item goes as a snippet.
    snippets_only: bool,
}

impl Finished {
    /// The envelope as it goes on the wire, answered by `tool` (called as
    /// `original_tool`, a deprecated name); `snippets` cuts every item's text.
    pub(crate) fn into_envelope(self, tool: &str, original_tool: Option<&str>, snippets: bool) -> Envelope {
        let snippets = snippets || self.snippets_only;
        Envelope {
            request: RequestSection {
                tool: tool.to_owned(),
                original_tool: original_tool.map(str::to_owned),
                arguments: self.arguments,
            },
            resolution: self.resolution,
            retrieval: self.retrieval,
            evidence: self.evidence.into_iter().map(|item| item.into_wire(snippets)).collect(),
            coverage: self.coverage,
            provenance: self.provenance,
            warnings: self.warnings,
            evidence_state: self.verdict,
        }
    }
}

/// The provenance of one passage, as an evidence item shows it. It traces
/// completely when its source file is hashed (its byte and line span are
/// always known) and, where the corpus declares witnesses, it names one.
pub(crate) fn item_provenance(
    passage: &PassageRow,
    source: Option<&SourceRow>,
    declares_witnesses: bool,
) -> ItemProvenance {
    let hashed = source.is_some_and(|s| !s.sha256.is_empty() && !s.path.is_empty());
    let complete = hashed && (passage.witness.is_some() || !declares_witnesses);
    ItemProvenance {
        witness: passage.witness.clone(),
        source: passage.source.clone(),
        source_sha256: source.map(|s| s.sha256.clone()).unwrap_or_default(),
        trace_status: if complete { TRACE_COMPLETE } else { TRACE_INCOMPLETE }.to_owned(),
        pages: passage.pages.as_ref().map(pages),
        citation: passage.pages.as_ref().map(|span| {
            let authors = source.map(authors).unwrap_or_default();
            crate::citation::cite(&authors, passage.year, passage.title.as_deref(), span)
        }),
    }
}

/// A passage's pages as the envelope shows them.
pub(crate) fn pages(span: &crate::passage::PageSpan) -> Pages {
    Pages {
        page_start: span.start,
        page_end: span.end,
        label_start: span.label_start.clone(),
        label_end: span.label_end.clone(),
    }
}

/// A document's authors: the list a PDF's metadata gives, else its `author` field.
fn authors(source: &SourceRow) -> Vec<String> {
    match source.metadata.get("authors").and_then(|v| v.as_array()) {
        Some(list) => list.iter().filter_map(|a| a.as_str().map(str::to_owned)).collect(),
        None => source.author.iter().flat_map(|a| a.split("; ")).map(str::to_owned).collect(),
    }
}

/// How an item was found.
pub(crate) enum Found<'a> {
    /// By one or more lanes, with the fused score and each lane's share of it.
    Ranked {
        score: f64,
        ranks: &'a [(Lane, u32)],
        contributions: &'a [(Lane, f64)],
        weights: &'a [(Lane, f64)],
        explain: bool,
    },
    /// Named by the caller (lookups), and why in words.
    Requested(&'a str),
}

/// Builds evidence items, reading each document's source once.
pub(crate) struct ItemBuilder<'a> {
    index: &'a Reader,
    sources: HashMap<String, Option<SourceRow>>,
}

impl<'a> ItemBuilder<'a> {
    pub(crate) fn new(index: &'a Reader) -> Self {
        Self { index, sources: HashMap::new() }
    }

    /// Reads the sources of these passages' documents in one query, so the
    /// items built from them read none of their own.
    fn read_sources<'p>(&mut self, documents: impl Iterator<Item = &'p str>) -> Result<(), ToolError> {
        let missing: BTreeSet<&str> = documents.filter(|d| !self.sources.contains_key(*d)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut found = self.index.sources_of(&missing.iter().copied().collect::<Vec<_>>())?;
        for document in missing {
            self.sources.insert(document.to_owned(), found.remove(document));
        }
        Ok(())
    }

    pub(crate) fn source(&mut self, document: &str) -> Result<Option<SourceRow>, ToolError> {
        if let Some(s) = self.sources.get(document) {
            return Ok(s.clone());
        }
        let s = self.index.source_of(document)?;
        self.sources.insert(document.to_owned(), s.clone());
        Ok(s)
    }

    /// An item for a passage named by the caller or a single lane; its entity
    /// links are read here.
    pub(crate) fn item(&mut self, passage: PassageRow, found: Found<'_>) -> Result<Item, ToolError> {
        let entities = self
            .index
            .entity_links(std::slice::from_ref(&passage.passage_id))?
            .remove(&passage.passage_id)
            .unwrap_or_default()
            .into_iter()
            .map(|(e, _)| e)
            .collect();
        self.item_linked(passage, found, entities)
    }

    /// Items for several passages, their entity links read in one query.
    pub(crate) fn items(&mut self, found: Vec<(PassageRow, Found<'_>)>) -> Result<Vec<Item>, ToolError> {
        let ids: Vec<String> = found.iter().map(|(p, _)| p.passage_id.clone()).collect();
        let mut links = self.index.entity_links(&ids)?;
        self.read_sources(found.iter().map(|(p, _)| p.document_id.as_str()))?;
        found
            .into_iter()
            .map(|(passage, how)| {
                let entities = links.remove(&passage.passage_id).unwrap_or_default().into_iter().map(|(e, _)| e);
                self.item_linked(passage, how, entities.collect())
            })
            .collect()
    }

    /// An item whose entity links are already known (search hits carry them).
    fn item_linked(&mut self, passage: PassageRow, found: Found<'_>, entities: Vec<String>) -> Result<Item, ToolError> {
        let source = self.source(&passage.document_id)?;
        let provenance = item_provenance(&passage, source.as_ref(), self.index.declares_witnesses);
        let mut item = match found {
            Found::Requested(why) => Item::new(passage, provenance, Why::Requested(why.to_owned())),
            Found::Ranked { score, ranks, contributions, weights, explain } => {
                let mut item = Item::new(passage, provenance, Why::Ranked);
                item.ranks = ranks.to_vec();
                item.score = score;
                item.explanation = explain.then(|| {
                    ranks
                        .iter()
                        .map(|&(lane, rank)| Share {
                            lane,
                            rank,
                            weight: weights.iter().find(|(l, _)| *l == lane).map_or(1.0, |(_, w)| *w),
                            contribution: contributions.iter().find(|(l, _)| *l == lane).map_or(0.0, |(_, c)| *c),
                        })
                        .collect()
                });
                item
            }
        };
        item.entities = entities;
        Ok(item)
    }

    /// Items for search hits, in rank order.
    pub(crate) fn hits(
        &mut self,
        hits: Vec<SearchHit>,
        weights: &[(Lane, f64)],
        explain: bool,
    ) -> Result<Vec<Item>, ToolError> {
        let _stage = crate::stage::enter("assemble");
        self.read_sources(hits.iter().map(|h| h.passage.document_id.as_str()))?;
        hits.into_iter()
            .map(
                |SearchHit {
                     score,
                     fused_rank,
                     component_ranks,
                     contributions,
                     passage,
                     highlights,
                     tokens,
                     entities,
                     ..
                 }| {
                    let found = Found::Ranked {
                        score,
                        ranks: &component_ranks,
                        contributions: &contributions,
                        weights,
                        explain,
                    };
                    let mut item = self.item_linked(passage, found, entities)?;
                    item.highlights = highlights;
                    item.tokens = Some(tokens);
                    item.fused_rank = fused_rank;
                    Ok(item)
                },
            )
            .collect()
    }

    /// Items for one lane's own ranking, when there is no other lane to fuse
    /// with: the fusion core still scores it, so scores and each lane's share
    /// come from one place (never re-derived here).
    pub(crate) fn ranked_lane(&mut self, hits: &LaneHits, top_k: usize) -> Result<Vec<Item>, ToolError> {
        let fused = fuse(FusionMethod::default(), &[WeightedLane { hits, weight: 1.0 }], top_k);
        let weights = [(hits.lane, 1.0)];
        let numbers: Vec<PassageNo> = fused.iter().map(|hit| hit.key).collect();
        let mut rows = self.index.passages(&numbers)?;
        let mut found = Vec::with_capacity(fused.len());
        for hit in &fused {
            // The lanes and the store come from one generation, so every number resolves.
            let Some(passage) = rows.remove(&hit.key) else { continue };
            let how = Found::Ranked {
                score: hit.score,
                ranks: &hit.component_ranks,
                contributions: &hit.contributions,
                weights: &weights,
                explain: false,
            };
            found.push((passage, how));
        }
        self.items(found)
    }

    /// `before` and `after` passages of the same document around `item`.
    pub(crate) fn context(&self, item: &Item, before: u32, after: u32) -> Result<ItemContext, ToolError> {
        let (document, ordinal) = (&item.passage.document_id, item.passage.ordinal);
        let rows = self.index.passages_in_range(document, ordinal.saturating_sub(before), ordinal + after)?;
        let to_out = |p: &PassageRow| ContextPassage {
            passage_id: p.passage_id.clone(),
            ordinal: p.ordinal,
            text: p.text.clone(),
        };
        Ok(ItemContext {
            before: rows.iter().filter(|p| p.ordinal < ordinal).map(to_out).collect(),
            after: rows.iter().filter(|p| p.ordinal > ordinal).map(to_out).collect(),
        })
    }
}

/// The query's content words that count, and for each item which of them it
/// holds. A word counts if no evidence language's analyzer drops it; matching
/// uses each item's own analyzer (stemmed), as the lexical lane does, and a
/// word's spelling variants count as the word.
pub(crate) fn term_matches<'q>(query: &'q QueryTerms, items: &[Item]) -> (Vec<&'q QueryWord>, Vec<Vec<bool>>) {
    let languages: BTreeSet<&str> = items.iter().map(|i| i.passage.language.as_str()).collect();
    let languages: Vec<&str> = if languages.is_empty() { vec!["en"] } else { languages.into_iter().collect() };
    let words: Vec<&QueryWord> =
        query.words.iter().filter(|w| !languages.iter().any(|language| w.dropped_in(language))).collect();
    // What the search found of each item's terms; a term it did not ask about
    // (or an item it did not return) takes one analyzer pass over the item, not one per word.
    let matches = items
        .iter()
        .map(|item| {
            let mut analysed: Option<KnownTerms> = None;
            let mut holds = |term: &str| match item.tokens.as_ref().and_then(|known| known.holds(term)) {
                Some(held) => held,
                None => analysed
                    .get_or_insert_with(|| passage_terms(&item.passage.text, &item.passage.language))
                    .holds(term)
                    .unwrap_or(false),
            };
            words.iter().map(|word| word.terms_in(&item.passage.language).any(&mut holds)).collect()
        })
        .collect();
    (words, matches)
}

/// A word the corpus lacks that is a word of the alias a resolved concept
/// matched ("heredity" naming the concept whose passages say "inheritance"):
/// the corpus holds it as that concept, so every item linked to the concept
/// holds it, and it counts as in the corpus (at the rarity of those items).
fn count_declared_synonyms(
    terms: &[String],
    frequencies: &mut [u64],
    matches: &mut [Vec<bool>],
    items: &[Item],
    resolved: &[EntityRef],
) {
    for (w, term) in terms.iter().enumerate() {
        if frequencies[w] > 0 {
            continue;
        }
        let named = resolved.iter().find(|e| {
            e.matched_alias.as_deref().is_some_and(|alias| content_words(alias).iter().any(|word| word == term))
        });
        let Some(entity) = named else { continue };
        let linked: Vec<usize> = (0..items.len()).filter(|&i| items[i].entities.contains(&entity.id)).collect();
        for &i in &linked {
            matches[i][w] = true;
        }
        frequencies[w] = linked.len() as u64;
    }
}

fn distinct<'a>(values: impl Iterator<Item = Option<&'a str>>) -> usize {
    values.flatten().collect::<BTreeSet<_>>().len()
}

/// Finishes a draft: coverage, provenance, derived warnings, signals, verdict.
pub(crate) fn finish(index: &Reader, draft: Draft) -> Finished {
    let _stage = crate::stage::enter("verdict");
    let Draft { operation, arguments, resolution, retrieval, mut evidence, mut warnings, asked, facts } = draft;
    let items = &evidence;
    let mut language_mix = BTreeMap::new();
    for item in items {
        *language_mix.entry(item.passage.language.clone()).or_insert(0) += 1;
    }
    let people = index.concepts().authorship();
    let (words, mut matches) = asked.query.as_ref().map(|q| term_matches(q, items)).unwrap_or_default();
    let terms: Vec<String> = words.iter().map(|w| w.word.clone()).collect();
    // Whether the corpus holds each word (or a spelling of it) and how rare it is, as the search counted.
    let mut frequencies: Vec<u64> = words.iter().map(|w| w.passages).collect();
    count_declared_synonyms(&terms, &mut frequencies, &mut matches, items, &resolution.entities);
    let support = match &asked.query {
        Some(query) => {
            let corpus = CorpusTerms {
                frequencies: &frequencies,
                passages: index.passage_count(),
                author_words: people.author_words(),
            };
            assess(&query.parsed, &terms, key_terms(&terms, &corpus), &matches, items, &asked.entities, people)
        }
        None => Support::without_query(items, &asked.entities, people),
    };
    let term_coverage: Vec<TermCoverage> = terms
        .into_iter()
        .zip(&frequencies)
        .enumerate()
        .map(|(i, (term, frequency))| TermCoverage {
            in_corpus: *frequency > 0,
            found_in: matches.iter().filter(|m| m[i]).count(),
            term,
        })
        .collect();
    let max_terms_in_one_item = matches.iter().map(|m| m.iter().filter(|x| **x).count()).max().unwrap_or(0);
    let entity_coverage: Vec<EntityCoverage> = asked
        .entities
        .iter()
        .map(|e| EntityCoverage {
            entity_id: e.clone(),
            found_in: items.iter().enumerate().filter(|(i, item)| support.covers(*i, item, e, people)).count(),
        })
        .collect();
    let periods_with: BTreeSet<&str> = items.iter().filter_map(|i| i.passage.period.as_deref()).collect();
    let periods_without_evidence: Vec<String> =
        facts.periods().iter().filter(|p| !periods_with.contains(p.as_str())).cloned().collect();
    let mut coverage = Coverage {
        evidence_n: items.len(),
        document_n: distinct(items.iter().map(|i| Some(i.passage.document_id.as_str()))),
        work_n: distinct(items.iter().map(|i| i.passage.work.as_deref())),
        period_n: periods_with.len(),
        periods_without_evidence,
        language_mix,
        term_coverage,
        max_terms_in_one_item,
        entity_coverage,
        multi_lane_n: items.iter().filter(|i| i.independent_lanes() >= 2).count(),
        ..Coverage::default()
    };

    let mut provenance = ProvenanceSummary::default();
    for item in items {
        *provenance.trace_status.entry(item.provenance.trace_status.clone()).or_insert(0) += 1;
        if let Some(w) = &item.provenance.witness {
            *provenance.witnesses.entry(w.clone()).or_insert(0) += 1;
        }
        *provenance.sources.entry(item.provenance.source.clone()).or_insert(0) += 1;
    }
    provenance.source_trace_incomplete_n = provenance.trace_status.get(TRACE_INCOMPLETE).copied().unwrap_or(0);
    let (periods_n, mappings) = (facts.periods().len(), facts.mappings());
    facts.place(&mut coverage, &mut provenance);

    let variants = asked.query.as_ref().map_or(&[][..], QueryTerms::variants);
    warnings.extend(spelling_warnings(variants, &coverage.term_coverage));
    if provenance.source_trace_incomplete_n > 0 {
        warnings.push(Warning::new(
            WarningCode::SourceTraceIncomplete,
            format!(
                "{} of {} evidence items lack a link of their provenance chain (witness or source hash)",
                provenance.source_trace_incomplete_n,
                items.len()
            ),
            "check trace_source before quoting them as a specific edition or witness",
        ));
    }
    for period in &coverage.periods_without_evidence {
        let label = index.period(period).map_or(period.as_str(), |p| p.label.as_str());
        warnings.push(Warning::new(
            WarningCode::NoEvidenceForPeriod,
            format!("no evidence in period {period} ({label})"),
            "treat the gap as absence in this corpus, not as proof of absence elsewhere",
        ));
    }
    if let Some(w) = &coverage.context_window {
        let mut edges = Vec::new();
        if w.reaches_document_start {
            edges.push(format!("starts {} passage(s) before it ({} asked for)", w.before_returned, w.before_requested));
        }
        if w.reaches_document_end {
            edges.push(format!("ends {} passage(s) after it ({} asked for)", w.after_returned, w.after_requested));
        }
        if !edges.is_empty() {
            warnings.push(Warning::new(
                WarningCode::DocumentBoundary,
                format!("the document {}", edges.join(" and ")),
                "nothing more exists on that side in this document; get_context never crosses documents",
            ));
        }
    }
    let evidence_op = matches!(operation, Operation::Search | Operation::Trace | Operation::Compare);
    // An undecided concept searched nothing: the collision warning says what to do instead.
    if evidence_op && items.is_empty() && asked.undecided == 0 {
        warnings.push(Warning::new(
            WarningCode::NoEvidence,
            "the request found no evidence",
            no_evidence_action(&arguments),
        ));
    }

    let counted = Counted {
        resolution: &resolution,
        lanes_run: retrieval.lanes.len(),
        periods: periods_n,
        mappings,
        undecided: asked.undecided,
    };
    let signals = signals(&counted, items, &coverage, &provenance, &support);
    let verdict = decide(operation, signals);
    for ((item, neighbour), namesake) in evidence.iter_mut().zip(&support.neighbour).zip(&support.namesake) {
        item.not_evidence = NotEvidence { neighbour: *neighbour, namesake: *namesake };
    }
    if signals.namesake_n > 0 {
        let people_asked: Vec<&str> =
            asked.entities.iter().filter(|e| !people.namesakes_of(e).is_empty()).map(String::as_str).collect();
        warnings.push(Warning::new(
            WarningCode::NamesakeMentions,
            format!(
                "{} of {} items mention another person whose name contains the name of {} and not that person \
                 (marked in why_retrieved); they are not counted as evidence",
                signals.namesake_n,
                signals.evidence_n,
                people_asked.join(", ")
            ),
            "if the other person is meant, ask with the full name or pass that entity id in `entities`",
        ));
    }
    // Nothing found supports the query: say so, and send the items as snippets.
    let snippets_only = evidence_op && signals.evidence_n > 0 && signals.supporting_n == 0;
    // When items about a namesake hold the words, NAMESAKE_MENTIONS says why they do not count.
    if snippets_only && signals.namesake_n == 0 {
        warnings.push(Warning::new(
            WarningCode::NeighboursOnly,
            format!(
                "none of the {} items holds a key term of the query, a requested entity or a quoted phrase \
                 ({} were found by meaning alone); they are cut to snippets",
                signals.evidence_n, signals.neighbours_n
            ),
            "treat the question as unanswered by this corpus, or rephrase it with words the corpus uses",
        ));
    }
    Finished { arguments, resolution, retrieval, evidence, coverage, provenance, warnings, verdict, snippets_only }
}

/// One SPELLING_VARIANT warning per asked word the corpus holds only in
/// another spelling: the asked and the found forms, and how many items hold one.
fn spelling_warnings(variants: &[SpellingVariant], terms: &[TermCoverage]) -> Vec<Warning> {
    let mut asked: Vec<&str> = variants.iter().map(|v| v.asked.as_str()).collect();
    asked.dedup();
    asked
        .into_iter()
        .map(|word| {
            let found: Vec<String> = variants
                .iter()
                .filter(|v| v.asked == word)
                .map(|v| format!("\"{}\" ({} passages)", v.found, v.passages))
                .collect();
            let items = terms.iter().find(|t| t.term == word).map_or(0, |t| t.found_in);
            Warning::new(
                WarningCode::SpellingVariant,
                format!(
                    "\"{word}\" occurs nowhere in the corpus; it was also searched as {}, which {items} evidence \
                     item(s) hold: coverage counts them as the word",
                    found.join(", ")
                ),
                "check that the spelling found means what was asked; quote the word to search it exactly as written",
            )
        })
        .collect()
}

/// What to try after finding nothing, naming only parameters this call has.
fn no_evidence_action(arguments: &Map<String, Value>) -> String {
    let set =
        |key: &str| arguments.get(key).is_some_and(|v| !(v.is_null() || v == "any" || v == &Value::Array(vec![])));
    let narrowing: Vec<String> =
        ["work", "period", "language", "entities"].iter().filter(|k| set(k)).map(|k| format!("`{k}`")).collect();
    if !narrowing.is_empty() {
        format!("widen or drop {}", narrowing.join(", "))
    } else if arguments.get("retrieval_mode").is_some_and(|m| m != "auto") {
        "set `retrieval_mode` to \"auto\", or rephrase the query".to_owned()
    } else if arguments.contains_key("query") {
        "rephrase the query with words the corpus uses, or check its names with resolve_entity".to_owned()
    } else {
        "check the concept with get_concept: its card counts the passages that mention it".to_owned()
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The facts of a call the signals count beside its evidence and coverage.
struct Counted<'a> {
    resolution: &'a Resolution,
    lanes_run: usize,
    periods: usize,
    mappings: (u32, u32),
    undecided: u32,
}

fn signals(
    call: &Counted<'_>,
    items: &[Item],
    coverage: &Coverage,
    provenance: &ProvenanceSummary,
    support: &Support,
) -> Signals {
    let terms_covered = coverage.term_coverage.iter().filter(|t| t.found_in > 0).count();
    let resolution = call.resolution;
    // Candidates of a collision that some item mentions unambiguously (its only reading of the term).
    let contested: BTreeSet<&str> = resolution
        .collisions
        .iter()
        .flat_map(|c| c.candidates.iter())
        .filter(|c| items.iter().any(|i| i.entities.contains(&c.id) && unambiguous_for(i, &c.id, resolution)))
        .map(|c| c.id.as_str())
        .collect();
    let evidence_n = coverage.evidence_n;
    Signals {
        evidence_n: count(evidence_n),
        document_n: count(coverage.document_n),
        work_n: count(coverage.work_n),
        period_n: count(coverage.period_n),
        terms_n: count(coverage.term_coverage.len()),
        terms_covered_n: count(terms_covered),
        terms_uncovered_n: count(coverage.term_coverage.len() - terms_covered),
        best_item_terms_n: count(coverage.max_terms_in_one_item),
        terms_in_corpus_n: count(coverage.term_coverage.iter().filter(|t| t.in_corpus).count()),
        terms_not_in_corpus_n: count(coverage.term_coverage.iter().filter(|t| !t.in_corpus).count()),
        entities_n: count(coverage.entity_coverage.len()),
        entities_covered_n: count(coverage.entity_coverage.iter().filter(|e| e.found_in > 0).count()),
        lanes_run_n: count(call.lanes_run),
        multi_lane_n: count(coverage.multi_lane_n),
        trace_complete_n: count(evidence_n - provenance.source_trace_incomplete_n),
        trace_incomplete_n: count(provenance.source_trace_incomplete_n),
        ambiguous_n: count(resolution.ambiguous.iter().filter(|a| support.names_key_term(&a.term)).count()),
        collision_n: count(resolution.collisions.len()),
        contested_with_evidence_n: count(contested.len()),
        resolved_n: count(resolution.entities.len()),
        periods_n: count(call.periods),
        periods_missing_n: count(coverage.periods_without_evidence.len()),
        sides_n: count(coverage.sides.len()),
        sides_empty_n: count(coverage.sides.iter().filter(|s| s.evidence_n == 0).count()),
        mappings_n: call.mappings.0,
        reviewed_mappings_n: call.mappings.1,
        undecided_n: call.undecided,
        key_terms_n: count(support.key_terms.len()),
        key_terms_absent_n: count(support.key_terms.iter().filter(|t| !t.in_corpus).count()),
        key_absent_permille: support.absent_permille,
        best_item_key_permille: support.best_permille,
        supporting_n: count(support.supporting.iter().filter(|s| **s).count()),
        neighbours_n: count(support.neighbour.iter().filter(|n| **n).count()),
        corroboration_n: support.corroboration,
        phrases_n: support.phrases,
        phrases_verbatim_n: support.phrases_verbatim,
        entities_all_covered_n: u32::from(support.entities_all_covered),
        namesake_n: count(support.namesake.iter().filter(|n| **n).count()),
        rarest_with_more_n: support.rarest_with_more,
    }
}

/// An item mentions `candidate` unambiguously when it does not also mention
/// every other candidate of the same collision (a shared alias links them all).
fn unambiguous_for(item: &Item, candidate: &str, resolution: &Resolution) -> bool {
    resolution.collisions.iter().any(|c| {
        c.candidates.iter().any(|x| x.id == candidate)
            && c.candidates.iter().any(|other| other.id != candidate && !item.entities.contains(&other.id))
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::tools::evidence::tests::item;

    #[test]
    fn a_hashed_source_traces_and_a_witness_is_needed_only_where_the_corpus_declares_witnesses() {
        let passage = PassageRow {
            no: PassageNo(0),
            passage_id: "p.r.0001".into(),
            document_id: "r".into(),
            ordinal: 1,
            text: "t".into(),
            language: "en".into(),
            byte_start: 0,
            byte_end: 1,
            line_start: 1,
            line_end: 1,
            title: None,
            work: None,
            section: None,
            year: None,
            witness: None,
            period: None,
            source: "corpus.jsonl".into(),
            pages: None,
        };
        let source = SourceRow {
            document_id: "r".into(),
            title: None,
            author: None,
            witness: None,
            date: None,
            year: None,
            source_line: 3,
            span_basis: "record".into(),
            metadata: BTreeMap::new(),
            path: "corpus.jsonl".into(),
            sha256: "ab".into(),
            bytes: 10,
            extraction: None,
        };
        // A JSONL record (no witness) in a corpus without witnesses traces completely.
        assert_eq!(item_provenance(&passage, Some(&source), false).trace_status, TRACE_COMPLETE);
        // Where the corpus declares witnesses, a passage without one does not.
        assert_eq!(item_provenance(&passage, Some(&source), true).trace_status, TRACE_INCOMPLETE);
        let witnessed = PassageRow { witness: Some("1859-en".into()), ..passage.clone() };
        assert_eq!(item_provenance(&witnessed, Some(&source), true).trace_status, TRACE_COMPLETE);
        // No hashed source: never complete.
        assert_eq!(item_provenance(&witnessed, None, true).trace_status, TRACE_INCOMPLETE);
        // A passage of a PDF shows its pages, and a citation from its document's authors and year.
        let span =
            crate::passage::PageSpan { start: 2, end: 2, label_start: Some("ii".into()), label_end: Some("ii".into()) };
        let paged = PassageRow { pages: Some(span), year: Some(2019), ..passage.clone() };
        let mut pdf = source.clone();
        pdf.metadata.insert("authors".into(), serde_json::json!(["Ada Fenwick", "Rui Okafor"]));
        let provenance = item_provenance(&paged, Some(&pdf), false);
        assert_eq!(provenance.citation.as_deref(), Some("Fenwick and Okafor 2019, p. ii"));
        assert_eq!(provenance.pages.map(|p| (p.page_start, p.page_end)), Some((2, 2)));
        assert_eq!(item_provenance(&passage, Some(&source), false).citation, None);
    }

    #[test]
    fn content_words_and_which_item_holds_them() {
        let items = [
            item("p.a.0001", "a", "Natural selection acts on varieties.", &[], &[]),
            item("p.b.0001", "b", "Selection by breeders.", &[], &[]),
        ];
        let query = QueryTerms::new("What does natural selection do to varieties?", |_| Vec::new(), |_| 0);
        let (words, matches) = term_matches(&query, &items);
        // Question words are not content words; stemmed forms match ("varieties" ~ "variety").
        assert_eq!(words.iter().map(|w| w.word.as_str()).collect::<Vec<_>>(), ["natural", "selection", "varieties"]);
        assert_eq!(matches[0], [true, true, true]);
        assert_eq!(matches[1], [false, true, false]);
    }

    fn coverage_of(items: &[Item]) -> Coverage {
        Coverage {
            evidence_n: items.len(),
            document_n: distinct(items.iter().map(|i| Some(i.passage.document_id.as_str()))),
            work_n: distinct(items.iter().map(|i| i.passage.work.as_deref())),
            multi_lane_n: items.iter().filter(|i| i.independent_lanes() >= 2).count(),
            ..Coverage::default()
        }
    }

    fn counted(resolution: &Resolution, lanes_run: usize) -> Counted<'_> {
        Counted { resolution, lanes_run, periods: 0, mappings: (0, 0), undecided: 0 }
    }

    #[test]
    fn signals_count_the_evidence() {
        use Lane::{Lexical, Vector};
        let items = vec![
            item("p.a.0001", "a.1", "x", &[(Lexical, 1), (Vector, 2)], &["concept.x"]),
            item("p.a.0002", "a.1", "x", &[(Lexical, 2)], &[]),
            item("p.b.0001", "b.1", "x", &[(Vector, 1)], &["concept.x"]),
        ];
        let mut coverage = coverage_of(&items);
        coverage.entity_coverage = vec![EntityCoverage { entity_id: "concept.x".into(), found_in: 2 }];
        let provenance = ProvenanceSummary { source_trace_incomplete_n: 1, ..ProvenanceSummary::default() };
        let resolution = Resolution::default();
        let s = signals(&counted(&resolution, 2), &items, &coverage, &provenance, &Support::default());
        assert_eq!((s.evidence_n, s.document_n, s.work_n), (3, 2, 2));
        assert_eq!((s.lanes_run_n, s.multi_lane_n), (2, 1));
        assert_eq!((s.trace_complete_n, s.trace_incomplete_n), (2, 1));
        assert_eq!((s.entities_n, s.entities_covered_n), (1, 1));
    }

    #[test]
    fn a_collision_is_contested_only_by_items_that_mention_one_reading() {
        let candidate = |id: &str| EntityRef {
            id: id.into(),
            name: id.into(),
            kind: "concept".into(),
            review_status: "reviewed".into(),
            how: None,
            matched_alias: None,
            context_mentions: None,
        };
        let resolution = Resolution {
            collisions: vec![Collision {
                term: "selection".into(),
                candidates: vec![candidate("c.natural"), candidate("c.methodical")],
            }],
            ..Resolution::default()
        };
        let contested = |items: &[Item]| {
            let coverage = coverage_of(items);
            signals(&counted(&resolution, 0), items, &coverage, &ProvenanceSummary::default(), &Support::default())
                .contested_with_evidence_n
        };
        // Both readings in one item: it decides nothing.
        let mut items = vec![item("p.a.0001", "a", "x", &[], &["c.natural", "c.methodical"])];
        assert_eq!(contested(&items), 0);
        // One item per reading: both readings have evidence of their own.
        items.push(item("p.b.0001", "b", "x", &[], &["c.natural"]));
        items.push(item("p.c.0001", "c", "x", &[], &["c.methodical"]));
        assert_eq!(contested(&items), 2);
    }
}
