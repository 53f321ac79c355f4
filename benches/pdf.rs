//! PDF extraction: pages per second of reading a PDF's text layer and making
//! the document text (`pdf::read_file` + `pdf::assemble`, in process: the
//! build adds one child process per PDF, about a millisecond). Always the
//! fixture paper (3 pages, two columns); and every PDF in
//! `EVIDENT_BENCH_PDF_DIR` when set (e.g. ../shared/data/pdf and a generated
//! 1,000-page PDF: see benches/README.md). Run: `cargo bench --bench pdf`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::path::PathBuf;

fn pdfs() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf/paper.pdf")];
    if let Some(dir) = std::env::var_os("EVIDENT_BENCH_PDF_DIR") {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("EVIDENT_BENCH_PDF_DIR is a directory")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

fn extract(c: &mut Criterion) {
    let mut group = c.benchmark_group("pdf_extract");
    group.sample_size(10);
    for path in pdfs() {
        // Encrypted or unreadable samples have nothing to time.
        let Ok(first) = evident::pdf::read_file(&path) else { continue };
        let pages = first.pages.len() as u64;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        group.throughput(Throughput::Elements(pages));
        group.bench_with_input(BenchmarkId::from_parameter(format!("{name} ({pages} pages)")), &path, |b, path| {
            b.iter(|| evident::pdf::assemble(evident::pdf::read_file(path).unwrap()).text.len());
        });
    }
    group.finish();
}

criterion_group!(benches, extract);
criterion_main!(benches);
