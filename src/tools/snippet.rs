//! `detail: "snippet"`: an evidence item's text cut to a window of at most
//! `SNIPPET_CHARS` characters around the words that matched the query, so an
//! agent can scan many items cheaply and fetch the whole passage by id.
//! Applied after the envelope is finished: coverage and the verdict are
//! always computed on the whole passages.

use crate::surface::SNIPPET_CHARS;
use crate::surface::envelope::EvidenceItem;

const ELLIPSIS: char = '…';

/// A window of `text` of at most `max_chars` characters that holds as many
/// highlighted byte ranges as fit, starting a little before the first one;
/// cut at word boundaries where possible, with an ellipsis where text was
/// left out. Without highlights, the opening of the text.
pub(crate) fn snippet(text: &str, highlights: &[(usize, usize)], max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    // Character index of each char boundary, for byte → char conversion.
    let starts: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let char_at = |byte: usize| starts.partition_point(|&b| b < byte);
    let budget = max_chars.saturating_sub(2); // room for an ellipsis at each end
    let first = highlights.iter().map(|(s, _)| char_at(*s)).min().unwrap_or(0);
    // Start a short lead-in before the first match, never past where a full window ends.
    let lead = budget / 6;
    let mut start = first.saturating_sub(lead).min(total.saturating_sub(budget));
    // Move forward to a word start (at most a few characters) so the snippet does not open mid-word.
    let chars: Vec<char> = text.chars().collect();
    if start > 0 {
        let limit = (start + 12).min(first).min(total);
        if let Some(offset) = (start..limit).find(|&i| i > 0 && chars[i - 1].is_whitespace()) {
            start = offset;
        }
    }
    let mut end = (start + budget).min(total);
    if end < total {
        // Back off to a word end, keeping at least half the window.
        if let Some(cut) = (start + budget / 2..end).rev().find(|&i| chars[i].is_whitespace()) {
            end = cut;
        }
    }
    let mut out = String::with_capacity(max_chars * 4);
    if start > 0 {
        out.push(ELLIPSIS);
    }
    out.extend(chars[start..end].iter());
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    if end < total {
        out.push(ELLIPSIS);
    }
    out
}

/// Cuts a wire item's text (and its context passages' texts) to a snippet
/// around `highlights`; `full_text_chars` tells the caller how long the passage is.
pub(crate) fn cut(item: &mut EvidenceItem, highlights: &[(usize, usize)]) {
    let chars = item.text.chars().count();
    if chars > SNIPPET_CHARS {
        item.text = snippet(&item.text, highlights, SNIPPET_CHARS);
        item.full_text_chars = Some(chars);
    }
    if let Some(context) = &mut item.context {
        for passage in context.before.iter_mut().chain(context.after.iter_mut()) {
            passage.text = snippet(&passage.text, &[], SNIPPET_CHARS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_text() -> String {
        let mut text = String::new();
        for i in 0..80 {
            text.push_str(&format!("word{i} "));
        }
        text.push_str("natural selection acts ");
        for i in 80..160 {
            text.push_str(&format!("word{i} "));
        }
        text
    }

    #[test]
    fn short_texts_are_unchanged() {
        assert_eq!(snippet("A short passage.", &[], SNIPPET_CHARS), "A short passage.");
    }

    #[test]
    fn the_window_holds_the_match_and_stays_within_the_limit() {
        let text = long_text();
        let at = text.find("natural").unwrap();
        let s = snippet(&text, &[(at, at + 7), (at + 8, at + 17)], SNIPPET_CHARS);
        assert!(s.chars().count() <= SNIPPET_CHARS, "{}", s.chars().count());
        assert!(s.contains("natural selection"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        // Cut at word boundaries: no partial `wordNN` at either end.
        let inner = s.trim_matches('…');
        assert!(inner.starts_with("word") && !inner.ends_with(' '), "{s}");
    }

    #[test]
    fn without_highlights_the_opening_is_kept() {
        let text = long_text();
        let s = snippet(&text, &[], SNIPPET_CHARS);
        assert!(s.starts_with("word0 ") && s.ends_with('…'), "{s}");
        assert!(s.chars().count() <= SNIPPET_CHARS);
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let text = "Züchtung ".repeat(100);
        let at = text.len() / 2;
        let at = (at..text.len()).find(|i| text.is_char_boundary(*i)).unwrap();
        let s = snippet(&text, &[(at, at + 1)], SNIPPET_CHARS);
        assert!(s.chars().count() <= SNIPPET_CHARS);
        assert!(s.contains("Züchtung"));
    }

    #[test]
    fn a_match_at_the_very_end_is_kept() {
        let text = long_text() + "the final words tangled bank";
        let at = text.find("tangled").unwrap();
        let s = snippet(&text, &[(at, text.len())], SNIPPET_CHARS);
        assert!(s.ends_with("tangled bank"), "{s}");
        assert!(s.chars().count() <= SNIPPET_CHARS);
    }
}
