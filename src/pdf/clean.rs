//! From an extractor's lines per page to text a reader recognises: ligatures
//! and Unicode normalised, running headers, footers and page numbers removed,
//! words hyphenated across line ends joined. Pure functions over strings, so
//! every rule is tested without a PDF.

use std::collections::{HashMap, HashSet};
use unicode_normalization::UnicodeNormalization;

/// Lines at each end of a page where running headers, footers and page numbers sit.
const RUNNING_ZONE: usize = 2;

/// NFC, ligatures spelled out, soft hyphens dropped, odd spaces made plain.
pub(crate) fn normalize(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.nfc() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{00AD}' => {}
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' => out.push(' '),
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.trim_end().to_owned()
}

/// Removes running headers and footers (a line, digits aside, at the same end
/// of at least half the pages that have text, and of two pages at least) and
/// page numbers (a bare number or numeral that is a page's first or last line).
/// A line `heading` accepts (set in larger type) is never running: a document
/// that opens every page with a numbered heading keeps its headings.
/// Returns how many lines went.
pub(crate) fn strip_running_lines<L: AsRef<str>>(pages: &mut [Vec<L>], heading: impl Fn(&L) -> bool) -> usize {
    let with_text = pages.iter().filter(|p| !p.is_empty()).count();
    let mut top: HashMap<String, usize> = HashMap::new();
    let mut bottom: HashMap<String, usize> = HashMap::new();
    for page in pages.iter() {
        let mut seen_top = HashSet::new();
        for line in page.iter().take(RUNNING_ZONE) {
            let key = running_key(line.as_ref());
            if seen_top.insert(key.clone()) {
                *top.entry(key).or_default() += 1;
            }
        }
        let mut seen_bottom = HashSet::new();
        for line in page.iter().rev().take(RUNNING_ZONE) {
            let key = running_key(line.as_ref());
            if seen_bottom.insert(key.clone()) {
                *bottom.entry(key).or_default() += 1;
            }
        }
    }
    let needed = with_text.div_ceil(2).max(2);
    let folio_offset = common_folio_offset(pages);
    let running = |counts: &HashMap<String, usize>, line: &str| {
        let key = running_key(line);
        !key.is_empty() && counts.get(&key).is_some_and(|&n| n >= needed)
    };
    let mut removed = 0;
    for (page_index, page) in pages.iter_mut().enumerate() {
        let len = page.len();
        let keep: Vec<bool> = page
            .iter()
            .enumerate()
            .map(|(i, line)| {
                if heading(line) {
                    return true;
                }
                let at_top = i < RUNNING_ZONE;
                let at_bottom = i + RUNNING_ZONE >= len;
                let edge = i == 0 || i + 1 == len;
                let line = line.as_ref();
                let numbered =
                    edge && folio_offset.is_some() && folio(line).map(|n| n - page_index as i64) == folio_offset;
                !((at_top && running(&top, line))
                    || (at_bottom && running(&bottom, line))
                    || (edge && is_page_number(line))
                    || numbered)
            })
            .collect();
        let before = page.len();
        let mut flags = keep.into_iter();
        page.retain(|_| flags.next().unwrap_or(true));
        removed += before - page.len();
    }
    removed
}

/// Books print the page number inside the running head ("17 1.5. KOMPAKTHEIT"),
/// which changes by chapter: a first or last line whose leading or trailing number
/// is the page's index plus one offset common to at least three pages is running.
fn common_folio_offset<L: AsRef<str>>(pages: &[Vec<L>]) -> Option<i64> {
    let mut offsets: HashMap<i64, usize> = HashMap::new();
    for (index, page) in pages.iter().enumerate() {
        let edges: HashSet<i64> = [page.first(), page.last()]
            .into_iter()
            .flatten()
            .filter_map(|l| folio(l.as_ref()))
            .map(|n| n - index as i64)
            .collect();
        for offset in edges {
            *offsets.entry(offset).or_default() += 1;
        }
    }
    let (offset, count) = offsets.into_iter().max_by_key(|&(offset, count)| (count, -offset))?;
    (count >= 3).then_some(offset)
}

/// The number a short line starts or ends with (a folio).
fn folio(line: &str) -> Option<i64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() > 12 {
        return None;
    }
    let number = |w: &&str| (w.len() <= 4 && w.chars().all(|c| c.is_ascii_digit())).then(|| w.parse().ok()).flatten();
    words.first().and_then(number).or_else(|| words.last().and_then(number))
}

/// A line with its digits folded, so "Page 3" and "Page 4" are the same running line.
fn running_key(line: &str) -> String {
    let folded: String = line
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c.to_ascii_lowercase() })
        .collect();
    // A line of digits alone is a page number, judged by `is_page_number` where it stands.
    if folded.chars().all(|c| c == '#' || c == ' ') { String::new() } else { folded }
}

/// "7", "- 7 -", "vii", "Page 7", "7 of 12", "Seite 7".
fn is_page_number(line: &str) -> bool {
    let words: Vec<&str> =
        line.split_whitespace().filter(|w| !w.chars().all(|c| matches!(c, '-' | '–' | '—' | '|'))).collect();
    let number = |w: &str| w.chars().all(|c| c.is_ascii_digit()) && w.len() <= 5;
    let roman = |w: &str| w.len() <= 7 && w.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l' | 'c'));
    let words = match words.split_first() {
        Some((label, rest)) if matches!(label.to_lowercase().as_str(), "page" | "p." | "seite" | "s.") => rest,
        _ => &words[..],
    };
    match words {
        [w] => number(w) || roman(w),
        [a, of, b] => number(a) && matches!(of.to_lowercase().as_str(), "of" | "von" | "/") && number(b),
        _ => false,
    }
}

/// Joins the lines of a document, rejoining words hyphenated at line ends. A
/// hyphen stays where the document writes the hyphenated form elsewhere, or
/// where the next part starts with a capital ("Anglo-Saxon"); otherwise it was
/// the typesetter's and goes.
pub(crate) struct Dehyphenator {
    /// Words the document writes whole (lower case), with and without hyphens.
    words: HashSet<String>,
}

impl Dehyphenator {
    pub(crate) fn new<'a>(lines: impl IntoIterator<Item = &'a str>) -> Self {
        let mut words = HashSet::new();
        for line in lines {
            for word in line.split(|c: char| !(c.is_alphanumeric() || c == '-')) {
                let word = word.trim_matches('-');
                if !word.is_empty() {
                    words.insert(word.to_lowercase());
                }
            }
        }
        Self { words }
    }

    /// Whether `line`, ending in a hyphen, breaks a word that `next` completes;
    /// and if so, whether the hyphen belongs to the word.
    pub(crate) fn join(&self, line: &str, next: &str) -> Option<KeepHyphen> {
        let head = line.strip_suffix('-')?;
        let before = head.chars().next_back()?;
        if !before.is_alphabetic() {
            return None;
        }
        let tail: String = next.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '-').collect();
        let first = tail.chars().next()?;
        if !first.is_alphabetic() {
            return None;
        }
        let stem: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '-')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let joined = format!("{stem}{tail}").to_lowercase();
        let hyphenated = format!("{stem}-{tail}").to_lowercase();
        if self.words.contains(&joined) {
            return Some(KeepHyphen(false));
        }
        Some(KeepHyphen(first.is_uppercase() || self.words.contains(&hyphenated)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeepHyphen(pub bool);

#[cfg(test)]
mod tests {
    use super::*;

    fn page(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn ligatures_soft_hyphens_and_odd_spaces_are_normalised() {
        assert_eq!(normalize("the \u{FB01}rst \u{FB02}ight\u{00A0}of e\u{FB03}cient"), "the first flight of efficient");
        assert_eq!(normalize("Stra\u{00AD}sse"), "Strasse");
        // NFC: e + combining acute becomes é.
        assert_eq!(normalize("caf\u{0065}\u{0301}"), "caf\u{00E9}");
    }

    #[test]
    fn running_headers_footers_and_page_numbers_go_and_the_body_stays() {
        let mut pages = vec![
            page(&["Journal of Fixtures", "Lantern Moths", "1 Introduction", "The first page.", "i"]),
            page(&["Journal of Fixtures", "3", "Results", "The second page.", "ii"]),
            page(&["Journal of Fixtures", "The third page.", "Page 3 of 3"]),
        ];
        let removed = strip_running_lines(&mut pages, |_| false);
        assert_eq!(pages[0], page(&["Lantern Moths", "1 Introduction", "The first page."]));
        // "3" is the section number after the header, not the page's first line: it stays.
        assert_eq!(pages[1], page(&["3", "Results", "The second page."]));
        assert_eq!(pages[2], page(&["The third page."]));
        assert_eq!(removed, 6);
    }

    #[test]
    fn a_running_head_that_changes_by_chapter_goes_by_its_page_number() {
        let mut pages = vec![
            page(&["5 1.1. TOPOLOGISCHE RÄUME", "Text one."]),
            page(&["1.1. TOPOLOGISCHE RÄUME 6", "Text two."]),
            page(&["7 1.2. METRIKEN", "Text three."]),
            page(&["8 Definition 7", "Text four, and 9 of them."]),
        ];
        strip_running_lines(&mut pages, |_| false);
        assert_eq!(
            pages.iter().map(|p| p[0].as_str()).collect::<Vec<_>>(),
            vec!["Text one.", "Text two.", "Text three.", "Text four, and 9 of them."]
        );
    }

    #[test]
    fn a_heading_that_opens_every_page_is_kept() {
        let body = ["One page.", "Another page.", "The last page."];
        let mut pages: Vec<Vec<String>> =
            (1..=3).map(|n| page(&["Header", &format!("{n} Chapter {n}"), body[n - 1]])).collect();
        strip_running_lines(&mut pages, |line| line.contains("Chapter"));
        assert_eq!(pages[2], page(&["3 Chapter 3", "The last page."]));
    }

    #[test]
    fn a_line_on_one_page_only_is_never_running() {
        let mut pages = vec![page(&["Preface", "Text one."]), page(&["Chapter 1", "Text two."])];
        assert_eq!(strip_running_lines(&mut pages, |_| false), 0);
    }

    #[test]
    fn typesetter_hyphens_go_and_real_ones_stay() {
        let lines = ["a well-known result", "the classification of moths"];
        let d = Dehyphenator::new(lines);
        // Written whole elsewhere: the hyphen was the typesetter's.
        assert_eq!(d.join("the classi-", "fication rule"), Some(KeepHyphen(false)));
        // Written hyphenated elsewhere: it is the word's.
        assert_eq!(d.join("a well-", "known fact"), Some(KeepHyphen(true)));
        // Unknown either way: a lower-case continuation is a broken word.
        assert_eq!(d.join("adip-", "iscing elit"), Some(KeepHyphen(false)));
        assert_eq!(d.join("Anglo-", "Saxon"), Some(KeepHyphen(true)));
        // A dash after a number or a space is not a broken word.
        assert_eq!(d.join("pages 12-", "19"), None);
        assert_eq!(d.join("and so -", "on"), None);
    }
}
