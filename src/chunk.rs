//! Sentence-aligned chunking. A passage is a run of whole sentences (UAX #29
//! boundaries) closed once it reaches the target size and never grown past the
//! maximum; only a sentence that alone exceeds the maximum is split, at word
//! boundaries. Spans point into the source, so every passage can be traced.

use unicode_segmentation::UnicodeSegmentation;

use crate::corpus::Chunking;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// 1-based position in the document.
    pub(crate) ordinal: u32,
    /// The span's text with runs of whitespace folded to one space.
    pub(crate) text: String,
    /// Byte range in the chunked text (the caller adds the document's offset).
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) words: usize,
}

/// Splits `text` into passages.
pub(crate) fn chunk(text: &str, settings: Chunking) -> Vec<Chunk> {
    let flat = unwrap_lines(text);
    let mut pieces = Vec::new();
    for (offset, sentence) in flat.split_sentence_bound_indices() {
        let Some((start, end)) = trimmed(sentence, offset) else { continue };
        let words = flat[start..end].unicode_words().count();
        if words == 0 {
            continue;
        }
        if words > settings.max_words {
            split_long_sentence(&flat, start, end, settings.max_words, &mut pieces);
        } else {
            pieces.push(Piece { start, end, words, whole: true });
        }
    }

    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    let mut current: Option<(usize, usize, usize)> = None;
    for piece in pieces {
        if let Some((s, e, w)) = current {
            if !piece.whole || w + piece.words > settings.max_words {
                spans.push((s, e, w));
                current = None;
            } else {
                current = Some((s, piece.end, w + piece.words));
            }
        }
        if current.is_none() {
            if !piece.whole {
                spans.push((piece.start, piece.end, piece.words));
                continue;
            }
            current = Some((piece.start, piece.end, piece.words));
        }
        if let Some((s, e, w)) = current
            && w >= settings.target_words
        {
            spans.push((s, e, w));
            current = None;
        }
    }
    if let Some(last) = current {
        // A short tail joins the previous passage when that stays within the maximum.
        match spans.last_mut() {
            Some(prev) if last.2 < settings.target_words / 4 && prev.2 + last.2 <= settings.max_words => {
                *prev = (prev.0, last.1, prev.2 + last.2);
            }
            _ => spans.push(last),
        }
    }

    spans
        .into_iter()
        .enumerate()
        .map(|(i, (start, end, words))| Chunk {
            ordinal: i as u32 + 1,
            text: fold_whitespace(&text[start..end]),
            start,
            end,
            words,
        })
        .collect()
}

struct Piece {
    start: usize,
    end: usize,
    words: usize,
    /// False for a fragment of an over-long sentence: it stands alone.
    whole: bool,
}

fn split_long_sentence(flat: &str, start: usize, end: usize, max_words: usize, out: &mut Vec<Piece>) {
    let mut piece_start = None;
    let mut piece_end = start;
    let mut words = 0;
    for (offset, word) in flat[start..end].split_word_bound_indices() {
        let is_word = word.chars().any(char::is_alphanumeric);
        if is_word && words == max_words {
            out.push(Piece { start: piece_start.unwrap_or(start), end: piece_end, words, whole: false });
            piece_start = None;
            words = 0;
        }
        if word.trim().is_empty() {
            continue;
        }
        piece_start.get_or_insert(start + offset);
        piece_end = start + offset + word.len();
        if is_word {
            words += 1;
        }
    }
    if words > 0 || piece_start.is_some() {
        out.push(Piece { start: piece_start.unwrap_or(start), end: piece_end, words, whole: false });
    }
}

/// Replaces the line breaks inside a paragraph with spaces (same byte length) so
/// that UAX #29, which breaks after every line feed, sees hard-wrapped prose as
/// sentences; blank lines still end a paragraph.
fn unwrap_lines(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut line_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\r' => out.push(b' '),
            b'\n' => {
                let this_blank = is_blank(&bytes[line_start..i]);
                let next_end = bytes[i + 1..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |p| i + 1 + p);
                let next_blank = is_blank(&bytes[i + 1..next_end]);
                out.push(if this_blank || next_blank { b'\n' } else { b' ' });
                line_start = i + 1;
            }
            _ => out.push(b),
        }
    }
    // Only ASCII bytes were swapped for ASCII bytes, so the result is valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

fn trimmed(sentence: &str, offset: usize) -> Option<(usize, usize)> {
    let lead = sentence.len() - sentence.trim_start().len();
    let body = sentence.trim();
    (!body.is_empty()).then(|| (offset + lead, offset + lead + body.len()))
}

pub(crate) fn fold_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(target: usize, max: usize) -> Chunking {
        Chunking { target_words: target, max_words: max }
    }

    #[test]
    fn hard_wrapped_sentences_stay_whole() {
        let text = "The first sentence runs\nacross two lines. The second one\nalso does.\n\nA new paragraph here.";
        let chunks = chunk(text, settings(4, 8));
        assert_eq!(chunks[0].text, "The first sentence runs across two lines.");
        assert_eq!(chunks[1].text, "The second one also does.");
        assert!(chunks.iter().all(|c| c.words <= 8));
        for c in &chunks {
            assert_eq!(fold_whitespace(&text[c.start..c.end]), c.text);
        }
    }

    #[test]
    fn only_an_over_long_sentence_is_split() {
        let long = (0..25).map(|i| format!("W{i}")).collect::<Vec<_>>().join(" ") + ".";
        let text = format!("Short one here. {long} Tail sentence is here.");
        let chunks = chunk(&text, settings(5, 10));
        assert_eq!(chunks[0].text, "Short one here.");
        assert_eq!(chunks[1].words, 10);
        assert_eq!(chunks[2].words, 10);
        assert_eq!(chunks[3].words, 5);
        assert_eq!(chunks.last().map(|c| c.text.as_str()), Some("Tail sentence is here."));
        let ordinals: Vec<u32> = chunks.iter().map(|c| c.ordinal).collect();
        assert_eq!(ordinals, (1..=chunks.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn short_tail_joins_previous() {
        let text = "One two three four five six seven eight. Nine.";
        let chunks = chunk(text, settings(8, 12));
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].words, 9);
    }

    #[test]
    fn crlf_and_empty_input() {
        assert!(chunk("", settings(5, 10)).is_empty());
        assert!(chunk(" \r\n\r\n ", settings(5, 10)).is_empty());
        let chunks = chunk("Line one\r\ncontinues.\r\n", settings(1, 10));
        assert_eq!(chunks[0].text, "Line one continues.");
    }

    #[test]
    fn same_input_same_chunks() {
        let text = "Alpha beta. Gamma delta epsilon. Zeta eta theta iota. Kappa.";
        assert_eq!(chunk(text, settings(3, 6)), chunk(text, settings(3, 6)));
    }
}
