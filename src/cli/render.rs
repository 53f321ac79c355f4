//! Human-readable output: the build summary and the result table.

use std::io::IsTerminal;

use crate::index::BuildSummary;
use crate::search::SearchHit;

const SNIPPET_WORDS: usize = 40;

pub(crate) fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub(crate) fn build_summary(s: &BuildSummary) -> String {
    let vectors = match (&s.vector, &s.vector_skipped) {
        (Some(v), _) if v.embedded > 0 && v.embedding_seconds > 0.0 => format!(
            "{} vectors ({} embedded, {} reused, {:.0} passages/s)",
            v.points,
            v.embedded,
            v.reused,
            v.embedded as f64 / v.embedding_seconds
        ),
        (Some(v), _) => format!("{} vectors ({} embedded, {} reused)", v.points, v.embedded, v.reused),
        (None, Some(_)) => "vector lane skipped".to_owned(),
        (None, None) => "no vectors".to_owned(),
    };
    let files = match (s.skipped, s.warned) {
        (0, 0) => String::new(),
        (skipped, warned) => format!(", {skipped} files skipped, {warned} with warnings"),
    };
    format!(
        "built {}: {} documents, {} passages, {} entities ({} links), {}, {} of {} sources reused{files}, {:.1} s",
        s.generation,
        s.counts.documents,
        s.counts.passages,
        s.counts.entities,
        s.counts.entity_links,
        vectors,
        s.reused_sources,
        s.counts.sources,
        s.seconds
    )
}

pub(crate) fn hits_table(hits: &[SearchHit], color: bool) -> String {
    if hits.is_empty() {
        return "no passages found\n".into();
    }
    let mut out = String::new();
    for hit in hits {
        let p = &hit.passage;
        // A PDF passage shows its page as a reader would cite it (the printed label first).
        let page = p.pages.as_ref().map(crate::citation::page_reference);
        let place = [p.work.as_deref(), p.section.as_deref().or(p.title.as_deref()), page.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ");
        out.push_str(&format!("{:>3}  {}  {}\n", hit.rank, p.passage_id, place));
        out.push_str(&format!("     {}\n", snippet(&p.text, &hit.highlights, color)));
    }
    out
}

/// About `SNIPPET_WORDS` words around the first highlight, matches marked.
fn snippet(text: &str, highlights: &[(usize, usize)], color: bool) -> String {
    let (open, close) = if color { ("\x1b[1;33m", "\x1b[0m") } else { ("[", "]") };
    let words: Vec<(usize, usize)> = word_spans(text);
    let first = highlights.first().map_or(0, |h| h.0);
    let center = words.iter().position(|w| w.1 > first).unwrap_or(0);
    let start_word = center.saturating_sub(SNIPPET_WORDS / 4);
    let end_word = (start_word + SNIPPET_WORDS).min(words.len());
    let (Some(&(start, _)), Some(&(_, end))) = (words.get(start_word), words.get(end_word.saturating_sub(1))) else {
        return String::new();
    };
    let mut out = String::new();
    if start_word > 0 {
        out.push('…');
    }
    let mut cursor = start;
    for &(hs, he) in highlights.iter().filter(|h| h.0 >= start && h.1 <= end) {
        out.push_str(&text[cursor..hs]);
        out.push_str(open);
        out.push_str(&text[hs..he]);
        out.push_str(close);
        cursor = he;
    }
    out.push_str(&text[cursor..end]);
    if end_word < words.len() {
        out.push('…');
    }
    out
}

fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_marks_matches_and_elides() {
        let text =
            (0..100).map(|i| if i == 50 { "MATCH".to_owned() } else { format!("w{i}") }).collect::<Vec<_>>().join(" ");
        let start = text.find("MATCH").unwrap();
        let s = snippet(&text, &[(start, start + 5)], false);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("[MATCH]"));
        assert_eq!(s.split_whitespace().count(), SNIPPET_WORDS);
    }
}
