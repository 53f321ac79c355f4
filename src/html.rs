//! HTML documents: the main text without navigation, scripts and styles,
//! headings as sections, the title from `<title>` (else the first `<h1>`),
//! and a map from the text's byte offsets back into the source file. Tokens
//! come from `html5gum` (the WHATWG tokenizer) with their source spans.

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Span, Tokenizer};

/// Elements whose text is not the document's: code, styling, navigation, chrome.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "nav", "header", "footer", "aside", "form", "button",
    "select", "iframe", "object", "canvas", "head",
];
/// Elements that end a paragraph of text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "tr",
    "td",
    "th",
    "table",
    "section",
    "article",
    "main",
    "blockquote",
    "pre",
    "figure",
    "figcaption",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "body",
    "caption",
];
/// Elements with no end tag.
const VOID: &[&str] =
    &["br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "wbr", "track"];

/// A run of the text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) text_start: usize,
    pub(crate) text_end: usize,
    pub(crate) source_start: usize,
    pub(crate) source_end: usize,
    /// The run reads byte for byte as the source (no character reference in it).
    pub(crate) verbatim: bool,
}

/// A section: its heading's text and where the heading starts in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) title: String,
    pub(crate) offset: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct HtmlText {
    pub(crate) title: Option<String>,
    pub(crate) text: String,
    pub(crate) map: SourceMap,
    pub(crate) sections: Vec<Section>,
}

/// From byte offsets of the document text to byte offsets (and lines) of the source file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SourceMap {
    pieces: Vec<Piece>,
    /// Byte offsets just after each line break of the source.
    line_starts: Vec<usize>,
}

impl SourceMap {
    /// 1-based line of the source at byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) + 1
    }

    /// The source byte where text offset `at` starts (a run with character
    /// references maps to its own start, so a span never cuts its text).
    pub(crate) fn source_start(&self, at: usize) -> usize {
        match self.piece_at(at) {
            Some(p) if p.verbatim => p.source_start + (at - p.text_start).min(p.source_end - p.source_start),
            Some(p) => p.source_start,
            None => self.pieces.last().map_or(0, |p| p.source_end),
        }
    }

    /// The source byte where text ending at `at` ends.
    pub(crate) fn source_end(&self, at: usize) -> usize {
        match self.piece_at(at.saturating_sub(1)) {
            Some(p) if p.verbatim => p.source_start + (at - p.text_start).min(p.source_end - p.source_start),
            Some(p) => p.source_end,
            None => self.pieces.last().map_or(0, |p| p.source_end),
        }
    }

    fn piece_at(&self, at: usize) -> Option<&Piece> {
        let after = self.pieces.partition_point(|p| p.text_start <= at);
        self.pieces.get(after.checked_sub(1)?).filter(|p| at < p.text_end.max(p.text_start + 1))
    }
}

enum Event {
    Start(String),
    End(String),
    Text(String, Span<usize>),
}

fn events(source: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut open: Option<String> = None;
    let mut emitter = CallbackEmitter::new(|event: CallbackEvent<'_>, span: Span<usize>| {
        match event {
            CallbackEvent::OpenStartTag { name } => open = Some(String::from_utf8_lossy(name).to_lowercase()),
            CallbackEvent::CloseStartTag { .. } => {
                if let Some(name) = open.take() {
                    events.push(Event::Start(name));
                }
            }
            CallbackEvent::EndTag { name } => events.push(Event::End(String::from_utf8_lossy(name).to_lowercase())),
            CallbackEvent::String { value } => {
                events.push(Event::Text(String::from_utf8_lossy(value).into_owned(), span))
            }
            _ => {}
        }
        None::<std::convert::Infallible>
    });
    // Script and style bodies are raw text: the tokenizer must know it is inside one.
    emitter.naively_switch_states(true);
    let _ = Tokenizer::new_with_emitter(source, emitter).finish();
    events
}

/// Reads an HTML document.
pub(crate) fn read(source: &str) -> HtmlText {
    let events = events(source);
    // Where the page marks its main content, only that is the document.
    let scope = ["main", "article"]
        .into_iter()
        .find(|tag| events.iter().any(|e| matches!(e, Event::Start(name) if name == tag)));
    let mut out = HtmlText::default();
    out.map.line_starts = source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1).collect();
    let mut stack: Vec<String> = Vec::new();
    let mut title = String::new();
    let mut heading: Option<(String, usize)> = None;
    let mut first_h1: Option<String> = None;
    let mut pending_break = false;
    for event in events {
        match event {
            Event::Start(name) => {
                if BLOCKS.contains(&name.as_str()) {
                    pending_break = true;
                }
                if matches!(name.as_str(), "h1" | "h2") && !skipped(&stack, scope) {
                    heading = Some((String::new(), usize::MAX));
                }
                if !VOID.contains(&name.as_str()) {
                    stack.push(name);
                }
            }
            Event::End(name) => {
                if let Some(at) = stack.iter().rposition(|n| *n == name) {
                    stack.truncate(at);
                }
                if BLOCKS.contains(&name.as_str()) {
                    pending_break = true;
                }
                if matches!(name.as_str(), "h1" | "h2")
                    && let Some((text, offset)) = heading.take()
                {
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    if name == "h1" && first_h1.is_none() {
                        first_h1 = Some(text.clone());
                    }
                    if offset != usize::MAX && !text.is_empty() {
                        out.sections.push(Section { title: text, offset });
                    }
                }
            }
            Event::Text(text, span) => {
                if stack.last().is_some_and(|n| n == "title") {
                    title.push_str(&text);
                    continue;
                }
                if skipped(&stack, scope) || text.trim().is_empty() {
                    continue;
                }
                if pending_break && !out.text.is_empty() {
                    out.text.push_str("\n\n");
                }
                pending_break = false;
                let text_start = out.text.len();
                if let Some((heading_text, offset)) = heading.as_mut() {
                    heading_text.push_str(&text);
                    if *offset == usize::MAX {
                        *offset = text_start;
                    }
                }
                out.text.push_str(&text);
                let verbatim = source.get(span.start..span.end) == Some(text.as_str());
                out.map.pieces.push(Piece {
                    text_start,
                    text_end: out.text.len(),
                    source_start: span.start,
                    source_end: span.end,
                    verbatim,
                });
            }
        }
    }
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    out.title = Some(title).filter(|t| !t.is_empty()).or(first_h1);
    out
}

/// Whether text here is not the document's: inside a skipped element, or outside the main content.
fn skipped(stack: &[String], scope: Option<&str>) -> bool {
    stack.iter().any(|n| SKIPPED.contains(&n.as_str())) || scope.is_some_and(|s| !stack.iter().any(|n| n == s))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!DOCTYPE html><html><head><title>Lantern Moths</title><style>p { color: red }</style>\
        <script>var x = '<p>not text</p>';</script></head><body><nav><a href='/'>Home</a> | <a>About</a></nav>\
        <main><h1>Lantern Moths of the Quartz Valley</h1><p>The moths gather at dusk &amp; rest by day.</p>\
        <h2>Methods</h2><p>Every trap was checked<br>at midnight.</p></main><footer>© 2019</footer></body></html>";

    #[test]
    fn the_main_text_without_navigation_scripts_and_styles() {
        let html = read(PAGE);
        assert_eq!(html.title.as_deref(), Some("Lantern Moths"));
        assert_eq!(
            html.text,
            "Lantern Moths of the Quartz Valley\n\nThe moths gather at dusk & rest by day.\n\nMethods\n\nEvery trap was checked\n\nat midnight."
        );
        let titles: Vec<&str> = html.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, vec!["Lantern Moths of the Quartz Valley", "Methods"]);
        assert!(html.text[html.sections[1].offset..].starts_with("Methods"));
    }

    #[test]
    fn spans_point_into_the_source_and_never_cut_a_character_reference() {
        let html = read(PAGE);
        let at = html.text.find("Every trap").unwrap();
        let (start, end) = (html.map.source_start(at), html.map.source_end(at + "Every trap".len()));
        assert_eq!(&PAGE[start..end], "Every trap");
        assert_eq!(html.map.line_of(start), 1);
        // "dusk & rest" holds a reference: the span widens to the whole run, which holds it.
        let at = html.text.find("dusk & rest").unwrap();
        let (start, end) = (html.map.source_start(at), html.map.source_end(at + "dusk & rest".len()));
        assert!(PAGE[start..end].contains("dusk &amp; rest"), "{}", &PAGE[start..end]);
    }

    #[test]
    fn without_main_the_body_is_the_document_and_the_first_h1_the_title() {
        let html = read("<body><h1>A Note</h1><p>Plain text.</p><script>x()</script></body>");
        assert_eq!(html.title.as_deref(), Some("A Note"));
        assert_eq!(html.text, "A Note\n\nPlain text.");
    }
}
