//! The corpus's BibTeX/BibLaTeX files (`*.bib` at the root: `references.bib`,
//! or the file a Zotero collection export writes beside its `files/`): an
//! entry describes the PDF its `file` field names, or the PDF whose file stem
//! is its citation key, and overrides what the PDF says of itself.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, FileLocation, IoContext, Result};

/// What an entry says of a work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BibEntry {
    /// The citation key: the work's id.
    pub(crate) key: String,
    pub(crate) title: Option<String>,
    /// "Given Family", in the entry's order.
    pub(crate) authors: Vec<String>,
    pub(crate) year: Option<i32>,
}

/// Entries by the file they describe (relative path, `/`-separated) and by key.
#[derive(Debug, Default)]
pub(crate) struct Bibliography {
    by_file: HashMap<String, BibEntry>,
    by_name: HashMap<String, BibEntry>,
    by_key: HashMap<String, BibEntry>,
}

impl Bibliography {
    /// Reads `.bib` files (paths relative to the corpus root as `relative`).
    pub(crate) fn load(files: &[(&Path, &str)]) -> Result<Self> {
        let mut bibliography = Self::default();
        for (path, relative) in files {
            let bytes = std::fs::read(path).at(relative)?;
            let text = super::decode_utf8(bytes, relative)?;
            bibliography.add(&text, relative)?;
        }
        Ok(bibliography)
    }

    fn add(&mut self, text: &str, relative: &str) -> Result<()> {
        let parsed = biblatex::Bibliography::parse(text).map_err(|e| Error::BibliographyInvalid {
            location: FileLocation::line(relative, super::line_of_offset(text, e.span.start)),
            reason: e.kind.to_string(),
        })?;
        for entry in parsed.iter() {
            let described = BibEntry {
                key: entry.key.clone(),
                title: entry.title().ok().map(biblatex::ChunksExt::format_verbatim).map(|t| clean_braces(&t)),
                authors: entry
                    .author()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| format!("{} {}", p.given_name, p.name).trim().to_owned())
                    .collect(),
                year: match entry.date() {
                    Ok(biblatex::PermissiveType::Typed(date)) => Some(match date.value {
                        biblatex::DateValue::At(d) | biblatex::DateValue::After(d) | biblatex::DateValue::Before(d) => {
                            d.year
                        }
                        biblatex::DateValue::Between(d, _) => d.year,
                    }),
                    _ => None,
                },
            };
            for file in entry.file().map(|f| attached_files(&f)).unwrap_or_default() {
                let name = file.rsplit('/').next().unwrap_or(&file).to_owned();
                self.by_name.entry(name).or_insert_with(|| described.clone());
                self.by_file.entry(file).or_insert_with(|| described.clone());
            }
            self.by_key.entry(described.key.clone()).or_insert(described);
        }
        Ok(())
    }

    /// The entry describing the PDF at `relative`: by its path, its file name, else its stem as key.
    pub(crate) fn entry_for(&self, relative: &str) -> Option<&BibEntry> {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        self.by_file.get(relative).or_else(|| self.by_name.get(name)).or_else(|| self.by_key.get(stem))
    }
}

/// The paths a `file` field names. Zotero and JabRef write
/// `description:path:mime-type`, several joined by `;`; others write a path.
fn attached_files(field: &str) -> Vec<String> {
    field
        .split(';')
        .filter_map(|part| {
            let part = part.trim();
            let fields: Vec<&str> = part.split(':').collect();
            let path = match fields.as_slice() {
                [_, path, _] => path,
                _ => part,
            };
            let path = path.replace('\\', "/");
            let path = path.trim_start_matches("./");
            path.to_ascii_lowercase().ends_with(".pdf").then(|| path.to_owned())
        })
        .collect()
}

/// `{DNA}` and `\emph{x}` braces kept by verbatim formatting, gone.
fn clean_braces(text: &str) -> String {
    text.replace(['{', '}'], "").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIB: &str = r#"
@article{fenwick2019lantern,
  author = {Fenwick, Ada and Okafor, Rui},
  title = {Lantern Moths of the {Quartz} Valley},
  journal = {Journal of Reproducible Fixtures},
  year = {2019},
  file = {Full Text PDF:files/12/Fenwick - 2019 - Lantern Moths.pdf:application/pdf}
}
@book{darwin1859,
  author = {Charles Darwin},
  title = {On the Origin of Species},
  date = {1859-11-24}
}
"#;

    #[test]
    fn entries_describe_the_pdf_their_file_field_names_or_their_key_names() {
        let mut bib = Bibliography::default();
        bib.add(BIB, "references.bib").unwrap();
        let by_path = bib.entry_for("files/12/Fenwick - 2019 - Lantern Moths.pdf").unwrap();
        assert_eq!(by_path.key, "fenwick2019lantern");
        assert_eq!(by_path.title.as_deref(), Some("Lantern Moths of the Quartz Valley"));
        assert_eq!(by_path.authors, vec!["Ada Fenwick", "Rui Okafor"]);
        assert_eq!(by_path.year, Some(2019));
        // Moved into another folder: still found by its file name.
        assert_eq!(bib.entry_for("papers/Fenwick - 2019 - Lantern Moths.pdf").unwrap().key, "fenwick2019lantern");
        // No file field: the PDF named after the key.
        let darwin = bib.entry_for("books/darwin1859.pdf").unwrap();
        assert_eq!((darwin.year, darwin.authors.clone()), (Some(1859), vec!["Charles Darwin".to_owned()]));
        assert!(bib.entry_for("other.pdf").is_none());
    }

    #[test]
    fn a_malformed_bib_file_is_refused_with_its_line() {
        let mut bib = Bibliography::default();
        let error = bib.add("@article{a,\n  title = {unclosed\n", "refs.bib").unwrap_err().to_string();
        assert!(error.starts_with("refs.bib:"), "{error}");
        assert!(error.contains("invalid bibliography"), "{error}");
    }
}
