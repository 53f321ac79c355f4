//! Ingest time against document size: one Markdown document of 1, 2 and 4 MB,
//! as prose (sentences and paragraphs) and as one unpunctuated run of words,
//! built into a fresh index with the vector lane off (embedding is measured by
//! `evident eval` and would hide the rest). Linear ingest doubles per row.
//! Run: `cargo bench --bench ingest`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::path::Path;

use evident::index::{BuildOptions, build};

const WORDS: &[&str] = &[
    "species",
    "variation",
    "selection",
    "natural",
    "instinct",
    "hybrid",
    "island",
    "period",
    "form",
    "structure",
    "organ",
    "habit",
    "climate",
    "struggle",
    "existence",
    "plant",
    "animal",
    "domestic",
    "breed",
    "character",
    "the",
    "of",
    "and",
    "in",
    "a",
    "to",
    "is",
    "that",
    "which",
    "by",
];

/// A document of about `bytes` bytes, from a fixed linear congruential sequence.
fn document(bytes: usize, punctuated: bool) -> String {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut text = String::with_capacity(bytes + 64);
    while text.len() < bytes {
        let length = 8 + next(20);
        for i in 0..length {
            let word = WORDS[next(WORDS.len() as u64) as usize];
            text.push_str(word);
            text.push(if i + 1 == length && punctuated { '.' } else { ' ' });
        }
        if punctuated {
            text.push_str(if next(10) == 0 { "\n\n" } else { " " });
        }
    }
    text
}

fn corpus(root: &Path, text: &str) {
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("corpus.toml"),
        "name = \"ingest\"\n[vector]\nenabled = false\n[limits]\nmax_document_bytes = 16000000\n",
    )
    .unwrap();
    std::fs::write(root.join("docs/one.md"), text).unwrap();
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ingest");
    group.sample_size(10);
    for punctuated in [true, false] {
        for megabytes in [1, 2, 4] {
            let tmp = tempfile::tempdir().unwrap();
            corpus(&tmp.path().join("corpus"), &document(megabytes << 20, punctuated));
            let shape = if punctuated { "prose" } else { "unpunctuated" };
            group.throughput(Throughput::Bytes((megabytes as u64) << 20));
            group.bench_with_input(BenchmarkId::new(shape, format!("{megabytes}MB")), &megabytes, |b, _| {
                b.iter(|| {
                    let index = tmp.path().join("index");
                    let _ = std::fs::remove_dir_all(&index);
                    build(&BuildOptions {
                        corpus_dir: tmp.path().join("corpus"),
                        index_dir: index,
                        quiet: true,
                        max_document_bytes: None,
                        models_dir: None,
                        model: None,
                        strict: false,
                        embedding_sessions: None,
                        lexical_backend: None,
                    })
                    .unwrap()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
