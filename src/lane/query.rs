//! A query as every lane reads it: quoted phrases that must occur, and the
//! free text around them. Pure string handling; each lane analyses it its own way.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ParsedQuery {
    /// Quoted spans, each required as a phrase.
    pub(crate) phrases: Vec<String>,
    /// Everything outside quotes.
    pub(crate) free_text: String,
    /// Spellings the corpus holds of free-text words it lacks (filled by the
    /// searcher; see `lexical::variants`): the lexical lanes search them too.
    pub(crate) variants: Vec<SpellingVariant>,
}

/// A spelling of an asked word that the corpus holds, where the word itself occurs nowhere.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct SpellingVariant {
    /// The content word as asked.
    pub(crate) asked: String,
    /// The spelling found: a word one orthographic edit away, or (for a long
    /// word) the index's own term two edits from its stem.
    pub(crate) found: String,
    /// The analyzer whose index holds it, and the term it holds.
    pub(crate) analyzer: &'static str,
    pub(crate) term: String,
    /// How many passages hold that term.
    pub(crate) passages: u64,
}

/// Splits out `"quoted phrases"` (straight or typographic quotes). An unpaired
/// quote is ignored; every other character is left to the analyzers, which
/// drop punctuation.
pub(crate) fn parse_query(input: &str) -> ParsedQuery {
    let mut phrases = Vec::new();
    let mut free = String::new();
    let mut rest = input;
    loop {
        let Some(open) = rest.find(is_quote) else {
            free.push_str(rest);
            break;
        };
        let quote_len = rest[open..].chars().next().map_or(1, char::len_utf8);
        let after = &rest[open + quote_len..];
        match after.find(is_quote) {
            Some(close) => {
                free.push_str(&rest[..open]);
                free.push(' ');
                let phrase = after[..close].trim();
                if !phrase.is_empty() {
                    phrases.push(phrase.to_owned());
                }
                let close_len = after[close..].chars().next().map_or(1, char::len_utf8);
                rest = &after[close + close_len..];
            }
            None => {
                free.push_str(&rest[..open]);
                free.push(' ');
                free.push_str(after);
                break;
            }
        }
    }
    ParsedQuery { phrases, free_text: free.trim().to_owned(), variants: Vec::new() }
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\u{201c}' | '\u{201d}' | '\u{201e}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_become_phrases() {
        let q = parse_query(r#"origin "natural selection" of species"#);
        assert_eq!(q.phrases, vec!["natural selection"]);
        assert_eq!(q.free_text, "origin   of species");
    }

    #[test]
    fn unpaired_quote_and_syntax_characters_are_plain_text() {
        let q = parse_query(r#"natural (selection" -x* a:b"#);
        assert!(q.phrases.is_empty());
        assert!(q.free_text.contains("selection"));
        let q = parse_query("„Kampf um’s Daseyn“");
        assert_eq!(q.phrases, vec!["Kampf um’s Daseyn"]);
    }

    #[test]
    fn empty_quotes_are_dropped() {
        assert_eq!(parse_query(r#""" x"#).phrases, Vec::<String>::new());
    }
}
