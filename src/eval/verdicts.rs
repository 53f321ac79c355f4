//! `evident eval --verdicts`: how well `evidence_state` tracks support.
//!
//! Questions come with a label. *Answerable*: a collection's judged queries
//! against its own index (gold = its qrels). *Off-corpus*: another
//! collection's queries against this index (`--against`). A *question set*
//! (`--paraphrases`) is groups of phrasings of one question, each group
//! marked answerable or not, that should all get one state. Every question is
//! asked as an agent asks it: `search_passages` with only a query, through
//! the same dispatch the server runs.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::collection::Collection;
use super::run::build_collection_index;
use crate::error::{Error, IoContext, Result};
use crate::search::Reader;
use crate::surface::{MAX_RESPONSE_BUDGET, Signals, State};
use crate::tools::{prepare, run};

pub(crate) const ANSWERABLE: &str = "answerable";
pub(crate) const OFF_CORPUS: &str = "off_corpus";

/// One group of a question set: phrasings that must share one state.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QuestionGroup {
    pub(crate) id: String,
    pub(crate) answerable: bool,
    pub(crate) questions: Vec<String>,
}

/// One question asked, and what came back.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Asked {
    pub(crate) label: String,
    pub(crate) id: String,
    /// The question-set group the question belongs to.
    pub(crate) group: Option<String>,
    pub(crate) query: String,
    pub(crate) state: State,
    pub(crate) rule: String,
    /// Answerable questions with gold documents: whether the evidence holds one.
    pub(crate) gold_in_evidence: Option<bool>,
    /// The signals the state was decided from (to see why).
    pub(crate) signals: Signals,
}

/// The figures, from a list of asked questions and the question set's groups.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct VerdictReport {
    /// Label → state → questions.
    pub(crate) confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// Of answerable SUPPORTED answers with gold, those whose evidence holds a gold document.
    pub(crate) supported_precision: Option<f64>,
    /// Of answerable questions whose evidence holds a gold document, those SUPPORTED.
    pub(crate) supported_recall: Option<f64>,
    /// Off-corpus questions answered INSUFFICIENT_EVIDENCE.
    pub(crate) off_corpus_insufficient: Option<f64>,
    /// Question-set groups whose phrasings all got one state.
    pub(crate) paraphrase_agreement: Option<f64>,
    pub(crate) groups: usize,
    pub(crate) asked: Vec<Asked>,
}

/// What one question got back.
struct Answer {
    state: State,
    rule: String,
    documents: Vec<String>,
    signals: Signals,
}

/// Asks `query` as an agent would.
fn ask(index: &Reader, query: &str) -> Result<Answer> {
    let arguments = serde_json::json!({ "query": query });
    let failed = |e: crate::surface::ToolError| Error::InvalidArgument(format!("query `{query}`: {e}"));
    let prepared = prepare("search_passages", arguments.as_object()).map_err(failed)?;
    let answered = run(index, prepared, MAX_RESPONSE_BUDGET).map_err(failed)?;
    let (envelope, verdict) = (answered.content, answered.verdict);
    let (state, rule, signals) = (verdict.state, verdict.rule, verdict.signals);
    let documents = envelope["evidence"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["document"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    Ok(Answer { state, rule, documents, signals })
}

fn read_question_set(path: &Path) -> Result<Vec<QuestionGroup>> {
    let text = std::fs::read_to_string(path).at(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| Error::MalformedJsonl {
                location: crate::error::FileLocation::line(path, i + 1),
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Where the questions come from and which index answers them.
#[derive(Debug, Clone)]
pub(crate) struct VerdictOptions {
    /// A BEIR collection whose judged queries are answerable (its index is built or reused).
    pub(crate) collection: Option<PathBuf>,
    pub(crate) index: PathBuf,
    /// Collections whose queries are off-corpus for this index.
    pub(crate) against: Vec<PathBuf>,
    pub(crate) paraphrases: Option<PathBuf>,
    /// Ask only the first this many queries of each collection.
    pub(crate) limit: Option<usize>,
    pub(crate) models_dir: Option<PathBuf>,
    pub(crate) quiet: bool,
}

/// Asks every question and reports the figures.
pub(crate) fn evaluate(options: &VerdictOptions) -> Result<VerdictReport> {
    if let Some(collection) = &options.collection {
        build_collection_index(collection, &options.index, options.models_dir.clone(), None, None, options.quiet)?;
    }
    let index = Reader::open(&options.index, options.models_dir.as_deref())?;
    let questions = |dir: &Path| -> Result<Collection> {
        let mut collection = Collection::load(dir)?;
        if let Some(limit) = options.limit {
            collection.queries.truncate(limit);
        }
        Ok(collection)
    };
    let own = options.collection.as_deref().map(questions).transpose()?;
    let against = options.against.iter().map(|dir| questions(dir)).collect::<Result<Vec<_>>>()?;
    let groups = options.paraphrases.as_deref().map(read_question_set).transpose()?.unwrap_or_default();
    Ok(report(ask_all(&index, own.as_ref(), &against, &groups)?, groups.len()))
}

impl Asked {
    fn new(label: &str, id: String, query: &str, answer: Answer, gold_in_evidence: Option<bool>) -> Self {
        Self {
            label: label.to_owned(),
            id,
            group: None,
            query: query.to_owned(),
            state: answer.state,
            rule: answer.rule,
            gold_in_evidence,
            signals: answer.signals,
        }
    }
}

/// Asks every question: the collection's against its own index (answerable,
/// with gold), each `against` collection's (off-corpus), and the question set.
fn ask_all(
    index: &Reader,
    own: Option<&Collection>,
    against: &[Collection],
    groups: &[QuestionGroup],
) -> Result<Vec<Asked>> {
    let mut asked = Vec::new();
    for (id, query) in own.iter().flat_map(|c| &c.queries) {
        let answer = ask(index, query)?;
        let gold: HashSet<&String> = own
            .and_then(|c| c.qrels.get(id))
            .map(|judged| judged.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d).collect())
            .unwrap_or_default();
        let gold_in_evidence = (!gold.is_empty()).then(|| answer.documents.iter().any(|d| gold.contains(d)));
        asked.push(Asked::new(ANSWERABLE, id.clone(), query, answer, gold_in_evidence));
    }
    for collection in against {
        for (id, query) in &collection.queries {
            asked.push(Asked::new(OFF_CORPUS, format!("{}:{id}", collection.name), query, ask(index, query)?, None));
        }
    }
    for group in groups {
        let label = if group.answerable { "set_answerable" } else { "set_off_corpus" };
        for (n, query) in group.questions.iter().enumerate() {
            let id = format!("{}#{}", group.id, n + 1);
            let asked_one =
                Asked { group: Some(group.id.clone()), ..Asked::new(label, id, query, ask(index, query)?, None) };
            asked.push(asked_one);
        }
    }
    Ok(asked)
}

fn share(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

/// The figures of a run of `asked` questions, `groups` of them in the question set.
fn report(asked: Vec<Asked>, groups: usize) -> VerdictReport {
    let mut confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for a in &asked {
        *confusion.entry(a.label.clone()).or_default().entry(a.state.as_str().to_owned()).or_insert(0) += 1;
    }
    let with_gold: Vec<&Asked> = asked.iter().filter(|a| a.gold_in_evidence.is_some()).collect();
    let supported: Vec<&&Asked> = with_gold.iter().filter(|a| a.state == State::Supported).collect();
    let supported_correct = supported.iter().filter(|a| a.gold_in_evidence == Some(true)).count();
    let found: Vec<&&Asked> = with_gold.iter().filter(|a| a.gold_in_evidence == Some(true)).collect();
    let found_supported = found.iter().filter(|a| a.state == State::Supported).count();
    let off: Vec<&Asked> = asked.iter().filter(|a| a.label == OFF_CORPUS).collect();
    let off_insufficient = off.iter().filter(|a| a.state == State::InsufficientEvidence).count();
    let mut group_states: BTreeMap<&str, HashSet<&str>> = BTreeMap::new();
    for a in &asked {
        if let Some(group) = &a.group {
            group_states.entry(group).or_default().insert(a.state.as_str());
        }
    }
    let agreeing = group_states.values().filter(|states| states.len() == 1).count();
    VerdictReport {
        confusion,
        supported_precision: share(supported_correct, supported.len()),
        supported_recall: share(found_supported, found.len()),
        off_corpus_insufficient: share(off_insufficient, off.len()),
        paraphrase_agreement: share(agreeing, groups),
        groups,
        asked,
    }
}

impl VerdictReport {
    pub(crate) fn table(&self) -> String {
        let states: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        let mut out = format!("{:<18}", "label");
        for s in &states {
            out.push_str(&format!(" {:>24}", s));
        }
        out.push('\n');
        for (label, row) in &self.confusion {
            out.push_str(&format!("{label:<18}"));
            for s in &states {
                out.push_str(&format!(" {:>24}", row.get(*s).copied().unwrap_or(0)));
            }
            out.push('\n');
        }
        let figure = |name: &str, value: Option<f64>| match value {
            Some(v) => format!("{name:<32} {v:.3}\n"),
            None => format!("{name:<32} -\n"),
        };
        out.push_str(&figure("SUPPORTED precision", self.supported_precision));
        out.push_str(&figure("SUPPORTED recall", self.supported_recall));
        out.push_str(&figure("off-corpus INSUFFICIENT", self.off_corpus_insufficient));
        out.push_str(&figure(&format!("paraphrase agreement ({} groups)", self.groups), self.paraphrase_agreement));
        out
    }

    /// Each label's share of questions in `state`.
    pub(crate) fn shares(&self, state: State) -> Vec<(String, f64)> {
        let name = state.as_str();
        self.confusion
            .iter()
            .map(|(label, row)| {
                let total: usize = row.values().sum();
                (label.clone(), row.get(name).copied().unwrap_or(0) as f64 / total.max(1) as f64)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A question; ids `group#n` belong to a question-set group.
    fn asked(label: &str, id: &str, state: State, gold: Option<bool>) -> Asked {
        Asked {
            label: label.into(),
            id: id.into(),
            group: id.split_once('#').map(|(group, _)| group.to_owned()),
            query: String::new(),
            state,
            rule: String::new(),
            gold_in_evidence: gold,
            signals: Signals::default(),
        }
    }

    #[test]
    fn the_table_counts_states_per_label_and_the_figures_follow_their_definitions() {
        use State::*;
        let report = report(
            vec![
                asked(ANSWERABLE, "1", Supported, Some(true)),
                asked(ANSWERABLE, "2", Supported, Some(false)),
                asked(ANSWERABLE, "3", PartiallySupported, Some(true)),
                asked(ANSWERABLE, "4", InsufficientEvidence, Some(false)),
                asked(OFF_CORPUS, "x:1", InsufficientEvidence, None),
                asked(OFF_CORPUS, "x:2", PartiallySupported, None),
                asked("set_answerable", "eye#1", Supported, None),
                asked("set_answerable", "eye#2", Supported, None),
                asked("set_off_corpus", "dna#1", InsufficientEvidence, None),
                asked("set_off_corpus", "dna#2", PartiallySupported, None),
            ],
            2,
        );
        assert_eq!(report.confusion[ANSWERABLE]["SUPPORTED"], 2);
        assert_eq!(report.confusion[ANSWERABLE]["INSUFFICIENT_EVIDENCE"], 1);
        assert_eq!(report.confusion[OFF_CORPUS]["PARTIALLY_SUPPORTED"], 1);
        // 1 of 2 SUPPORTED answers holds gold; 1 of 2 answers holding gold is SUPPORTED.
        assert_eq!(report.supported_precision, Some(0.5));
        assert_eq!(report.supported_recall, Some(0.5));
        assert_eq!(report.off_corpus_insufficient, Some(0.5));
        assert_eq!(report.paraphrase_agreement, Some(0.5));
        assert!(report.table().contains("SUPPORTED precision"));
    }

    #[test]
    fn figures_without_questions_are_absent_not_zero() {
        let report = report(Vec::new(), 0);
        assert_eq!(report.supported_precision, None);
        assert_eq!(report.off_corpus_insufficient, None);
        assert_eq!(report.paraphrase_agreement, None);
    }
}
