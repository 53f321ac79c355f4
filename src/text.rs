//! Text primitives every layer shares: the words of a text as the linker and
//! coverage compare them, and a passage's mention of an entity.

use unicode_segmentation::UnicodeSegmentation;

/// One entity a passage mentions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    pub entity: String,
    /// The first alias that matched, as written in entities.jsonl.
    pub alias: String,
    pub count: u32,
    /// True when the matched alias belongs to several entities.
    pub ambiguous: bool,
}

/// Lower-cased words by UAX #29, with typographic apostrophes made plain so that
/// `um’s` and `um's` match.
pub fn normalized_words(text: &str) -> Vec<String> {
    text.unicode_words().map(|w| w.replace('\u{2019}', "'").to_lowercase()).collect()
}
