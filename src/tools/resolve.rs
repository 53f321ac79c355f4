//! Entity resolution for tools: a term becomes RESOLVED, AMBIGUOUS,
//! ENTITY_COLLISION or UNRESOLVED, never silently one of several, written as
//! the envelope's resolution section. `concepts` answers which entities a name
//! or a text names; this module decides what that means for the call.

use crate::corpus::Entity;
use crate::search::Reader;
use crate::surface::MAX_SUGGESTIONS;
use crate::surface::envelope::{
    AmbiguousTerm, Collision, EntityRef, Resolution, ResolutionStatus, ResolvedBy, Suggestion,
};
use crate::surface::{ErrorCode, ToolError, echo};
use crate::surface::{Warning, WarningCode};
use crate::text::Mention;

pub(crate) fn entity_ref(entity: &Entity, how: Option<ResolvedBy>, alias: Option<String>) -> EntityRef {
    EntityRef {
        id: entity.id.clone(),
        name: entity.name.clone(),
        kind: entity.kind.clone(),
        review_status: entity.review_status.clone(),
        how,
        matched_alias: alias,
        context_mentions: None,
    }
}

/// Resolves one term (an entity id, an alias, or text mentioning aliases).
pub(crate) fn resolve_term(index: &Reader, term: &str, language: Option<&str>) -> Resolution {
    let term = term.trim();
    let mut out = Resolution::default();
    if let Some(entity) = index.concepts().entity(term) {
        resolved(&mut out, term, entity, ResolvedBy::Id, None);
        return out;
    }
    let named = index.concepts().named(term, language);
    match named.len() {
        0 => {}
        1 => {
            let (entity, alias) = &named[0];
            resolved(&mut out, term, entity, ResolvedBy::Alias, Some(alias.clone()));
            return out;
        }
        _ => {
            out.status = Some(ResolutionStatus::EntityCollision);
            out.collisions.push(Collision {
                term: term.to_owned(),
                candidates: named
                    .iter()
                    .map(|(e, a)| entity_ref(e, Some(ResolvedBy::Alias), Some(a.clone())))
                    .collect(),
            });
            return out;
        }
    }
    // Not a name itself: the names it contains.
    from_mentions(index, index.concepts().mentions(term, language), &mut out);
    out.status = Some(match (out.collisions.is_empty(), out.entities.len(), out.ambiguous.is_empty()) {
        (false, _, _) => ResolutionStatus::EntityCollision,
        (true, 0, true) => ResolutionStatus::Unresolved,
        (true, 1, true) => ResolutionStatus::Resolved,
        _ => ResolutionStatus::Ambiguous,
    });
    if out.status == Some(ResolutionStatus::Unresolved) {
        out.unresolved_terms.push(term.to_owned());
        out.suggestions = index
            .concepts()
            .close_names(term, language, MAX_SUGGESTIONS)
            .into_iter()
            .map(|close| Suggestion {
                entity_id: close.entity.id.clone(),
                name: close.entity.name.clone(),
                alias: close.alias,
                how: close.how.to_owned(),
            })
            .collect();
    }
    out
}

fn resolved(out: &mut Resolution, term: &str, entity: &Entity, how: ResolvedBy, alias: Option<String>) {
    if entity.ambiguous {
        out.status = Some(ResolutionStatus::Ambiguous);
        out.ambiguous.push(AmbiguousTerm {
            term: term.to_owned(),
            entity_id: entity.id.clone(),
            senses: entity.senses.clone(),
        });
    } else {
        out.status = Some(ResolutionStatus::Resolved);
    }
    out.entities.push(entity_ref(entity, Some(how), alias));
}

/// What the entity names a text mentions say (the searcher links the text
/// once): distinct entities, shared aliases as collisions, entities with
/// several senses as ambiguous.
pub(crate) fn from_mentions(index: &Reader, mentions: Vec<Mention>, out: &mut Resolution) {
    let mut shared: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for m in mentions {
        let Some(entity) = index.concepts().entity(&m.entity) else { continue };
        if m.ambiguous {
            shared.entry(m.alias.clone()).or_default().push(m.entity.clone());
            continue;
        }
        if out.entities.iter().any(|e| e.id == entity.id) {
            continue;
        }
        if entity.ambiguous {
            out.ambiguous.push(AmbiguousTerm {
                term: m.alias.clone(),
                entity_id: entity.id.clone(),
                senses: entity.senses.clone(),
            });
        }
        out.entities.push(entity_ref(entity, Some(ResolvedBy::Mention), Some(m.alias)));
    }
    for (alias, ids) in shared {
        let candidates = ids
            .iter()
            .filter_map(|id| index.concepts().entity(id))
            .map(|e| entity_ref(e, Some(ResolvedBy::Mention), Some(alias.clone())))
            .collect();
        out.collisions.push(Collision { term: alias, candidates });
    }
}

/// The warnings a resolution carries.
pub(crate) fn warnings(resolution: &Resolution) -> Vec<Warning> {
    let mut out = Vec::new();
    for a in &resolution.ambiguous {
        out.push(Warning::new(
            WarningCode::AmbiguousEntity,
            format!("`{}` resolved to {}, which has {} recorded senses", a.term, a.entity_id, a.senses.len()),
            "check each evidence item's sense; the senses are listed in resolution.ambiguous",
        ));
    }
    for c in &resolution.collisions {
        let ids: Vec<&str> = c.candidates.iter().map(|e| e.id.as_str()).collect();
        out.push(Warning::new(
            WarningCode::EntityCollision,
            format!("`{}` is a name of {} entities: {}", c.term, ids.len(), ids.join(", ")),
            "choose one candidate and pass its entity id: as `entities` to search_passages, or as `concept` to \
             find_concept_evidence",
        ));
    }
    for t in &resolution.unresolved_terms {
        let action = match close_names(resolution) {
            None => "no entity has a close name either: use search_passages for free text".to_owned(),
            Some(names) => format!("close names: {names}; or use search_passages for free text"),
        };
        out.push(Warning::new(WarningCode::UnresolvedTerm, format!("`{t}` names no entity of this corpus"), action));
    }
    out
}

/// The suggestions as `alias (entity id)`, comma-separated; `None` when there are none.
fn close_names(resolution: &Resolution) -> Option<String> {
    let names: Vec<String> = resolution.suggestions.iter().map(|s| format!("{} ({})", s.alias, s.entity_id)).collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// What a concept argument names.
pub(crate) enum Concept<'a> {
    /// Exactly one entity (possibly one with several senses).
    One(&'a Entity, Resolution),
    /// A collision, or several entities: the caller must choose; the tool says so in an envelope.
    Undecided(Resolution),
}

/// The one entity a concept tool works on: an id, a name or an alias,
/// resolved exactly as resolve_entity resolves it.
pub(crate) fn require_one<'a>(
    index: &'a Reader,
    concept: &str,
    language: Option<&str>,
) -> Result<Concept<'a>, ToolError> {
    let resolution = resolve_term(index, concept, language);
    match resolution.status {
        Some(ResolutionStatus::Resolved) | Some(ResolutionStatus::Ambiguous) if resolution.entities.len() == 1 => {
            let id = resolution.entities[0].id.clone();
            match index.concepts().entity(&id) {
                Some(entity) => Ok(Concept::One(entity, resolution)),
                None => Err(not_found(concept, &resolution)),
            }
        }
        Some(ResolutionStatus::Unresolved) | None => Err(not_found(concept, &resolution)),
        _ => Ok(Concept::Undecided(resolution)),
    }
}

/// `entity_not_found`, naming the close names the resolution found.
pub(crate) fn not_found(concept: &str, resolution: &Resolution) -> ToolError {
    let hint = match close_names(resolution) {
        None => "call resolve_entity with another name, or use search_passages for free text".to_owned(),
        Some(names) => format!("close names: {names}"),
    };
    ToolError::new(
        ErrorCode::EntityNotFound,
        format!("`{}` is not an entity id and names no entity; {hint}", echo(concept)),
    )
}
