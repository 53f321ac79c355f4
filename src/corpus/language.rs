//! A document's language when nothing declares it (PDFs, HTML, a folder
//! without corpus.toml): the analysed language whose commonest words it uses
//! most, when that is clear.

/// The commonest words of each analysed language (none shared between them).
const MARKERS: &[(&str, &[&str])] = &[
    ("en", &["the", "and", "of", "to", "is", "that", "with", "which", "are", "this"]),
    ("de", &["der", "die", "und", "das", "ist", "nicht", "mit", "den", "sich", "auch"]),
    ("fr", &["le", "la", "les", "et", "des", "est", "une", "dans", "que", "pour"]),
];

/// Words read from the start of a text: enough to tell, bounded for long ones.
const SAMPLE_WORDS: usize = 20_000;

/// The language, if at least 20 of its marker words occur and twice as many as any other's.
pub(crate) fn guess_language(text: &str) -> Option<&'static str> {
    let mut counts = [0usize; MARKERS.len()];
    for word in text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()).take(SAMPLE_WORDS) {
        let word = word.to_lowercase();
        for (i, (_, markers)) in MARKERS.iter().enumerate() {
            if markers.contains(&word.as_str()) {
                counts[i] += 1;
            }
        }
    }
    let (best, &hits) = counts.iter().enumerate().max_by_key(|(_, n)| **n)?;
    let runner_up = counts.iter().enumerate().filter(|(i, _)| *i != best).map(|(_, n)| *n).max().unwrap_or(0);
    (hits >= 20 && hits >= 2 * runner_up).then_some(MARKERS[best].0)
}

#[cfg(test)]
mod tests {
    use super::guess_language;

    #[test]
    fn tells_english_german_and_french_and_stays_silent_on_little_text() {
        let en = "The moths of the valley are studied, and the counts of the traps show that this is so. ".repeat(4);
        let de = "Die Motten und die Fallen: das ist nicht die Frage, die sich mit den Zahlen auch stellt. ".repeat(4);
        let fr =
            "Les papillons et la vallée: le nombre des pièges est une question dans les champs pour que. ".repeat(4);
        assert_eq!(guess_language(&en), Some("en"));
        assert_eq!(guess_language(&de), Some("de"));
        assert_eq!(guess_language(&fr), Some("fr"));
        assert_eq!(guess_language("A short title"), None);
        assert_eq!(guess_language(""), None);
    }
}
