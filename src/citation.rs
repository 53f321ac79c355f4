//! A short citation of a passage from a paged source: "Fenwick and Okafor 2019,
//! p. ii". Author–year with the printed page label where the PDF defines one
//! (the page a reader finds in the printed copy), else the physical page.

use crate::passage::PageSpan;

/// The citation of `pages` of a work by `authors` (as written: "Ada Fenwick"
/// or "Fenwick, A."), falling back to the title when no author is known.
pub(crate) fn cite(authors: &[String], year: Option<i32>, title: Option<&str>, pages: &PageSpan) -> String {
    let surnames: Vec<&str> = authors.iter().filter_map(|a| surname(a)).collect();
    let who = match surnames.as_slice() {
        [] => title.map(short_title).unwrap_or_else(|| "Anonymous".to_owned()),
        [one] => (*one).to_owned(),
        [one, two] => format!("{one} and {two}"),
        [first, ..] => format!("{first} et al."),
    };
    let when = year.map_or_else(|| "n.d.".to_owned(), |y| y.to_string());
    format!("{who} {when}, {}", page_reference(pages))
}

/// "p. 7", "pp. 7–8", with the printed labels where both ends have one.
pub(crate) fn page_reference(pages: &PageSpan) -> String {
    let (start, end) = match (&pages.label_start, &pages.label_end) {
        (Some(start), Some(end)) => (start.clone(), end.clone()),
        _ => (pages.start.to_string(), pages.end.to_string()),
    };
    if start == end { format!("p. {start}") } else { format!("pp. {start}\u{2013}{end}") }
}

fn surname(author: &str) -> Option<&str> {
    let author = author.trim();
    match author.split_once(',') {
        Some((family, _)) if !family.trim().is_empty() => Some(family.trim()),
        _ => author.split_whitespace().last(),
    }
}

/// A title cut to its first five words, quoted, for works without an author.
fn short_title(title: &str) -> String {
    let words: Vec<&str> = title.split_whitespace().collect();
    let cut = words.iter().take(5).copied().collect::<Vec<_>>().join(" ");
    if words.len() > 5 { format!("\u{201c}{cut}\u{2026}\u{201d}") } else { format!("\u{201c}{cut}\u{201d}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(start: u32, end: u32, labels: Option<(&str, &str)>) -> PageSpan {
        PageSpan { start, end, label_start: labels.map(|l| l.0.to_owned()), label_end: labels.map(|l| l.1.to_owned()) }
    }

    #[test]
    fn author_year_and_page_as_a_reader_cites_them() {
        let two = vec!["Ada Fenwick".to_owned(), "Rui Okafor".to_owned()];
        assert_eq!(cite(&two, Some(2019), None, &pages(2, 2, Some(("ii", "ii")))), "Fenwick and Okafor 2019, p. ii");
        assert_eq!(cite(&two[..1], Some(2019), None, &pages(2, 3, None)), "Fenwick 2019, pp. 2\u{2013}3");
        let three = vec!["Smith, J.".to_owned(), "Lee, K.".to_owned(), "Roe, P.".to_owned()];
        assert_eq!(cite(&three, None, None, &pages(7, 7, None)), "Smith et al. n.d., p. 7");
        assert_eq!(
            cite(&[], Some(1859), Some("On the Origin of Species by Means of Natural Selection"), &pages(1, 1, None)),
            "\u{201c}On the Origin of Species\u{2026}\u{201d} 1859, p. 1"
        );
    }
}
