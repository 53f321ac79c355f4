//! The `quick_start` prompt: the intended workflow, for an agent new to evident.

pub(crate) const NAME: &str = "quick_start";
pub(crate) const DESCRIPTION: &str = "How to research a question with evident: resolve the concept, find evidence, read \
    it in context, trace its source, and respect the evidence_state.";

pub(crate) fn text(topic: Option<&str>) -> String {
    let topic = topic.map(str::trim).filter(|t| !t.is_empty());
    let opening = match topic {
        Some(topic) => format!("You are researching \"{topic}\" with evident."),
        None => "You are researching a question with evident.".to_owned(),
    };
    let term = topic.unwrap_or("<a name>");
    format!(
        "{opening} evident returns evidence (real passages with provenance), never \
answers: you write the answer, citing passage ids.\n\n\
1. resolve_entity {{\"term\": \"{term}\"}} — find what the name refers to. RESOLVED: use the entity id. AMBIGUOUS or \
ENTITY_COLLISION: read the candidates and pick one explicitly; never assume. UNRESOLVED: look at the close names it \
offers, or use search_passages with free text.\n\
2. find_concept_evidence {{\"concept\": \"<entity id>\"}} — evidence about that one concept (or search_passages \
{{\"query\": \"...\"}} for a free-text question; add \"detail\": \"snippet\" to scan many items cheaply). Read coverage \
and warnings; evidence_state says whether the corpus supports the request (SUPPORTED, PARTIALLY_SUPPORTED, \
INSUFFICIENT_EVIDENCE, CONFLICTING_EVIDENCE) and which rule decided it.\n\
3. get_context {{\"passage_id\": \"<id>\"}} — read an item in its surroundings before quoting it.\n\
4. trace_source {{\"passage_id\": \"<id>\"}} — confirm the witness (edition, translation) and the source file hash \
before citing.\n\
For change over time use trace_concept (gaps are reported per period); to contrast two concepts use \
compare_concepts; for equivalents in other languages use terminology_lookup. If evidence_state is \
INSUFFICIENT_EVIDENCE, say the corpus does not support an answer rather than answering from memory."
    )
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn reads_well_with_and_without_a_topic() {
        let without = text(None);
        assert!(without.starts_with("You are researching a question with evident."), "{without}");
        assert!(!without.contains("you are researching the"), "{without}");
        assert_eq!(text(Some("  ")), without);
        let with = text(Some("natural selection"));
        assert!(with.starts_with("You are researching \"natural selection\" with evident."), "{with}");
        assert!(with.contains("resolve_entity {\"term\": \"natural selection\"}"), "{with}");
    }
}
