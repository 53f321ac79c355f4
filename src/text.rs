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
pub fn parse_named<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str, what: &str) -> Result<T, String> {
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
    fn words_are_lower_cased_with_plain_apostrophes() {
        assert_eq!(normalized_words("Kampf um’s Daseyn"), ["kampf", "um's", "daseyn"]);
    }
}
