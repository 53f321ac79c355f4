//! The `quick_start` prompt: the intended workflow, for an agent new to evident.

pub const NAME: &str = "quick_start";
pub const DESCRIPTION: &str = "How to research a question with evident: resolve the concept, find evidence, read \
    it in context, trace its source, and respect the evidence_state.";

pub fn text(topic: Option<&str>) -> String {
    let topic = topic.filter(|t| !t.trim().is_empty()).unwrap_or("the concept you are researching");
    format!(
        "You are researching {topic} with evident. evident returns evidence (real passages with provenance), never \
answers: you write the answer, citing passage ids.\n\n\
1. resolve_entity {{\"term\": \"<name>\"}} — find the entity id. RESOLVED: use it. AMBIGUOUS or ENTITY_COLLISION: \
read the candidates and pick one explicitly; never assume. UNRESOLVED: use search_passages with free text.\n\
2. find_concept_evidence {{\"concept\": \"<entity id>\"}} — evidence about that one concept (or search_passages for a \
free-text question). Read coverage and warnings; evidence_state tells you whether the corpus supports the claim \
(SUPPORTED, PARTIALLY_SUPPORTED, INSUFFICIENT_EVIDENCE, CONFLICTING_EVIDENCE) and which rule decided it.\n\
3. get_context {{\"passage_id\": \"<id>\"}} — read an item in its surroundings before quoting it.\n\
4. trace_source {{\"passage_id\": \"<id>\"}} — confirm the witness (edition, translation) and the source file hash \
before citing.\n\
For change over time use trace_concept (gaps are reported per period); to contrast two concepts use \
compare_concepts; for equivalents in other languages use terminology_lookup. If evidence_state is \
INSUFFICIENT_EVIDENCE, say the corpus does not support an answer rather than answering from memory."
    )
}
