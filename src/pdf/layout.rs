//! Reading order from word boxes: a recursive XY-cut. A region is split at a
//! vertical gutter that runs its full height beside a column of at least three
//! lines (columns, read left to right) before it is split at a horizontal
//! gap (blocks, read top to bottom): the topmost gap at least half as wide as
//! its widest, so a title block is cut off first, and a column that ends early
//! does not split the page below it. A title over two columns reads title, left
//! column, right column; a figure across both columns splits them above and below.

/// A word on the page: its box in PDF user space (y grows upwards) and its text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WordBox {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
    pub(crate) text: String,
}

/// A line of the page in reading order; `size` is its words' median height.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    pub(crate) text: String,
    pub(crate) size: f32,
}

/// A gutter is at least this share of the text size wide (inter-word spaces
/// are about a quarter of it; LaTeX's column gap is one).
const GUTTER_SHARE: f32 = 0.8;

/// One side of a gutter holds at least this many lines (a title block's names and date
/// make no columns; a column that holds the last two lines of a page does).
const COLUMN_LINES: usize = 3;

/// Orders a page's words into lines in reading order.
pub(crate) fn lines(words: &[WordBox]) -> Vec<Line> {
    let mut boxes: Vec<&WordBox> = words.iter().filter(|w| !w.text.trim().is_empty() && w.height > 0.0).collect();
    if boxes.is_empty() {
        return Vec::new();
    }
    let size = median(boxes.iter().map(|w| w.height).collect());
    let mut out = Vec::new();
    cut(&mut boxes, size, &mut out);
    out
}

fn cut(region: &mut [&WordBox], size: f32, out: &mut Vec<Line>) {
    if let Some(at) = vertical_gutter(region, size * GUTTER_SHARE) {
        let (left, right) = partition(region, |w| w.x + w.width <= at);
        cut(left, size, out);
        cut(right, size, out);
        return;
    }
    if let Some(at) = blocking_band(region, size).or_else(|| horizontal_cut(region)) {
        let (top, bottom) = partition(region, |w| w.y >= at);
        cut(top, size, out);
        cut(bottom, size, out);
        return;
    }
    // One band of text. Tall glyphs (formulas, sub- and superscripts) can join
    // two lines in one band: words go to the line whose middle is near theirs.
    region.sort_by(|a, b| middle(b).total_cmp(&middle(a)));
    let mut band: Vec<Vec<&WordBox>> = Vec::new();
    for word in region.iter() {
        match band.last_mut() {
            Some(line) if (middle(line[0]) - middle(word)).abs() <= 0.5 * line[0].height.min(word.height) => {
                line.push(word)
            }
            _ => band.push(vec![word]),
        }
    }
    for mut line in band {
        line.sort_by(|a, b| a.x.total_cmp(&b.x));
        let text = line.iter().map(|w| w.text.trim()).collect::<Vec<_>>().join(" ");
        out.push(Line { text, size: median(line.iter().map(|w| w.height).collect()) });
    }
}

fn middle(word: &WordBox) -> f32 {
    word.y + word.height / 2.0
}

/// Moves the words `first` accepts to the front; returns both parts.
fn partition<'r, 'w>(
    region: &'r mut [&'w WordBox],
    first: impl Fn(&WordBox) -> bool,
) -> (&'r mut [&'w WordBox], &'r mut [&'w WordBox]) {
    region.sort_by_key(|w| !first(w));
    let split = region.iter().take_while(|w| first(w)).count();
    region.split_at_mut(split)
}

/// The middle of the widest uncovered x-interval that is at least `min` wide
/// and has a column of at least `COLUMN_LINES` lines on one side.
fn vertical_gutter(region: &[&WordBox], min: f32) -> Option<f32> {
    let (width, at) =
        holes(region.iter().map(|w| (w.x, w.x + w.width)).collect()).into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let lines = |side: Vec<&WordBox>| holes(side.iter().map(|w| (w.y, w.y + w.height)).collect()).len() + 1;
    let (left, right): (Vec<&WordBox>, Vec<&WordBox>) = region.iter().partition(|w| w.x + w.width <= at);
    (width >= min && lines(left).max(lines(right)) >= COLUMN_LINES).then_some(at)
}

/// A running header, footer or page number that blocks the gutter: a band of at
/// most two lines at the top or the bottom of the region, a line's height away
/// from the rest, without which the rest has a gutter. Cut off first, it cannot
/// join the columns it sits over or under. Peeling both ends is tried before
/// the bottom alone, then the top alone (a column may start beside a heading).
fn blocking_band(region: &[&WordBox], size: f32) -> Option<f32> {
    let gaps = holes(region.iter().map(|w| (w.y, w.y + w.height)).collect());
    let last = gaps.len().checked_sub(1)?;
    let wide = |i: &usize| gaps[*i].0 >= size;
    // Gaps run bottom to top: gaps[0] has one band below it, gaps[last] one band above.
    let top = [last, last.saturating_sub(1)].into_iter().filter(|&i| i > 1).find(wide).map(|i| gaps[i].1);
    let bottom = [0, 1].into_iter().filter(|&i| i < last).find(wide).map(|i| gaps[i].1);
    let core_has_gutter = |above: Option<f32>, below: Option<f32>| {
        let core: Vec<&WordBox> = region
            .iter()
            .filter(|w| above.is_none_or(|at| w.y < at) && below.is_none_or(|at| w.y >= at))
            .copied()
            .collect();
        core.len() < region.len() && vertical_gutter(&core, size * GUTTER_SHARE).is_some()
    };
    [(top, bottom), (None, bottom), (top, None)]
        .into_iter()
        .filter(|(above, below)| above.is_some() || below.is_some())
        .find(|(above, below)| core_has_gutter(*above, *below))
        .and_then(|(above, below)| above.or(below))
}

/// Where to cut a region into an upper and a lower block: the middle of the
/// topmost uncovered y-interval at least half as wide as the widest.
fn horizontal_cut(region: &[&WordBox]) -> Option<f32> {
    let gaps = holes(region.iter().map(|w| (w.y, w.y + w.height)).collect());
    let widest = gaps.iter().map(|g| g.0).fold(0.0, f32::max);
    // y grows upwards: the topmost gap is the one with the largest middle.
    gaps.into_iter().filter(|g| g.0 >= widest / 2.0).map(|g| g.1).max_by(f32::total_cmp)
}

/// The gaps in the union of intervals: (width, middle) each, in order.
fn holes(mut spans: Vec<(f32, f32)>) -> Vec<(f32, f32)> {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(first) = spans.first() else { return Vec::new() };
    let mut reach = first.1;
    let mut out = Vec::new();
    for &(start, end) in &spans[1..] {
        if start > reach {
            out.push((start - reach, (start + reach) / 2.0));
        }
        reach = reach.max(end);
    }
    out
}

impl AsRef<str> for Line {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

pub(super) fn median(mut values: Vec<f32>) -> f32 {
    values.sort_by(f32::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of a line of text set at (x, y) in 10-point type, 5 points per character.
    fn line_at(x: f32, y: f32, text: &str) -> Vec<WordBox> {
        let mut at = x;
        text.split(' ')
            .map(|word| {
                let w = WordBox { x: at, y, width: word.len() as f32 * 5.0, height: 10.0, text: word.into() };
                at += w.width + 2.5;
                w
            })
            .collect()
    }

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn a_title_over_two_columns_reads_title_then_left_then_right() {
        let mut words = line_at(150.0, 700.0, "A Title Across Both");
        for (i, y) in [650.0, 638.0, 626.0].into_iter().enumerate() {
            words.extend(line_at(72.0, y, &format!("left line {i} of the first column")));
            words.extend(line_at(310.0, y, &format!("right line {i} of the second")));
        }
        // The left column goes on after the right one ends, past a section gap.
        words.extend(line_at(72.0, 590.0, "2 Methods"));
        words.extend(line_at(72.0, 570.0, "left after the gap"));
        // The words arrive in content-stream order, interleaved across the columns.
        words.reverse();
        let lines = lines(&words);
        assert_eq!(
            texts(&lines),
            vec![
                "A Title Across Both",
                "left line 0 of the first column",
                "left line 1 of the first column",
                "left line 2 of the first column",
                "2 Methods",
                "left after the gap",
                "right line 0 of the second",
                "right line 1 of the second",
                "right line 2 of the second",
            ]
        );
    }

    #[test]
    fn a_figure_across_both_columns_splits_them_above_and_below() {
        let mut words = Vec::new();
        for (i, y) in [700.0, 688.0, 676.0].into_iter().enumerate() {
            words.extend(line_at(72.0, y, &format!("upper left {i} text here")));
            words.extend(line_at(310.0, y, &format!("upper right {i} text")));
        }
        words.extend(line_at(72.0, 650.0, "Figure 1: a caption that runs across the whole width of the page body"));
        for (i, y) in [610.0, 598.0, 586.0].into_iter().enumerate() {
            words.extend(line_at(72.0, y, &format!("lower left {i} text here")));
            words.extend(line_at(310.0, y, &format!("lower right {i} text")));
        }
        let order = texts(&lines(&words)).join(" | ");
        assert_eq!(
            order,
            "upper left 0 text here | upper left 1 text here | upper left 2 text here | \
             upper right 0 text | upper right 1 text | upper right 2 text | \
             Figure 1: a caption that runs across the whole width of the page body | \
             lower left 0 text here | lower left 1 text here | lower left 2 text here | \
             lower right 0 text | lower right 1 text | lower right 2 text"
        );
    }

    #[test]
    fn two_lines_joined_by_a_tall_formula_keep_their_words_apart() {
        let mut words = line_at(72.0, 700.0, "first line of prose");
        words.extend(line_at(72.0, 688.0, "second line here"));
        // A summation sign spanning both lines leaves no gap between them.
        words.push(WordBox { x: 300.0, y: 686.0, width: 10.0, height: 26.0, text: "∑".into() });
        assert_eq!(texts(&lines(&words)), vec!["first line of prose", "∑", "second line here"]);
    }

    #[test]
    fn a_right_column_of_two_lines_is_still_a_column() {
        let mut words = Vec::new();
        for (i, y) in [700.0, 688.0, 676.0, 664.0].into_iter().enumerate() {
            words.extend(line_at(72.0, y, &format!("left line {i} of a full column")));
        }
        words.extend(line_at(310.0, 700.0, "the last two lines"));
        words.extend(line_at(310.0, 688.0, "of the page"));
        let lines = lines(&words);
        assert_eq!(texts(&lines)[3..], ["left line 3 of a full column", "the last two lines", "of the page"]);
    }

    #[test]
    fn a_page_number_under_the_gutter_does_not_join_a_column_that_starts_beside_a_heading() {
        let mut words = line_at(72.0, 720.0, "A Running Head");
        words.push(WordBox { x: 72.0, y: 700.0, width: 80.0, height: 14.0, text: "17 Chapter".into() });
        // The right column holds one line, level with the heading; the left goes on below.
        words.extend(line_at(310.0, 700.0, "the end of a paragraph"));
        for (i, y) in [676.0, 664.0, 652.0].into_iter().enumerate() {
            words.extend(line_at(72.0, y, &format!("left body line {i} here")));
        }
        words.push(WordBox { x: 302.0, y: 620.0, width: 5.0, height: 10.0, text: "17".into() });
        let lines = lines(&words);
        assert_eq!(
            texts(&lines),
            vec![
                "A Running Head",
                "17 Chapter",
                "left body line 0 here",
                "left body line 1 here",
                "left body line 2 here",
                "the end of a paragraph",
                "17"
            ]
        );
    }

    #[test]
    fn names_and_a_date_in_a_title_block_are_no_columns() {
        let mut words = line_at(220.0, 596.0, "Ada Fenwick");
        words.extend(line_at(334.0, 596.0, "Rui Okafor"));
        words.extend(line_at(294.0, 574.0, "2019"));
        assert_eq!(texts(&lines(&words)), vec!["Ada Fenwick Rui Okafor", "2019"]);
    }

    #[test]
    fn one_column_keeps_its_lines_and_word_spaces_never_split_a_line() {
        let mut words = line_at(72.0, 700.0, "one   wide   spaced   line");
        words.extend(line_at(72.0, 688.0, "and a second line"));
        assert_eq!(texts(&lines(&words)), vec!["one wide spaced line", "and a second line"]);
        assert!(lines(&[]).is_empty());
    }
}
