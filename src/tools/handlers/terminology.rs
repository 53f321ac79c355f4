//! terminology_lookup: reviewed cross-lingual equivalents of a term.

use crate::search::Reader;
use crate::surface::Operation;
use crate::surface::ToolError;
use crate::surface::envelope::{ResolutionStatus, TermMappingOut};
use crate::surface::{Warning, WarningCode};
use crate::text::normalized_words;
use crate::tools::args::Args;
use crate::tools::assemble::{Draft, Facts, Finished, finish};
use crate::tools::resolve::{self, resolve_term};

pub(crate) fn terminology_lookup(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let term = args.required("term")?.trim();
    let source_language = args.language("source_language");
    let target_language = args.language("target_language");
    let key = normalized_words(term);
    let resolution = resolve_term(index, term, source_language.as_deref());
    // An entity id, or a name of exactly one entity: every mapping of that entity.
    let entity = match resolution.status {
        Some(ResolutionStatus::Resolved | ResolutionStatus::Ambiguous) if resolution.entities.len() == 1 => {
            Some(resolution.entities[0].id.clone())
        }
        _ => None,
    };

    let mut found: Vec<TermMappingOut> = Vec::new();
    for m in &index.terminology {
        // Read each mapping in the direction that starts from the term.
        let forward = (m.source_language.as_str(), &m.source_term, m.target_language.as_str(), &m.target_term);
        let backward = (m.target_language.as_str(), &m.target_term, m.source_language.as_str(), &m.source_term);
        let direction = if normalized_words(&m.source_term) == key {
            Some(forward)
        } else if normalized_words(&m.target_term) == key {
            Some(backward)
        } else if entity.as_deref() == Some(m.entity.as_str()) {
            Some(forward)
        } else {
            None
        };
        let Some((src_lang, src, tgt_lang, tgt)) = direction else { continue };
        if source_language.as_deref().is_some_and(|l| l != src_lang)
            || target_language.as_deref().is_some_and(|l| l != tgt_lang)
        {
            continue;
        }
        let out = TermMappingOut {
            entity_id: m.entity.clone(),
            source_language: src_lang.to_owned(),
            source_term: src.clone(),
            target_language: tgt_lang.to_owned(),
            target_term: tgt.clone(),
            review_status: m.review_status.clone(),
            warnings: m.warnings.clone(),
            note: m.note.clone(),
        };
        if !found.contains(&out) {
            found.push(out);
        }
    }
    // Reviewed first; otherwise terminology.jsonl's order, where curators put the usual equivalent first.
    found.sort_by_key(|m| m.review_status != "reviewed");

    let mut draft = Draft::new(Operation::Terminology, args.understood());
    draft.warnings = resolve::warnings(&resolution);
    let drafts: Vec<&TermMappingOut> = found.iter().filter(|m| m.review_status != "reviewed").collect();
    if !drafts.is_empty() {
        let names: Vec<String> = drafts.iter().map(|m| format!("{} ({})", m.target_term, m.target_language)).collect();
        draft.warnings.push(Warning::new(
            WarningCode::DraftTerminology,
            format!("{} mappings are drafts, not reviewed: {}", drafts.len(), names.join(", ")),
            "prefer the reviewed equivalents; verify drafts in the sources before relying on them",
        ));
    }
    for m in found.iter().filter(|m| !m.warnings.is_empty()) {
        draft.warnings.push(Warning::new(
            WarningCode::ContrastiveTerminology,
            format!("{} → {}: {}", m.source_term, m.target_term, m.warnings.join("; ")),
            "check the scope of the term in each language before treating the two as equivalent",
        ));
    }
    let reviewed = found.len() - drafts.len();
    draft.facts = Facts::Terminology {
        mappings: u32::try_from(found.len()).unwrap_or(u32::MAX),
        reviewed: u32::try_from(reviewed).unwrap_or(u32::MAX),
    };
    draft.resolution = resolution;
    draft.resolution.terminology = Some(found);
    Ok(finish(index, draft))
}
