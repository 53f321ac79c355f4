//! Lookups by passage id: get_passage, get_context, trace_source.

use crate::search::Reader;
use crate::store::PassageRow;
use crate::surface::Operation;
use crate::surface::envelope::{ChainLink, ContextWindow, Neighbours, ProvenanceChain, TextExtraction};
use crate::surface::{ErrorCode, ToolError, echo};
use crate::tools::args::Args;
use crate::tools::assemble::{Draft, Facts, Finished, Found, ItemBuilder, finish, pages};

fn passage(index: &Reader, id: &str) -> Result<PassageRow, ToolError> {
    let id = id.trim();
    index.passage(id)?.ok_or_else(|| {
        ToolError::new(
            ErrorCode::PassageNotFound,
            format!(
                "no passage `{}` in this index; ids look like \"p.<document>.<NNNN>\" and come from evidence items",
                echo(id)
            ),
        )
    })
}

pub(crate) fn get_passage(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let row = passage(index, args.required("passage_id")?)?;
    let around = index.passages_in_range(&row.document_id, row.ordinal.saturating_sub(1), row.ordinal + 1)?;
    let neighbours = Neighbours {
        previous: around.iter().find(|p| p.ordinal + 1 == row.ordinal).map(|p| p.passage_id.clone()),
        next: around.iter().find(|p| p.ordinal == row.ordinal + 1).map(|p| p.passage_id.clone()),
    };
    let mut builder = ItemBuilder::new(index);
    let mut item = builder.item(row, Found::Requested("requested by id"))?;
    item.neighbours = Some(neighbours);
    let mut draft = Draft::new(Operation::Lookup, args.understood());
    draft.evidence.push(item);
    Ok(finish(index, draft))
}

pub(crate) fn get_context(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let anchor = passage(index, args.required("passage_id")?)?;
    let before = u32::try_from(args.count("before")?).unwrap_or(u32::MAX);
    let after = u32::try_from(args.count("after")?).unwrap_or(u32::MAX);
    // One passage more on each side tells whether the window reached the document's edge.
    let rows = index.passages_in_range(
        &anchor.document_id,
        anchor.ordinal.saturating_sub(before + 1),
        anchor.ordinal + after + 1,
    )?;
    let earlier = rows.iter().filter(|r| r.ordinal < anchor.ordinal).count();
    let later = rows.iter().filter(|r| r.ordinal > anchor.ordinal).count();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let window = ContextWindow {
        before_requested: before,
        before_returned: before.min(count(earlier)),
        after_requested: after,
        after_returned: after.min(count(later)),
        reaches_document_start: earlier <= before as usize,
        reaches_document_end: later <= after as usize,
    };
    let first = anchor.ordinal.saturating_sub(before);
    let last = anchor.ordinal + after;
    let mut builder = ItemBuilder::new(index);
    let mut draft = Draft::new(Operation::Lookup, args.understood());
    let mut found = Vec::new();
    for row in rows.into_iter().filter(|r| (first..=last).contains(&r.ordinal)) {
        let why = match row.ordinal.cmp(&anchor.ordinal) {
            std::cmp::Ordering::Less => {
                format!("context: {} before the requested passage", anchor.ordinal - row.ordinal)
            }
            std::cmp::Ordering::Equal => "the requested passage".to_owned(),
            std::cmp::Ordering::Greater => {
                format!("context: {} after the requested passage", row.ordinal - anchor.ordinal)
            }
        };
        found.push((row, why));
    }
    let (rows, whys): (Vec<_>, Vec<String>) = found.into_iter().unzip();
    draft.evidence =
        builder.items(rows.into_iter().zip(&whys).map(|(row, why)| (row, Found::Requested(why))).collect())?;
    draft.facts = Facts::Context(window);
    Ok(finish(index, draft))
}

pub(crate) fn trace_source(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let row = passage(index, args.required("passage_id")?)?;
    let mut builder = ItemBuilder::new(index);
    let source = builder.source(&row.document_id)?;
    let link = |name: &str, value: Option<String>| ChainLink {
        link: name.to_owned(),
        present: value.as_deref().is_some_and(|v| !v.is_empty()),
        value,
    };
    let item = builder.item(row.clone(), Found::Requested("requested by id"))?;
    let links = vec![
        link("passage", Some(row.passage_id.clone())),
        link("document", Some(row.document_id.clone())),
        link("witness", row.witness.clone()),
        link("source_file", source.as_ref().map(|s| s.path.clone())),
        link("sha256", source.as_ref().map(|s| s.sha256.clone())),
    ];
    let extraction = source.as_ref().and_then(|s| s.extraction.as_ref()).map(|e| TextExtraction {
        method: "text layer of a PDF, in reading order, running headers and page numbers removed".to_owned(),
        extractor: e.extractor.clone(),
        text_sha256: e.text_sha256.clone(),
        pages: e.pages,
        pages_without_text: e.pages_without_text,
    });
    let chain = ProvenanceChain {
        passage_id: row.passage_id.clone(),
        trace_status: item.provenance.trace_status.clone(),
        links,
        byte_span: [row.byte_start, row.byte_end],
        line_span: [row.line_start, row.line_end],
        span_basis: source.as_ref().map_or_else(String::new, |s| s.span_basis.clone()),
        source_bytes: source.as_ref().map_or(0, |s| s.bytes),
        title: source.as_ref().and_then(|s| s.title.clone()),
        author: source.as_ref().and_then(|s| s.author.clone()),
        date: source.as_ref().and_then(|s| s.date.clone().or_else(|| s.year.map(|y| y.to_string()))),
        source_metadata: source.map(|s| s.metadata).unwrap_or_default(),
        pages: row.pages.as_ref().map(pages),
        extraction,
    };
    let mut draft = Draft::new(Operation::Lookup, args.understood());
    draft.facts = Facts::Source(Box::new(chain));
    draft.evidence.push(item);
    Ok(finish(index, draft))
}
