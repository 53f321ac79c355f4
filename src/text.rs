//! Text primitives every layer shares: the words of a text as the linker and
//! coverage compare them, and a passage's mention of an entity.

use unicode_segmentation::UnicodeSegmentation;

/// One entity a passage mentions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mention {
    pub(crate) entity: String,
    /// The first alias that matched, as written in entities.jsonl.
    pub(crate) alias: String,
    pub(crate) count: u32,
    /// True when the matched alias belongs to several entities.
    pub(crate) ambiguous: bool,
}

/// Where each line of a text starts, so that the line of any byte offset is a
/// binary search: looking up every passage of a document stays linear in its
/// length (counting newlines from the start each time was quadratic).
#[derive(Debug, Clone)]
pub(crate) struct LineIndex {
    /// Byte offsets just after each `\n`.
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let starts = text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1).collect();
        Self { starts, len: text.len() }
    }

    /// 1-based line number of a byte offset (offsets past the end count as the end).
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&start| start <= offset) + 1
    }
}

/// Lower-cased words by UAX #29, with typographic apostrophes made plain so that
/// `um’s` and `um's` match.
/// Bytes as lower-case hex (digests, tokens).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn normalized_words(text: &str) -> Vec<String> {
    text.unicode_words().map(normalized_word).collect()
}

/// One word as `normalized_words` gives it: lower-cased, typographic apostrophe made plain.
pub(crate) fn normalized_word(word: &str) -> String {
    word.replace('\u{2019}', "'").to_lowercase()
}

/// A normalised word's base when it is a possessive ("darwin's" → "darwin"):
/// a possessive names what its base names. The one place the rule lives; the
/// linker, coverage, the verdict and close names all ask here.
pub(crate) fn possessive_base(word: &str) -> Option<&str> {
    word.strip_suffix("'s").filter(|base| !base.is_empty())
}

/// A normalised word without its possessive ending, if it has one.
pub(crate) fn without_possessive(word: &str) -> &str {
    possessive_base(word).unwrap_or(word)
}

/// The names of a unit enum's values, in `ALL` order, computed at compile
/// time from its `const fn as_str`: `names_of!(Self::ALL, 5)`. The schema's
/// and the CLI's choices come from here, never from a copied list.
macro_rules! names_of {
    ($all:expr, $n:expr) => {{
        let mut names = [""; $n];
        let mut i = 0;
        while i < $n {
            names[i] = $all[i].as_str();
            i += 1;
        }
        names
    }};
}
pub(crate) use names_of;

/// The value of `all` named `s`, or a message listing the names (`what` names the kind).
pub(crate) fn parse_named<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str, what: &str) -> Result<T, String> {
    all.iter().copied().find(|v| name(*v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|v| name(*v)).collect();
        format!("unknown {what} `{s}`; one of: {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Colour {
        Red,
        Blue,
    }

    impl Colour {
        const ALL: [Colour; 2] = [Colour::Red, Colour::Blue];
        const NAMES: [&'static str; 2] = names_of!(Self::ALL, 2);
        const fn as_str(self) -> &'static str {
            match self {
                Colour::Red => "red",
                Colour::Blue => "blue",
            }
        }
    }

    #[test]
    fn names_follow_the_enum_and_parsing_lists_them() {
        assert_eq!(Colour::NAMES, ["red", "blue"]);
        assert_eq!(parse_named(&Colour::ALL, Colour::as_str, "blue", "colour"), Ok(Colour::Blue));
        assert_eq!(
            parse_named(&Colour::ALL, Colour::as_str, "green", "colour"),
            Err("unknown colour `green`; one of: red, blue".to_owned())
        );
    }

    #[test]
    fn line_index_agrees_with_counting_newlines() {
        let text = "a\nbb\n\nccc\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            let counted = text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1;
            assert_eq!(index.line_of(offset), counted, "offset {offset}");
        }
    }

    #[test]
    fn words_are_lower_cased_with_plain_apostrophes() {
        assert_eq!(normalized_words("Kampf um’s Daseyn"), ["kampf", "um's", "daseyn"]);
    }
}
