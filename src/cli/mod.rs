//! The command line: argument parsing and the two commands so far.

mod render;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::index::{BuildOptions, build};
use crate::lexical::Filters;
use crate::search::{SearchRequest, Searcher};

#[derive(Debug, Parser)]
#[command(name = "evident", version, about = "Structured evidence from a corpus, for research agents")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build or inspect the index.
    #[command(subcommand)]
    Index(IndexCommand),
    /// Search the index and print ranked passages.
    Search(SearchArgs),
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Ingest a corpus directory into a new index generation.
    Build(BuildArgs),
}

#[derive(Debug, Args)]
pub struct IndexLocation {
    /// Index directory.
    #[arg(long, env = "EVIDENT_INDEX", default_value = "index")]
    pub index: PathBuf,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Corpus directory (corpus.toml with documents, or a BEIR collection).
    pub corpus: PathBuf,
    #[command(flatten)]
    pub location: IndexLocation,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Largest document accepted, in bytes (overrides corpus.toml).
    #[arg(long)]
    pub max_document_bytes: Option<u64>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query; text in double quotes must match as a phrase.
    #[arg(allow_hyphen_values = true)]
    pub query: String,
    #[command(flatten)]
    pub location: IndexLocation,
    /// Number of passages to return.
    #[arg(long, short = 'k', default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub top_k: u16,
    /// Only passages in this language (BCP-47 code such as `en`, `de`).
    #[arg(long)]
    pub language: Option<String>,
    /// Only passages of this work.
    #[arg(long)]
    pub work: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Index(IndexCommand::Build(args)) => run_build(args),
        Command::Search(args) => run_search(args),
    }
}

fn run_build(args: BuildArgs) -> Result<()> {
    let summary = build(&BuildOptions {
        corpus_dir: args.corpus,
        index_dir: args.location.index,
        quiet: args.quiet,
        max_document_bytes: args.max_document_bytes,
    })?;
    println!("{}", render::build_summary(&summary));
    Ok(())
}

fn run_search(args: SearchArgs) -> Result<()> {
    if args.query.trim().is_empty() {
        return Err(Error::InvalidArgument("the query is empty".into()));
    }
    let searcher = Searcher::open(&args.location.index)?;
    let request = SearchRequest {
        query: args.query,
        top_k: usize::from(args.top_k),
        filters: Filters { language: args.language, work: args.work },
    };
    let hits = searcher.search(&request)?;
    if args.json {
        let json = serde_json::to_string_pretty(&hits).map_err(|e| Error::InvalidArgument(e.to_string()))?;
        println!("{json}");
    } else {
        print!("{}", render::hits_table(&hits, render::use_color()));
    }
    Ok(())
}
