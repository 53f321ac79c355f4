//! Queries and relevance judgements of a BEIR collection.

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::error::{Error, FileLocation, IoContext, Result};

/// query id → (document id → graded relevance > 0)
pub(crate) type Qrels = HashMap<String, HashMap<String, u32>>;

pub(crate) struct Collection {
    pub(crate) name: String,
    /// (query id, text), in file order.
    pub(crate) queries: Vec<(String, String)>,
    pub(crate) qrels: Qrels,
}

#[derive(Deserialize)]
struct QueryRecord {
    #[serde(rename = "_id")]
    id: serde_json::Value,
    text: String,
}

fn id_string(value: serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

impl Collection {
    pub(crate) fn load(dir: &Path) -> Result<Self> {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("collection").to_owned();
        let queries_path = dir.join("queries.jsonl");
        let text = std::fs::read_to_string(&queries_path).at(&queries_path)?;
        let mut queries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: QueryRecord = serde_json::from_str(line).map_err(|e| Error::MalformedJsonl {
                location: FileLocation::line(&queries_path, i + 1),
                reason: e.to_string(),
            })?;
            queries.push((id_string(record.id), record.text));
        }
        let qrels_path = dir.join("qrels").join("test.tsv");
        let text = std::fs::read_to_string(&qrels_path).at(&qrels_path)?;
        let qrels = parse_qrels(&text, &qrels_path)?;
        // Only judged queries can be scored; BEIR's convention.
        queries.retain(|(id, _)| qrels.contains_key(id));
        Ok(Self { name, queries, qrels })
    }
}

pub(crate) fn parse_qrels(text: &str, path: &Path) -> Result<Qrels> {
    let mut qrels: BTreeMap<String, HashMap<String, u32>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        if i == 0 && fields.first() == Some(&"query-id") {
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let bad = || Error::MalformedJsonl {
            location: FileLocation::line(path, i + 1),
            reason: "expected `query-id<TAB>corpus-id<TAB>score`".into(),
        };
        let [query, doc, score] = fields.as_slice() else { return Err(bad()) };
        let score: i64 = score.trim().parse().map_err(|_| bad())?;
        if score > 0 {
            qrels.entry((*query).to_owned()).or_default().insert((*doc).to_owned(), score as u32);
        }
    }
    Ok(qrels.into_iter().collect())
}
