//! PDF documents: the text layer of each page read by `pdf_oxide`, made into
//! one text a reader recognises (see `clean`) with a map from its byte offsets
//! to pages, the PDF's own metadata, and sections from its outline or its
//! numbered headings. Reading runs in a bounded child process (`guard`); this
//! module never touches an index.

mod clean;
pub(crate) mod guard;
mod layout;
mod sections;

use std::path::Path;

pub(crate) use layout::Line;
use sections::LineStart;
pub(crate) use sections::Section;

/// The extractor and its version, recorded in every PDF's provenance (a unit
/// test keeps it equal to Cargo.lock's).
pub(crate) const EXTRACTOR: &str = "pdf_oxide 0.3.78";

/// What the extractor read from a PDF: per page its lines, and the document's
/// labels, outline and metadata. Crosses the pipe from the child as JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Extracted {
    /// Each page's lines in reading order.
    pub pages: Vec<Vec<Line>>,
    /// The printed label of each page where the PDF defines labels.
    pub(crate) labels: Vec<Option<String>>,
    pub(crate) outline: Vec<OutlineEntry>,
    pub(crate) info: Info,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct OutlineEntry {
    pub(crate) title: String,
    /// 0-based page the entry points to.
    pub(crate) page: usize,
    /// 0 for top-level entries.
    pub(crate) depth: usize,
}

/// Bibliographic facts the file states about itself (info dictionary, XMP).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Info {
    pub(crate) title: Option<String>,
    pub(crate) authors: Vec<String>,
    pub(crate) year: Option<i32>,
}

/// Why a PDF gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ReadFailure {
    #[error("encrypted (it needs a password); decrypt it, e.g. `qpdf --decrypt`, and build again")]
    Encrypted,
    #[error("not a readable PDF ({0})")]
    Unreadable(String),
    #[error("reading it took longer than {0} s; it was stopped")]
    TimedOut(u64),
    #[error("the extractor died reading it (a malformed file, or more than {0} MiB of memory)")]
    Crashed(u64),
}

/// A PDF's text as passages are cut from it.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfText {
    /// Pages joined in reading order; its sha256 is recorded beside the PDF's.
    pub text: String,
    /// Where each physical page starts in `text` (byte offset), 1-based numbers.
    pub(crate) pages: Vec<PageStart>,
    pub(crate) pages_total: usize,
    /// Pages whose text layer is empty (scans).
    pub(crate) pages_without_text: usize,
    pub(crate) sections: Vec<Section>,
    pub(crate) info: Info,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageStart {
    pub(crate) offset: usize,
    pub(crate) number: u32,
    pub(crate) label: Option<String>,
}

/// The page a byte offset of the text falls on.
pub(crate) fn page_at(pages: &[PageStart], offset: usize) -> Option<&PageStart> {
    let after = pages.partition_point(|p| p.offset <= offset);
    pages.get(after.checked_sub(1)?)
}

/// Reads a PDF in this process (the child's work; see `guard` for the bounds).
pub fn read_file(path: &Path) -> Result<Extracted, ReadFailure> {
    let unreadable = |e: pdf_oxide::Error| ReadFailure::Unreadable(first_line(&e.to_string()));
    let doc = pdf_oxide::PdfDocument::open(path).map_err(unreadable)?;
    if doc.is_encrypted() && !doc.is_authenticated() {
        return Err(ReadFailure::Encrypted);
    }
    let count = doc.page_count().map_err(unreadable)?;
    let mut pages = Vec::with_capacity(count);
    for index in 0..count {
        let words = doc.extract_words(index).map_err(|e| match e.to_string() {
            m if m.contains("encrypted") => ReadFailure::Encrypted,
            m => ReadFailure::Unreadable(format!("page {}: {}", index + 1, first_line(&m))),
        })?;
        let boxes: Vec<layout::WordBox> = words
            .into_iter()
            .map(|w| layout::WordBox {
                x: w.bbox.x,
                y: w.bbox.y,
                width: w.bbox.width,
                height: w.bbox.height,
                text: w.text,
            })
            .collect();
        let lines = layout::lines(&boxes)
            .into_iter()
            .map(|l| Line { text: clean::normalize(&l.text), size: l.size })
            .filter(|l| !l.text.trim().is_empty())
            .collect();
        pages.push(lines);
    }
    Ok(Extracted { labels: labels(&doc, count), outline: outline(&doc), info: info(&doc), pages })
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim_end_matches('.').to_owned()
}

fn labels(doc: &pdf_oxide::PdfDocument, count: usize) -> Vec<Option<String>> {
    let ranges = pdf_oxide::extractors::PageLabelExtractor::extract(doc).unwrap_or_default();
    (0..count)
        .map(|page| {
            let range = ranges.iter().rev().find(|r| r.start_page <= page)?;
            Some(range.format_label(page)).filter(|l| !l.is_empty())
        })
        .collect()
}

fn outline(doc: &pdf_oxide::PdfDocument) -> Vec<OutlineEntry> {
    fn walk(doc: &pdf_oxide::PdfDocument, items: &[pdf_oxide::OutlineItem], depth: usize, out: &mut Vec<OutlineEntry>) {
        for item in items {
            let page = match &item.dest {
                Some(pdf_oxide::Destination::PageIndex(page)) => Some(*page),
                Some(pdf_oxide::Destination::Named(name)) => doc.resolve_named_destination(name).ok().flatten(),
                None => None,
            };
            if let Some(page) = page {
                out.push(OutlineEntry { title: clean::normalize(&item.title).trim().to_owned(), page, depth });
            }
            // Deeply nested outlines are sections of sections; three levels are plenty.
            if depth < 3 {
                walk(doc, &item.children, depth + 1, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Ok(Some(items)) = doc.get_outline() {
        walk(doc, &items, 0, &mut out);
    }
    out
}

fn info(doc: &pdf_oxide::PdfDocument) -> Info {
    let xmp = pdf_oxide::extractors::xmp::XmpExtractor::extract(doc).ok().flatten();
    let field = |key: &str| -> Option<String> {
        let dict = doc.trailer().as_dict()?;
        let info = doc.resolve_object(dict.get("Info")?).ok()?;
        let value = doc.resolve_object(info.as_dict()?.get(key)?).ok()?;
        let text = decode_text_string(value.as_string()?);
        Some(text.trim().to_owned()).filter(|t| !t.is_empty())
    };
    let title = xmp.as_ref().and_then(|x| x.dc_title.clone()).or_else(|| field("Title"));
    let authors = match xmp.as_ref().map(|x| x.dc_creator.clone()).filter(|c| !c.is_empty()) {
        Some(creators) => creators,
        None => field("Author").map(|a| split_authors(&a)).unwrap_or_default(),
    };
    let date = field("CreationDate").or_else(|| xmp.as_ref().and_then(|x| x.xmp_create_date.clone()));
    Info {
        title: title.map(|t| clean::normalize(&t)).filter(|t| !t.trim().is_empty()),
        authors,
        year: date.as_deref().and_then(year_of_date),
    }
}

/// "Ada Fenwick and Rui Okafor", "Fenwick, A.; Okafor, R." → one name each.
fn split_authors(text: &str) -> Vec<String> {
    let separators: &[&str] = if text.contains(';') { &[";"] } else { &[" and ", " und ", " & ", ","] };
    let mut names = vec![text.to_owned()];
    for sep in separators {
        names = names.iter().flat_map(|n| n.split(sep).map(str::to_owned).collect::<Vec<_>>()).collect();
    }
    names.into_iter().map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()).collect()
}

/// A PDF date ("D:20190101…") or an ISO date: its year.
fn year_of_date(date: &str) -> Option<i32> {
    let digits = date.trim().trim_start_matches("D:");
    let year: i32 = digits.get(..4)?.parse().ok()?;
    (1400..=2200).contains(&year).then_some(year)
}

/// A PDF text string: UTF-16BE with its byte order mark, UTF-8 with its own, else PDFDocEncoding
/// (read as Latin-1, which it equals for letters).
fn decode_text_string(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = utf16.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(utf8) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(utf8).into_owned();
    }
    bytes.iter().map(|&b| b as char).collect()
}

/// Lines set this much larger than the body text are headings (or a title).
const LARGER_TYPE: f32 = 1.15;

/// Makes the document text of an extraction: running lines removed, lines
/// joined with words rejoined across line and page ends, headings set apart as
/// paragraphs of their own, and a page map.
pub fn assemble(mut extracted: Extracted) -> PdfText {
    let pages_total = extracted.pages.len();
    let pages_without_text = extracted.pages.iter().filter(|p| p.is_empty()).count();
    let body = layout::median(extracted.pages.iter().flatten().map(|l| l.size).collect());
    let larger = |line: &Line| body > 0.0 && line.size >= body * LARGER_TYPE;
    clean::strip_running_lines(&mut extracted.pages, larger);
    if extracted.info.title.is_none() {
        extracted.info.title = title_block(&extracted.pages, body);
    }
    let dehyphenator = clean::Dehyphenator::new(extracted.pages.iter().flatten().map(|l| l.text.as_str()));
    let mut out = Writer::default();
    for (index, lines) in extracted.pages.iter().enumerate() {
        let mut start = None;
        for line in lines {
            let mut rest = line.text.as_str();
            if let Some(keep) = out.broken_word().and_then(|previous| dehyphenator.join(previous, rest)) {
                let (tail, after) = split_first_word(rest);
                out.mend(keep, tail);
                rest = after;
            }
            if !rest.is_empty() {
                let offset = out.line(rest, larger(line));
                start.get_or_insert(offset);
            }
        }
        let label = extracted.labels.get(index).cloned().flatten();
        let offset = start.unwrap_or(out.text.len());
        out.pages.push(PageStart { offset, number: index as u32 + 1, label });
    }
    let sections = sections::find(&out.lines, &out.pages, &extracted.outline);
    PdfText { text: out.text, pages: out.pages, pages_total, pages_without_text, sections, info: extracted.info }
}

/// The title a first page shows when the file states none: the run of lines
/// set in its largest type, if that is clearly larger than the body text and
/// among its first ten lines.
fn title_block(pages: &[Vec<Line>], body: f32) -> Option<String> {
    let first = pages.iter().find(|p| !p.is_empty())?;
    let top = &first[..first.len().min(10)];
    let largest = top.iter().map(|l| l.size).fold(0.0, f32::max);
    if body <= 0.0 || largest < body * LARGER_TYPE {
        return None;
    }
    let start = top.iter().position(|l| l.size == largest)?;
    let title: Vec<&str> = top[start..].iter().take_while(|l| l.size == largest).map(|l| l.text.trim()).collect();
    Some(title.join(" ")).filter(|t| t.chars().any(char::is_alphabetic))
}

#[derive(Default)]
struct Writer {
    text: String,
    pages: Vec<PageStart>,
    lines: Vec<LineStart>,
    /// The last line was a heading: the next starts a paragraph.
    after_heading: bool,
}

impl Writer {
    /// Appends a line; returns where it starts.
    fn line(&mut self, text: &str, larger: bool) -> usize {
        if !self.text.is_empty() {
            self.text.push('\n');
            if larger || self.after_heading {
                self.text.push('\n');
            }
        }
        self.after_heading = larger;
        let offset = self.text.len();
        self.text.push_str(text);
        self.lines.push(LineStart { offset, text: text.to_owned(), larger });
        offset
    }

    /// The last line, if a word may continue from it on the next.
    fn broken_word(&self) -> Option<&str> {
        let last = self.lines.last()?;
        (!self.after_heading && self.text.ends_with('-')).then(|| &self.text[last.offset..])
    }

    /// Finishes the last line's broken word with the next line's first word.
    fn mend(&mut self, keep: clean::KeepHyphen, tail: &str) {
        if !keep.0 {
            self.text.pop();
        }
        self.text.push_str(tail);
    }
}

fn split_first_word(line: &str) -> (&str, &str) {
    let line = line.trim_start();
    let end = line.find(char::is_whitespace).unwrap_or(line.len());
    (&line[..end], line[end..].trim_start())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extracted(pages: &[&[&str]]) -> Extracted {
        Extracted {
            pages: pages.iter().map(|p| p.iter().map(|l| Line { text: l.to_string(), size: 10.0 }).collect()).collect(),
            labels: vec![None; pages.len()],
            outline: Vec::new(),
            info: Info::default(),
        }
    }

    #[test]
    fn the_extractor_named_in_provenance_is_the_one_built() {
        let lock = include_str!("../../Cargo.lock");
        let (name, version) = EXTRACTOR.split_once(' ').unwrap();
        assert!(
            lock.contains(&format!("name = \"{name}\"\nversion = \"{version}\"")),
            "{EXTRACTOR} is not in Cargo.lock"
        );
    }

    #[test]
    fn words_are_rejoined_across_lines_and_pages_and_each_page_is_mapped() {
        let text = assemble(extracted(&[
            &["Header", "Lorem ipsum dolor sit amet, adip-", "iscing elit. A well-", "known fact and the com-"],
            &["Header", "mon case of a hyphen-", "ated word. It is well-known."],
        ]));
        assert_eq!(
            text.text,
            "Lorem ipsum dolor sit amet, adipiscing\nelit. A well-known\nfact and the common\ncase of a hyphenated\nword. It is well-known."
        );
        // Page 2 starts after the word finished on page 1.
        let second = text.pages[1].offset;
        assert!(text.text[second..].starts_with("case of"), "{:?}", &text.text[second..]);
        assert_eq!(page_at(&text.pages, 0).unwrap().number, 1);
        assert_eq!(page_at(&text.pages, second).unwrap().number, 2);
        assert_eq!(page_at(&text.pages, text.text.len() - 1).unwrap().number, 2);
    }

    #[test]
    fn a_page_without_text_is_counted_and_mapped_to_nothing() {
        let text = assemble(extracted(&[&["One page of text."], &[], &["Another."]]));
        assert_eq!(text.pages_without_text, 1);
        assert_eq!(text.text, "One page of text.\nAnother.");
        assert_eq!(text.pages.iter().map(|p| (p.offset, p.number)).collect::<Vec<_>>(), vec![(0, 1), (17, 2), (18, 3)]);
    }

    #[test]
    fn without_a_stated_title_the_largest_type_on_the_first_page_is_the_title() {
        let line = |text: &str, size: f32| Line { text: text.into(), size };
        let mut pages = extracted(&[]);
        pages.pages = vec![vec![
            line("Lantern Moths of", 17.0),
            line("the Quartz Valley", 17.0),
            line("Ada Fenwick", 12.0),
            line("1 Introduction", 14.0),
            line("Body text on the first page.", 10.0),
            line("More body text.", 10.0),
            line("And more.", 10.0),
        ]];
        assert_eq!(assemble(pages.clone()).info.title.as_deref(), Some("Lantern Moths of the Quartz Valley"));
        // A stated title wins; a page in body type only has none.
        pages.info.title = Some("Stated".into());
        assert_eq!(assemble(pages).info.title.as_deref(), Some("Stated"));
        assert_eq!(assemble(extracted(&[&["Plain text.", "More."]])).info.title, None);
    }

    #[test]
    fn metadata_strings_decode_and_name_lists_split() {
        assert_eq!(decode_text_string(&[0xFE, 0xFF, 0, b'A', 0, 0xE9]), "Aé");
        assert_eq!(decode_text_string(b"Caf\xe9"), "Café");
        assert_eq!(split_authors("Ada Fenwick and Rui Okafor"), vec!["Ada Fenwick", "Rui Okafor"]);
        assert_eq!(split_authors("Fenwick, A.; Okafor, R."), vec!["Fenwick, A.", "Okafor, R."]);
        assert_eq!(year_of_date("D:20190101000000Z"), Some(2019));
        assert_eq!(year_of_date("2011-05-03T10:00:00"), Some(2011));
        assert_eq!(year_of_date("D:00001"), None);
    }
}
