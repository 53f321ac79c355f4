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
use std::path::Path;

use super::collection::Collection;
use crate::error::{Error, IoContext, Result};
use crate::surface::{MAX_RESPONSE_BUDGET, State};
use crate::tools::{OpenIndex, prepare, run};

pub const ANSWERABLE: &str = "answerable";
pub const OFF_CORPUS: &str = "off_corpus";

/// One group of a question set: phrasings that must share one state.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionGroup {
    pub id: String,
    pub answerable: bool,
    pub questions: Vec<String>,
}

/// One question asked, and what came back.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    pub label: String,
    pub id: String,
    pub query: String,
    pub state: State,
    pub rule: String,
    /// Answerable questions with gold documents: whether the evidence holds one.
    pub gold_in_evidence: Option<bool>,
    /// The signals the state was decided from (to see why).
    pub signals: serde_json::Value,
}

/// The figures, from a list of asked questions and the question set's groups.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictReport {
    /// Label → state → questions.
    pub confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// Of answerable SUPPORTED answers with gold, those whose evidence holds a gold document.
    pub supported_precision: Option<f64>,
    /// Of answerable questions whose evidence holds a gold document, those SUPPORTED.
    pub supported_recall: Option<f64>,
    /// Off-corpus questions answered INSUFFICIENT_EVIDENCE.
    pub off_corpus_insufficient: Option<f64>,
    /// Question-set groups whose phrasings all got one state.
    pub paraphrase_agreement: Option<f64>,
    pub groups: usize,
    pub asked: Vec<Asked>,
}

/// What one question got back.
pub struct Answer {
    pub state: State,
    pub rule: String,
    pub documents: Vec<String>,
    pub signals: serde_json::Value,
}

/// Asks `query` as an agent would.
pub fn ask(index: &OpenIndex, query: &str) -> Result<Answer> {
    let arguments = serde_json::json!({ "query": query });
    let failed = |e: crate::surface::ToolError| Error::InvalidArgument(format!("query `{query}`: {e}"));
    let prepared = prepare("search_passages", arguments.as_object()).map_err(failed)?;
    let envelope = run(index, prepared, MAX_RESPONSE_BUDGET).map_err(failed)?;
    let verdict = &envelope["evidence_state"];
    let state = State::ALL
        .iter()
        .copied()
        .find(|s| verdict["state"].as_str() == Some(state_name(*s).as_str()))
        .ok_or_else(|| Error::InvalidArgument(format!("unreadable state {}", verdict["state"])))?;
    let rule = verdict["rule"].as_str().unwrap_or_default().to_owned();
    let documents = envelope["evidence"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["document"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    Ok(Answer { state, rule, documents, signals: verdict["signals"].clone() })
}

/// A collection's judged queries, first `limit` of them.
pub fn collection_questions(dir: &Path, limit: Option<usize>) -> Result<Collection> {
    let mut collection = Collection::load(dir)?;
    if let Some(limit) = limit {
        collection.queries.truncate(limit);
    }
    Ok(collection)
}

pub fn read_question_set(path: &Path) -> Result<Vec<QuestionGroup>> {
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

/// Asks every question: the collection's against its own index (answerable,
/// with gold), each `against` collection's (off-corpus), and the question set.
pub fn ask_all(
    index: &OpenIndex,
    own: Option<&Collection>,
    against: &[Collection],
    groups: &[QuestionGroup],
) -> Result<Vec<Asked>> {
    let mut asked = Vec::new();
    if let Some(collection) = own {
        for (id, query) in &collection.queries {
            let Answer { state, rule, documents, signals } = ask(index, query)?;
            let gold: HashSet<&String> = collection
                .qrels
                .get(id)
                .map(|judged| judged.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d).collect())
                .unwrap_or_default();
            let gold_in_evidence = (!gold.is_empty()).then(|| documents.iter().any(|d| gold.contains(d)));
            let (id, query) = (id.clone(), query.clone());
            asked.push(Asked { label: ANSWERABLE.into(), id, query, state, rule, gold_in_evidence, signals });
        }
    }
    for collection in against {
        for (id, query) in &collection.queries {
            let Answer { state, rule, signals, .. } = ask(index, query)?;
            let id = format!("{}:{id}", collection.name);
            let query = query.clone();
            asked.push(Asked { label: OFF_CORPUS.into(), id, query, state, rule, gold_in_evidence: None, signals });
        }
    }
    for group in groups {
        let label = if group.answerable { ANSWERABLE } else { OFF_CORPUS };
        for (n, query) in group.questions.iter().enumerate() {
            let Answer { state, rule, signals, .. } = ask(index, query)?;
            let (label, id, query) = (format!("set_{label}"), format!("{}#{}", group.id, n + 1), query.clone());
            asked.push(Asked { label, id, query, state, rule, gold_in_evidence: None, signals });
        }
    }
    Ok(asked)
}

fn share(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

fn state_name(state: State) -> String {
    serde_json::to_value(state).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// The figures of a run; `groups` tells which asked ids belong together.
pub fn report(asked: Vec<Asked>, groups: &[QuestionGroup]) -> VerdictReport {
    let mut confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for a in &asked {
        *confusion.entry(a.label.clone()).or_default().entry(state_name(a.state)).or_insert(0) += 1;
    }
    let with_gold: Vec<&Asked> = asked.iter().filter(|a| a.gold_in_evidence.is_some()).collect();
    let supported: Vec<&&Asked> = with_gold.iter().filter(|a| a.state == State::Supported).collect();
    let supported_correct = supported.iter().filter(|a| a.gold_in_evidence == Some(true)).count();
    let found: Vec<&&Asked> = with_gold.iter().filter(|a| a.gold_in_evidence == Some(true)).collect();
    let found_supported = found.iter().filter(|a| a.state == State::Supported).count();
    let off: Vec<&Asked> = asked.iter().filter(|a| a.label == OFF_CORPUS).collect();
    let off_insufficient = off.iter().filter(|a| a.state == State::InsufficientEvidence).count();
    let agreeing = groups
        .iter()
        .filter(|g| {
            let prefix = format!("{}#", g.id);
            let states: HashSet<String> =
                asked.iter().filter(|a| a.id.starts_with(&prefix)).map(|a| state_name(a.state)).collect();
            states.len() == 1
        })
        .count();
    VerdictReport {
        confusion,
        supported_precision: share(supported_correct, supported.len()),
        supported_recall: share(found_supported, found.len()),
        off_corpus_insufficient: share(off_insufficient, off.len()),
        paraphrase_agreement: share(agreeing, groups.len()),
        groups: groups.len(),
        asked,
    }
}

impl VerdictReport {
    pub fn table(&self) -> String {
        let states: Vec<String> = State::ALL.iter().map(|s| state_name(*s)).collect();
        let mut out = format!("{:<18}", "label");
        for s in &states {
            out.push_str(&format!(" {:>24}", s));
        }
        out.push('\n');
        for (label, row) in &self.confusion {
            out.push_str(&format!("{label:<18}"));
            for s in &states {
                out.push_str(&format!(" {:>24}", row.get(s).copied().unwrap_or(0)));
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
    pub fn shares(&self, state: State) -> Vec<(String, f64)> {
        let name = state_name(state);
        self.confusion
            .iter()
            .map(|(label, row)| {
                let total: usize = row.values().sum();
                (label.clone(), row.get(&name).copied().unwrap_or(0) as f64 / total.max(1) as f64)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(label: &str, id: &str, state: State, gold: Option<bool>) -> Asked {
        Asked {
            label: label.into(),
            id: id.into(),
            query: String::new(),
            state,
            rule: String::new(),
            gold_in_evidence: gold,
            signals: serde_json::Value::Null,
        }
    }

    #[test]
    fn the_table_counts_states_per_label_and_the_figures_follow_their_definitions() {
        use State::*;
        let groups = vec![
            QuestionGroup { id: "eye".into(), answerable: true, questions: vec!["a".into(), "b".into()] },
            QuestionGroup { id: "dna".into(), answerable: false, questions: vec!["c".into(), "d".into()] },
        ];
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
            &groups,
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
        let report = report(Vec::new(), &[]);
        assert_eq!(report.supported_precision, None);
        assert_eq!(report.off_corpus_insufficient, None);
        assert_eq!(report.paraphrase_agreement, None);
    }
}
