//! Sections of a PDF: from its outline where it has one, else from numbered
//! headings set in larger type, else from unnumbered ones ("Introduction",
//! "Results"); the bibliography always stands as its own.

use super::{OutlineEntry, PageStart};

/// A section of the document text: where its heading line starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) title: String,
    pub(crate) offset: usize,
    pub(crate) bibliography: bool,
}

/// A line of the document text as it was laid out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineStart {
    pub(crate) offset: usize,
    pub(crate) text: String,
    /// Set in type clearly larger than the document's body text.
    pub(crate) larger: bool,
}

/// Headings that open a bibliography, in the languages evident analyses.
const BIBLIOGRAPHY: &[&str] = &[
    "references",
    "bibliography",
    "works cited",
    "literature cited",
    "literatur",
    "literaturverzeichnis",
    "quellen",
    "bibliographie",
    "références",
    "références bibliographiques",
];

/// The document's top-level sections in text order.
pub(crate) fn find(lines: &[LineStart], pages: &[PageStart], outline: &[OutlineEntry]) -> Vec<Section> {
    let mut sections = from_outline(lines, pages, outline);
    if sections.is_empty() {
        sections = numbered_headings(lines);
    }
    if sections.is_empty() {
        sections = unnumbered_headings(lines);
    }
    for line in lines {
        if BIBLIOGRAPHY.contains(&heading_words(&line.text).as_str())
            && !sections.iter().any(|s| s.offset == line.offset)
        {
            sections.push(Section { title: line.text.trim().to_owned(), offset: line.offset, bibliography: true });
        }
    }
    sections.sort_by_key(|s| s.offset);
    sections.dedup_by_key(|s| s.offset);
    for section in &mut sections {
        section.bibliography |= BIBLIOGRAPHY.contains(&heading_words(&section.title).as_str());
    }
    sections
}

/// Top-level outline entries placed at the line on their page that carries
/// their title (else at the page's start).
fn from_outline(lines: &[LineStart], pages: &[PageStart], outline: &[OutlineEntry]) -> Vec<Section> {
    let top: Vec<&OutlineEntry> = outline.iter().filter(|e| e.depth == 0 && !e.title.is_empty()).collect();
    if top.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for entry in top {
        let Some(page) = pages.get(entry.page) else { continue };
        let end = pages.get(entry.page + 1).map_or(usize::MAX, |p| p.offset);
        let wanted = heading_words(&entry.title);
        let line = lines
            .iter()
            .filter(|l| {
                l.offset >= page.offset && l.offset < end && !out.iter().any(|s: &Section| s.offset == l.offset)
            })
            .find(|l| heading_words(&l.text) == wanted);
        let offset = line.map_or(page.offset, |l| l.offset);
        out.push(Section { title: entry.title.clone(), offset, bibliography: false });
    }
    out
}

/// "1 Introduction", "2. Methods": top-level numbers in sequence from 1, each
/// set larger than the body text where the document sets any line larger (a
/// table of contents repeats the headings in body type).
fn numbered_headings(lines: &[LineStart]) -> Vec<Section> {
    let any_larger = lines.iter().any(|l| l.larger);
    let mut expected = 1;
    let mut out = Vec::new();
    for line in lines {
        let Some(number) = heading_number(&line.text) else { continue };
        if number == expected && (line.larger || !any_larger) {
            out.push(Section { title: line.text.trim().to_owned(), offset: line.offset, bibliography: false });
            expected += 1;
        }
    }
    // One numbered line is not a structure.
    if out.len() < 2 { Vec::new() } else { out }
}

/// "Introduction", "Results": short capitalised lines set larger than the body,
/// each the first of its run of larger lines (a heading that wraps is one),
/// after the title block the document opens with (title, authors and date set
/// large are no sections).
fn unnumbered_headings(lines: &[LineStart]) -> Vec<Section> {
    let body = lines.iter().position(|l| !l.larger).unwrap_or(lines.len());
    let mut out = Vec::new();
    let mut previous_larger = false;
    for line in &lines[body..] {
        if line.larger && !previous_larger && unnumbered_heading(&line.text) {
            out.push(Section { title: line.text.trim().to_owned(), offset: line.offset, bibliography: false });
        }
        previous_larger = line.larger;
    }
    // One heading is not a structure (a pull quote, a figure's label).
    if out.len() < 2 { Vec::new() } else { out }
}

/// A line that reads as a heading: a capital, one to eight words, a word of
/// letters, no sentence punctuation at its end, no figure's or table's label.
fn unnumbered_heading(text: &str) -> bool {
    let text = text.trim();
    let mut first_two = text.split_whitespace();
    let label = matches!(first_two.next(), Some("Figure" | "Fig." | "Table" | "Abbildung" | "Tabelle"))
        && first_two.next().is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()));
    let words = text.split_whitespace().count();
    let capitalised = text.chars().next().is_some_and(char::is_uppercase);
    let lettered = text.split_whitespace().any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3);
    let sentence = text.ends_with(['.', ',', ';']);
    capitalised && lettered && (1..=8).contains(&words) && !sentence && !label
}

/// The number of a top-level heading line: short, a number then a capitalised word, no final stop.
fn heading_number(text: &str) -> Option<u32> {
    let text = text.trim();
    let (number, rest) = text.split_once(char::is_whitespace)?;
    let number: u32 = number.strip_suffix('.').unwrap_or(number).parse().ok()?;
    let words = rest.split_whitespace().count();
    let capitalised = rest.trim_start().chars().next().is_some_and(char::is_uppercase);
    let sentence = text.ends_with('.') || text.ends_with(',');
    (number <= 999 && capitalised && (1..=12).contains(&words) && !sentence).then_some(number)
}

/// A heading's words in lower case, without its number ("3.1 Results" → "results").
fn heading_words(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let skip = usize::from(words.first().is_some_and(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.')));
    words[skip.min(words.len())..].join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(specs: &[(&str, bool)]) -> Vec<LineStart> {
        let mut offset = 0;
        specs
            .iter()
            .map(|(text, larger)| {
                let line = LineStart { offset, text: text.to_string(), larger: *larger };
                offset += text.len() + 1;
                line
            })
            .collect()
    }

    #[test]
    fn numbered_larger_headings_in_sequence_are_sections_and_the_bibliography_is_its_own() {
        let lines = lines(&[
            ("Contents", true),
            ("1 Introduction 2", false),
            ("1 Introduction", true),
            ("Some text about 3 Things in a line.", false),
            ("2 Methods", true),
            ("7 Unrelated", true),
            ("References", true),
            ("[1] A. Author. A paper. 2011.", false),
        ]);
        let found = find(&lines, &[], &[]);
        let titles: Vec<(&str, bool)> = found.iter().map(|s| (s.title.as_str(), s.bibliography)).collect();
        assert_eq!(titles, vec![("1 Introduction", false), ("2 Methods", false), ("References", true)]);
        assert_eq!(found[0].offset, lines[2].offset);
    }

    #[test]
    fn unnumbered_larger_headings_after_the_title_block_are_sections() {
        let lines = lines(&[
            ("Lantern Moths of the", true),
            ("Quartz Valley", true),
            ("Ada Fenwick", true),
            ("The abstract in body type.", false),
            ("Introduction", true),
            ("Moths gather at dusk.", false),
            ("Results and a heading that", true),
            ("wraps onto a second line", true),
            ("Counts rose in June.", false),
            ("Counts fell, then rose.", true),
            ("Figure 3", true),
            ("References", true),
            ("[1] A. Author. A paper. 2011.", false),
        ]);
        let found = find(&lines, &[], &[]);
        let titles: Vec<(&str, bool)> = found.iter().map(|s| (s.title.as_str(), s.bibliography)).collect();
        assert_eq!(titles, vec![("Introduction", false), ("Results and a heading that", false), ("References", true)]);
        assert_eq!(found[0].offset, lines[4].offset);
    }

    #[test]
    fn numbered_headings_win_and_one_unnumbered_heading_is_no_structure() {
        let numbered = lines(&[("Title", true), ("text", false), ("1 Foo", true), ("Aside", true), ("2 Bar", true)]);
        let titles: Vec<String> = find(&numbered, &[], &[]).into_iter().map(|s| s.title).collect();
        assert_eq!(titles, vec!["1 Foo", "2 Bar"]);
        let single = lines(&[("Title", true), ("text", false), ("Aside", true), ("more text", false)]);
        assert_eq!(find(&single, &[], &[]), vec![]);
        // Sentences set large and lines without a word are no headings.
        for text in [
            "Counts fell, then rose.",
            "lower case start",
            "12 34",
            "A B C",
            "One two three four five six seven eight nine",
            "Figure 3",
            "Table 2: Counts by month",
        ] {
            assert!(!unnumbered_heading(text), "{text}");
        }
    }

    #[test]
    fn outline_entries_find_their_heading_line_on_their_page() {
        let lines = lines(&[("Title", true), ("1 Foo", true), ("text", false), ("2 Bar", true), ("more", false)]);
        let pages = vec![
            PageStart { offset: 0, number: 1, label: None },
            PageStart { offset: lines[3].offset, number: 2, label: None },
        ];
        let outline = vec![
            OutlineEntry { title: "Foo".into(), page: 0, depth: 0 },
            OutlineEntry { title: "Sub".into(), page: 0, depth: 1 },
            OutlineEntry { title: "Bar".into(), page: 1, depth: 0 },
        ];
        let found = find(&lines, &pages, &outline);
        assert_eq!(
            found.iter().map(|s| (s.title.as_str(), s.offset)).collect::<Vec<_>>(),
            vec![("Foo", lines[1].offset), ("Bar", lines[3].offset)]
        );
    }
}
