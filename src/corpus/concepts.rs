//! `entities.jsonl` (concepts with aliases per language and relations) and
//! `terminology.jsonl` (reviewed cross-lingual equivalences). Every reference to
//! an entity must name one that is declared; nothing here is ever generated.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, FileLocation, IoContext, Result};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entity {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) aliases: Vec<Alias>,
    pub(crate) period: Option<String>,
    pub(crate) status: Option<String>,
    pub(crate) review_status: String,
    pub(crate) ambiguous: bool,
    /// Free-text glosses of the senses of an ambiguous term.
    pub(crate) senses: Vec<String>,
    /// A reviewed definition, or none; never generated.
    pub(crate) definition: Option<String>,
    pub(crate) relations: Vec<Relation>,
    pub(crate) extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alias {
    pub(crate) name: String,
    /// BCP-47 short code, or `*` for a name used in every language.
    pub(crate) language: String,
    pub(crate) review_status: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Relation {
    /// `broader`, `narrower`, `related`, `contrasts_with`, `revised_as`, `sense`, …
    #[serde(rename = "type")]
    pub(crate) relation: String,
    pub(crate) target: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TermMapping {
    pub(crate) entity: String,
    pub(crate) source_language: String,
    pub(crate) source_term: String,
    pub(crate) target_language: String,
    pub(crate) target_term: String,
    pub(crate) review_status: String,
    pub(crate) warnings: Vec<String>,
    pub(crate) note: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AliasRecord {
    Plain(String),
    Detailed { name: String, review_status: Option<String> },
}

#[derive(Deserialize)]
struct EntityRecord {
    id: String,
    name: String,
    #[serde(default = "default_kind")]
    kind: String,
    #[serde(default)]
    aliases: BTreeMap<String, Vec<AliasRecord>>,
    #[serde(default)]
    period: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default = "default_review")]
    review_status: String,
    #[serde(default)]
    ambiguous: bool,
    #[serde(default)]
    senses: Vec<String>,
    #[serde(default)]
    definition: Option<String>,
    #[serde(default)]
    relations: Vec<Relation>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TermRecord {
    entity: String,
    source_language: String,
    source_term: String,
    target_language: String,
    target_term: String,
    #[serde(default = "default_review")]
    review_status: String,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    note: Option<String>,
}

fn default_kind() -> String {
    "concept".into()
}
fn default_review() -> String {
    "draft".into()
}

const REVIEW_STATES: &[&str] = &["reviewed", "draft"];

fn check_review(status: &str, location: &FileLocation) -> Result<()> {
    if REVIEW_STATES.contains(&status) {
        Ok(())
    } else {
        Err(Error::MalformedJsonl {
            location: location.clone(),
            reason: format!("review_status must be `reviewed` or `draft`, found `{status}`"),
        })
    }
}

/// Parses each non-empty line of a JSONL file with its 1-based line number.
fn records<T: serde::de::DeserializeOwned>(path: &Path, relative: &str) -> Result<Vec<(T, FileLocation)>> {
    let bytes = std::fs::read(path).at(relative)?;
    let text = super::decode_utf8(bytes, relative)?;
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        if line.trim().is_empty() {
            continue;
        }
        let location = FileLocation::line(relative, index + 1);
        let record = serde_json::from_str(line)
            .map_err(|e| Error::MalformedJsonl { location: location.clone(), reason: e.to_string() })?;
        out.push((record, location));
    }
    Ok(out)
}

pub(crate) fn load_entities(path: &Path, relative: &str) -> Result<Vec<Entity>> {
    let parsed: Vec<(EntityRecord, FileLocation)> = records(path, relative)?;
    let mut ids = BTreeSet::new();
    for (record, location) in &parsed {
        if !ids.insert(record.id.as_str()) {
            return Err(Error::DuplicateEntity { location: location.clone(), entity: record.id.clone() });
        }
    }
    let mut entities = Vec::with_capacity(parsed.len());
    for (record, location) in &parsed {
        check_review(&record.review_status, location)?;
        for relation in &record.relations {
            if !ids.contains(relation.target.as_str()) {
                return Err(Error::UnknownEntity { location: location.clone(), entity: relation.target.clone() });
            }
        }
        let mut aliases = Vec::new();
        for (language, names) in &record.aliases {
            for alias in names {
                let (name, review_status) = match alias {
                    AliasRecord::Plain(name) => (name.clone(), record.review_status.clone()),
                    AliasRecord::Detailed { name, review_status } => {
                        (name.clone(), review_status.clone().unwrap_or_else(|| record.review_status.clone()))
                    }
                };
                check_review(&review_status, location)?;
                if !name.trim().is_empty() {
                    aliases.push(Alias { name, language: language.clone(), review_status });
                }
            }
        }
        entities.push(Entity {
            id: record.id.clone(),
            name: record.name.clone(),
            kind: record.kind.clone(),
            aliases,
            period: record.period.clone(),
            status: record.status.clone(),
            review_status: record.review_status.clone(),
            ambiguous: record.ambiguous,
            senses: record.senses.clone(),
            definition: record.definition.clone(),
            relations: record.relations.clone(),
            extra: record.extra.clone(),
        });
    }
    Ok(entities)
}

pub(crate) fn load_terminology(path: &Path, relative: &str, entities: &[Entity]) -> Result<Vec<TermMapping>> {
    let known: BTreeSet<&str> = entities.iter().map(|e| e.id.as_str()).collect();
    let parsed: Vec<(TermRecord, FileLocation)> = records(path, relative)?;
    parsed
        .into_iter()
        .map(|(r, location)| {
            if !known.contains(r.entity.as_str()) {
                return Err(Error::UnknownEntity { location, entity: r.entity });
            }
            check_review(&r.review_status, &location)?;
            Ok(TermMapping {
                entity: r.entity,
                source_language: r.source_language,
                source_term: r.source_term,
                target_language: r.target_language,
                target_term: r.target_term,
                review_status: r.review_status,
                warnings: r.warnings,
                note: r.note,
            })
        })
        .collect()
}
