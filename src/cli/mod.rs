//! The command line: argument parsing and the two commands so far.

mod render;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::index::{BuildOptions, build};
use crate::lane::Filters;
use crate::routing::RetrievalMode;
use crate::search::{Reader, SearchRequest};

#[derive(Debug, Parser)]
#[command(name = "evident", version, about = "Structured evidence from a corpus, for research agents")]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Build or inspect the index.
    #[command(subcommand)]
    Index(IndexCommand),
    /// Search the index and print ranked passages.
    Search(SearchArgs),
    /// Measure retrieval quality and latency on a BEIR-layout collection.
    Eval(EvalArgs),
    /// Serve the index to MCP clients over stdio (stdout carries only the protocol),
    /// or over streamable HTTP with --http.
    Serve(ServeArgs),
    /// Manage the bearer tokens of `serve --http`.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Write or check the published tool contract (contract/).
    #[command(subcommand)]
    Contract(ContractCommand),
    /// Summarise the server's query log: calls, error rates, p50/p95 per tool.
    Stats(StatsArgs),
    /// Read one PDF and print its text layer as JSON (the build's bounded child process),
    /// or with --text the document text evident indexes.
    #[command(name = "extract-pdf", hide = true)]
    ExtractPdf {
        path: PathBuf,
        #[arg(long)]
        text: bool,
        /// Cap this process's address space first (the build's bound).
        #[arg(long)]
        memory_bytes: Option<u64>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    #[command(flatten)]
    pub(crate) models: ModelsLocation,
    /// Most bytes of any response; larger evidence lists are paged (calls with default sizes get at most 24,000).
    #[arg(long, env = "EVIDENT_RESPONSE_BUDGET", default_value_t = crate::surface::MAX_RESPONSE_BUDGET,
          value_parser = clap::value_parser!(usize))]
    pub(crate) response_budget: usize,
    /// Do not write the query log (index/state/query_log.sqlite).
    #[arg(long)]
    pub(crate) no_telemetry: bool,
    #[command(flatten)]
    pub(crate) http: HttpArgs,
}

#[derive(Debug, Args)]
pub(crate) struct HttpArgs {
    /// Serve MCP over streamable HTTP at this address (e.g. 127.0.0.1:8731; port 0 picks one)
    /// instead of stdio. The endpoint is /mcp; /healthz answers without a token.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// Bearer tokens (`<sha256 hex> <label>` per line; `evident token new` writes them).
    /// Required for any address but loopback.
    #[arg(long, value_name = "FILE", env = crate::mcp::http::TOKENS_FILE_VARIABLE)]
    pub(crate) tokens: Option<PathBuf>,
    /// An Origin browsers may call from (`https://app.example.org`); repeatable. Without it,
    /// every request that carries an Origin header is refused (403).
    #[arg(long, value_name = "ORIGIN")]
    pub(crate) allow_origin: Vec<String>,
    /// A host name requests may carry in `Host` besides the bound address (a reverse proxy's
    /// public name); repeatable.
    #[arg(long, value_name = "NAME")]
    pub(crate) allow_host: Vec<String>,
    /// Calls in flight at once per token (beyond: 429 with Retry-After).
    #[arg(long, default_value_t = 8)]
    pub(crate) per_token_concurrency: usize,
    /// Calls in flight at once in all (beyond: queued, then 429 with Retry-After).
    #[arg(long, default_value_t = 64)]
    pub(crate) concurrency: usize,
    /// Seconds a request's head may take to arrive; also how long an idle connection stays open.
    #[arg(long, default_value_t = 30.0)]
    pub(crate) header_timeout: f64,
    /// Seconds a request's body may take to arrive after its head.
    #[arg(long, default_value_t = 30.0)]
    pub(crate) body_timeout: f64,
    /// Seconds SIGTERM waits for calls in flight before the server exits.
    #[arg(long, default_value_t = 30.0)]
    pub(crate) drain_timeout: f64,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Make a bearer token for LABEL: prints it once and appends its sha256 to the tokens file.
    New {
        /// Who holds the token (letters, digits, `.`, `_`, `-`, `@`); the query log records it.
        label: String,
        /// The tokens file (created if missing, owner-only).
        #[arg(long, value_name = "FILE", env = crate::mcp::http::TOKENS_FILE_VARIABLE)]
        tokens: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ContractCommand {
    /// Regenerate contract/evident_mcp_v<N>.json and contract/TOOLS.md from the code.
    Write(ContractArgs),
    /// Fail with a diff when the contract files differ from what the code generates.
    Check(ContractArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ContractArgs {
    /// The contract directory.
    #[arg(long, default_value = "contract")]
    pub(crate) dir: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Group the calls by tool or by client (the bearer token's label; `-` for stdio).
    #[arg(long, value_enum, default_value_t = StatsGroup::Tool)]
    pub(crate) by: StatsGroup,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum StatsGroup {
    Tool,
    Client,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EvalMode {
    Lexical,
    Vector,
    Hybrid,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FusionChoice {
    Rrf,
    Dbsf,
}

#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// Collection directory: corpus.jsonl, queries.jsonl, qrels/test.tsv
    /// (optional with `--verdicts --index DIR`).
    #[arg(long)]
    pub(crate) collection: Option<PathBuf>,
    /// Index of the collection, built or reused (default: index-eval/<collection name>).
    #[arg(long)]
    pub(crate) index: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = EvalMode::All)]
    pub(crate) mode: EvalMode,
    /// Fusion of the hybrid mode's lanes.
    #[arg(long, value_enum, default_value_t = FusionChoice::Rrf)]
    pub(crate) fusion: FusionChoice,
    /// RRF constant k (ranks are 1-based).
    #[arg(long, default_value_t = crate::fusion::DEFAULT_K)]
    pub(crate) rrf_k: f64,
    /// Candidates per lane before fusion.
    #[arg(long, default_value_t = crate::search::DEFAULT_DEPTH)]
    pub(crate) depth: usize,
    /// Replace a lane's fusion weight, or add a lane the route lacks, e.g. `--weight vector=0.7`, `--weight feedback=1` (repeatable).
    #[arg(long = "weight", value_parser = parse_lane_weight)]
    pub(crate) weights: Vec<(crate::lane::Lane, f64)>,
    /// Embedding model for the collection's index, by installed name (default: the BEIR default).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// Where the index's lexical lane lives: `tantivy` or `qdrant` (sparse vectors beside the dense
    /// ones); default: where the index's lane lives already, else tantivy.
    #[arg(long, value_enum)]
    pub(crate) lexical_backend: Option<crate::corpus::LexicalBackend>,
    /// Reorder each mode's fused top documents (`none` or `cross_encoder`).
    #[arg(long, value_parser = str::parse::<crate::rerank::Rerank>, default_value = "none")]
    pub(crate) rerank: crate::rerank::Rerank,
    /// Documents the reranker reads per query.
    #[arg(long, default_value_t = crate::rerank::DEFAULT_RERANK_DEPTH)]
    pub(crate) rerank_depth: usize,
    /// Write the figures and the per-query run as JSON.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// Draw nDCG@10 and latency per mode as SVG.
    #[arg(long)]
    pub(crate) plot: Option<PathBuf>,
    /// Write one TREC run file per mode into this directory (for trec_eval, ranx, pytrec_eval).
    #[arg(long)]
    pub(crate) trec_dir: Option<PathBuf>,
    #[arg(long, short)]
    pub(crate) quiet: bool,
    #[command(flatten)]
    pub(crate) models: ModelsLocation,
    /// Evaluate verdicts instead of rankings: the collection's queries are answerable.
    #[arg(long)]
    pub(crate) verdicts: bool,
    /// With --verdicts: another collection whose queries are off-corpus for this index (repeatable).
    #[arg(long, requires = "verdicts")]
    pub(crate) against: Vec<PathBuf>,
    /// With --verdicts: a JSONL question set, groups of phrasings that must share one state.
    #[arg(long, requires = "verdicts")]
    pub(crate) paraphrases: Option<PathBuf>,
    /// With --verdicts: ask only the first N queries of each collection.
    #[arg(long, requires = "verdicts")]
    pub(crate) limit: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum IndexCommand {
    /// Ingest a corpus directory into a new index generation.
    Build(BuildArgs),
    /// Check every file of the serving generation against the lengths and hashes its build recorded.
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct IndexLocation {
    /// Index directory.
    #[arg(long, env = "EVIDENT_INDEX", default_value = "index")]
    pub(crate) index: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// Corpus directory (corpus.toml with documents, or a BEIR collection).
    pub(crate) corpus: PathBuf,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// No progress output.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Largest document accepted, in bytes (overrides corpus.toml).
    #[arg(long)]
    pub(crate) max_document_bytes: Option<u64>,
    /// Embedding model, by installed name (overrides corpus.toml; `scripts/fetch_model.py --list`).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// Refuse to build when any file cannot be read (default: skip it, report it, exit 3).
    #[arg(long)]
    pub(crate) strict: bool,
    /// Embedding sessions run at once, the cores shared among them (default: one per core,
    /// at most 4); the vectors are the same whatever the number.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=crate::vector::MAX_SESSIONS as i64))]
    pub(crate) embedding_sessions: Option<u8>,
    #[command(flatten)]
    pub(crate) models: ModelsLocation,
}

#[derive(Debug, Args)]
pub(crate) struct ModelsLocation {
    /// Directory with the embedding model and ONNX runtime (filled by scripts/setup).
    #[arg(long, env = "EVIDENT_MODELS_DIR")]
    pub(crate) models_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The query; text in double quotes must match as a phrase.
    #[arg(allow_hyphen_values = true)]
    pub(crate) query: String,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Number of passages to return.
    #[arg(long, short = 'k', default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub(crate) top_k: u16,
    /// Only passages in this language (BCP-47 code such as `en`, `de`).
    #[arg(long)]
    pub(crate) language: Option<String>,
    /// Only passages of this work.
    #[arg(long)]
    pub(crate) work: Option<String>,
    /// Which lanes run: `auto` lets the routing table decide; `hybrid` fuses lexical and vector.
    #[arg(long, default_value = "auto", value_parser = clap::builder::TypedValueParser::try_map(clap::builder::PossibleValuesParser::new(RetrievalMode::NAMES),
          |s| s.parse::<RetrievalMode>()))]
    pub(crate) mode: RetrievalMode,
    /// Reorder the fused top `--rerank-depth` passages (`none` or `cross_encoder`).
    #[arg(long, value_parser = str::parse::<crate::rerank::Rerank>, default_value = "none")]
    pub(crate) rerank: crate::rerank::Rerank,
    /// Passages the reranker reads (1 to 100).
    #[arg(long, default_value_t = crate::rerank::DEFAULT_RERANK_DEPTH, value_parser = rerank_depth)]
    pub(crate) rerank_depth: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) models: ModelsLocation,
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Index(IndexCommand::Build(args)) => run_build(args),
        Command::Index(IndexCommand::Verify(args)) => run_verify(args),
        Command::Search(args) => run_search(args),
        Command::Eval(args) => run_eval(args),
        Command::Serve(args) => run_serve(args),
        Command::Token(TokenCommand::New { label, tokens }) => {
            let token =
                crate::mcp::http::new_token(&tokens, &label).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            println!("{token}");
            eprintln!(
                "token for `{label}` added to {}; it is shown only now: give it to its holder \
                 (Authorization: Bearer <token>)",
                tokens.display()
            );
            Ok(())
        }
        Command::Contract(ContractCommand::Write(args)) => {
            for path in crate::contract::write(&args.dir).map_err(|e| Error::Contract(e.to_string()))? {
                println!("wrote {}", path.display());
            }
            Ok(())
        }
        Command::Contract(ContractCommand::Check(args)) => {
            crate::contract::check(&args.dir).map_err(|e| Error::Contract(e.to_string()))?;
            println!("contract up to date (v{})", crate::contract::CONTRACT_VERSION);
            Ok(())
        }
        Command::Stats(args) => run_stats(args),
        Command::ExtractPdf { path, text: false, memory_bytes } => {
            crate::pdf::guard::run_child(&path, memory_bytes).map_err(|e| Error::Io { path, source: e })
        }
        Command::ExtractPdf { path, text: true, .. } => {
            let extracted = crate::pdf::read_file(&path).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            let text = crate::pdf::assemble(extracted);
            // Pages apart by a form feed, as pdftotext writes them.
            let ends = text.pages.iter().skip(1).map(|p| p.offset).chain([text.text.len()]);
            let pages: Vec<&str> =
                text.pages.iter().zip(ends).map(|(p, end)| &text.text[p.offset..end.max(p.offset)]).collect();
            println!("{}", pages.join("\u{c}"));
            Ok(())
        }
    }
}

fn run_serve(args: ServeArgs) -> Result<()> {
    crate::mcp::self_test().map_err(Error::ServeRefused)?;
    let index = crate::tools::CurrentGeneration::open(&args.location.index, args.models.models_dir.as_deref())
        .map_err(|e| Error::ServeRefused(e.to_string()))?;
    let mut config = crate::mcp::ServeConfig::new(&args.location.index);
    config.response_budget = args.response_budget.max(1);
    if args.no_telemetry {
        config.telemetry = None;
    }
    let listed: Vec<&str> = config.listed().map(|t| t.name).collect();
    let http = args.http.http.map(|addr| http_options(addr, &args.http)).transpose()?;
    tracing::info!(tools = ?listed, index = %args.location.index.display(), "serving MCP");
    let server = crate::mcp::EvidentServer::new(index, config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io { path: PathBuf::from("<tokio runtime>"), source })?;
    match http {
        None => runtime.block_on(crate::mcp::serve(server)).map_err(Error::ServeFailed),
        Some((options, tokens)) => {
            runtime.block_on(crate::mcp::http::serve_http(server, options, tokens)).map_err(Error::ServeFailed)
        }
    }
}

/// The HTTP server's bounds and tokens; refuses what would be unsafe to serve.
fn http_options(
    addr: std::net::SocketAddr,
    args: &HttpArgs,
) -> Result<(crate::mcp::http::HttpOptions, Option<crate::mcp::http::Tokens>)> {
    use crate::mcp::http::{HttpOptions, Tokens, needs_tokens};
    let seconds = |name: &str, value: f64| {
        if value.is_finite() && value > 0.0 && value <= 86_400.0 {
            Ok(std::time::Duration::from_secs_f64(value))
        } else {
            Err(Error::ServeRefused(format!("--{name} must be a number of seconds in (0, 86400]; got {value}")))
        }
    };
    let tokens = match &args.tokens {
        Some(path) => Some(Tokens::load(path).map_err(|e| Error::ServeRefused(e.to_string()))?),
        None => None,
    };
    if needs_tokens(addr.ip()) && tokens.as_ref().is_none_or(Tokens::is_empty) {
        return Err(Error::ServeRefused(format!(
            "{addr} is not a loopback address, and serving it without bearer tokens would let anyone who can \
             reach it read the corpus: pass --tokens FILE (make tokens with `evident token new LABEL --tokens FILE`)"
        )));
    }
    let mut options = HttpOptions::new(addr);
    for host in &args.allow_host {
        let name = crate::mcp::http::host_name(host)
            .ok_or_else(|| Error::ServeRefused(format!("--allow-host `{host}` is not a host name")))?;
        options.allow_hosts.push(name);
    }
    for origin in &args.allow_origin {
        let normal = crate::mcp::http::normalise_origin(origin);
        if !(normal.starts_with("http://") || normal.starts_with("https://")) || normal.matches('/').count() != 2 {
            return Err(Error::ServeRefused(format!(
                "--allow-origin `{origin}` is not an origin: write scheme://host[:port], as browsers send it"
            )));
        }
        options.allow_origins.push(normal);
    }
    options.per_token_concurrency = args.per_token_concurrency.max(1);
    options.concurrency = args.concurrency.max(1);
    options.header_timeout = seconds("header-timeout", args.header_timeout)?;
    options.body_timeout = seconds("body-timeout", args.body_timeout)?;
    options.drain_timeout = seconds("drain-timeout", args.drain_timeout)?;
    Ok((options, tokens))
}

/// Exits non-zero when any file differs, so scripts can act on it.
fn run_verify(args: VerifyArgs) -> Result<()> {
    let index = crate::index::IndexDir::open(&args.location.index)?;
    let generation = index.require_current()?;
    let manifest = crate::index::Manifest::read(&generation.manifest_path())?;
    manifest.check_readable(&generation.manifest_path())?;
    let damage = crate::index::verify(&generation.path, &manifest.files)?;
    if args.json {
        let report = serde_json::json!({
            "generation": generation.name,
            "files": manifest.files.len(),
            "intact": damage.is_empty(),
            "damage": damage,
        });
        println!("{report:#}");
    } else {
        for d in &damage {
            println!("damaged  {d}");
        }
        println!("{}: {} files checked, {} damaged", generation.name, manifest.files.len(), damage.len());
    }
    if damage.is_empty() {
        return Ok(());
    }
    Err(Error::IndexCorrupt {
        path: generation.path,
        reason: format!("{} file(s) differ from what the build wrote", damage.len()),
    })
}

fn run_stats(args: StatsArgs) -> Result<()> {
    let by = match args.by {
        StatsGroup::Tool => crate::telemetry::StatsBy::Tool,
        StatsGroup::Client => crate::telemetry::StatsBy::Client,
    };
    let stats = crate::telemetry::stats(&crate::telemetry::default_path(&args.location.index), by)?;
    if args.json {
        let rows: Vec<serde_json::Value> = stats.iter().map(|s| s.to_json(by)).collect();
        let json = serde_json::to_string_pretty(&rows).map_err(|e| Error::InvalidArgument(e.to_string()))?;
        println!("{json}");
        return Ok(());
    }
    println!(
        "{:<24} {:>7} {:>7} {:>7} {:>9} {:>9} {:>6}",
        by.name(),
        "calls",
        "errors",
        "err %",
        "p50 ms",
        "p95 ms",
        "alias"
    );
    for s in stats {
        println!(
            "{:<24} {:>7} {:>7} {:>6.1}% {:>9.2} {:>9.2} {:>6}",
            s.key,
            s.calls,
            s.errors,
            s.error_rate * 100.0,
            s.p50_ms,
            s.p95_ms,
            s.via_alias
        );
    }
    Ok(())
}

fn parse_lane_weight(text: &str) -> std::result::Result<(crate::lane::Lane, f64), String> {
    use crate::lane::Lane;
    let (lane, weight) = text.split_once('=').ok_or("expected LANE=WEIGHT, e.g. vector=0.7")?;
    let lane: Lane = lane.parse()?;
    let weight: f64 = weight.parse().map_err(|_| format!("`{weight}` is not a number"))?;
    if !(weight.is_finite() && weight >= 0.0) {
        return Err("a weight must be a non-negative number".into());
    }
    Ok((lane, weight))
}

fn run_eval(args: EvalArgs) -> Result<()> {
    if args.verdicts {
        return run_verdicts(args);
    }
    let Some(collection) = args.collection.clone() else {
        return Err(Error::InvalidArgument("--collection is required (except with --verdicts --index)".into()));
    };
    let name = collection_name(&collection);
    let modes = match args.mode {
        EvalMode::Lexical => vec![RetrievalMode::Lexical],
        EvalMode::Vector => vec![RetrievalMode::Vector],
        EvalMode::Hybrid => vec![RetrievalMode::Hybrid],
        EvalMode::All => vec![RetrievalMode::Lexical, RetrievalMode::Vector, RetrievalMode::Hybrid],
    };
    let fusion = match args.fusion {
        FusionChoice::Rrf => crate::fusion::FusionMethod::Rrf { k: args.rrf_k },
        FusionChoice::Dbsf => crate::fusion::FusionMethod::Dbsf,
    };
    let report = crate::eval::evaluate(&crate::eval::EvalOptions {
        collection,
        index: args.index.unwrap_or_else(|| PathBuf::from("index-eval").join(name)),
        modes,
        models_dir: args.models.models_dir,
        fusion,
        depth: args.depth,
        weights: args.weights,
        model: args.model,
        lexical_backend: args.lexical_backend,
        rerank: args.rerank,
        rerank_depth: args.rerank_depth,
        quiet: args.quiet,
    })?;
    print!("{}", report.table());
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    if let Some(dir) = &args.trec_dir {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
        for mode in &report.modes {
            let name = mode.mode.as_str();
            let path = dir.join(format!("{name}.run"));
            std::fs::write(&path, report.trec_run(mode)).map_err(|source| Error::Io { path: path.clone(), source })?;
        }
    }
    if let Some(path) = &args.plot {
        crate::eval::write_svg(&report, path)?;
    }
    Ok(())
}

fn collection_name(dir: &std::path::Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "collection".into())
}

/// `eval --verdicts`: the collection (if any) is answerable against its own
/// index, built or reused; `--against` collections are off-corpus.
fn run_verdicts(args: EvalArgs) -> Result<()> {
    let index = match (&args.index, &args.collection) {
        (Some(index), _) => index.clone(),
        (None, Some(collection)) => PathBuf::from("index-eval").join(collection_name(collection)),
        (None, None) => return Err(Error::InvalidArgument("--verdicts needs --collection or --index".into())),
    };
    let report = crate::eval::verdicts::evaluate(&crate::eval::verdicts::VerdictOptions {
        collection: args.collection,
        index,
        against: args.against,
        paraphrases: args.paraphrases,
        limit: args.limit,
        models_dir: args.models.models_dir,
        quiet: args.quiet,
    })?;
    print!("{}", report.table());
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    if let Some(path) = &args.plot {
        crate::eval::write_verdict_svg(&report, path)?;
    }
    Ok(())
}

/// Writes `value` as pretty JSON to `path`.
fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> Result<()> {
    let json = serde_json::to_string_pretty(value).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    std::fs::write(path, json + "\n").map_err(|source| Error::Io { path: path.to_owned(), source })
}

fn run_build(args: BuildArgs) -> Result<()> {
    let summary = build(&BuildOptions {
        corpus_dir: args.corpus,
        index_dir: args.location.index,
        quiet: args.quiet,
        max_document_bytes: args.max_document_bytes,
        models_dir: args.models.models_dir,
        model: args.model,
        strict: args.strict,
        embedding_sessions: args.embedding_sessions.map(usize::from),
        lexical_backend: None,
    })?;
    println!("{}", render::build_summary(&summary));
    if summary.skipped > 0 {
        return Err(Error::FilesSkipped(summary.skipped));
    }
    Ok(())
}

fn rerank_depth(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=crate::rerank::MAX_RERANK_DEPTH).contains(&n) => Ok(n),
        _ => Err(format!("expected a number from 1 to {}", crate::rerank::MAX_RERANK_DEPTH)),
    }
}

fn run_search(args: SearchArgs) -> Result<()> {
    if args.query.trim().is_empty() {
        return Err(Error::InvalidArgument("the query is empty".into()));
    }
    if args.json {
        return print_search_envelope(args);
    }
    let searcher = Reader::open(&args.location.index, args.models.models_dir.as_deref())?;
    let request = SearchRequest {
        query: args.query,
        top_k: usize::from(args.top_k),
        filters: Filters { language: args.language, work: args.work, ..Filters::default() },
        mode: args.mode,
        rerank: args.rerank,
        rerank_depth: args.rerank_depth,
        ..SearchRequest::default()
    };
    let outcome = searcher.search(&request)?;
    if let Some(reason) = &outcome.vector_disabled_reason
        && outcome.route.vector_dropped
    {
        eprintln!("warning: VECTOR_LANE_DISABLED: lexical lane only ({reason})");
    }
    if let Some(reason) = outcome.rerank.as_ref().and_then(|r| r.unavailable.as_ref()) {
        eprintln!("warning: RERANK_UNAVAILABLE: fused order ({reason})");
    }
    print!("{}", render::hits_table(&outcome.hits, render::use_color()));
    Ok(())
}

/// `search --json`: the envelope `search_passages` returns for the same
/// arguments, so the CLI and MCP print one JSON shape (the tool's limits apply).
fn print_search_envelope(args: SearchArgs) -> Result<()> {
    if args.rerank_depth != crate::rerank::DEFAULT_RERANK_DEPTH {
        return Err(Error::InvalidArgument(format!(
            "--rerank-depth applies to the table only: with --json the reranker reads the fused top {}, as \
             search_passages does; drop --rerank-depth or --json",
            crate::rerank::DEFAULT_RERANK_DEPTH
        )));
    }
    let mut call = serde_json::Map::new();
    call.insert("query".into(), args.query.into());
    call.insert("top_k".into(), args.top_k.into());
    call.insert("retrieval_mode".into(), args.mode.as_str().into());
    call.insert("rerank".into(), args.rerank.as_str().into());
    if let Some(language) = args.language {
        call.insert("language".into(), language.into());
    }
    if let Some(work) = args.work {
        call.insert("work".into(), work.into());
    }
    let refused = |e: crate::surface::ToolError| Error::InvalidArgument(format!("{}: {}", e.code.as_str(), e.message));
    let prepared = crate::tools::prepare("search_passages", Some(&call)).map_err(refused)?;
    let index = Reader::open(&args.location.index, args.models.models_dir.as_deref())?;
    let answered = crate::tools::run(&index, prepared, crate::surface::MAX_RESPONSE_BUDGET).map_err(refused)?;
    let json = serde_json::to_string_pretty(&answered.content).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    println!("{json}");
    Ok(())
}
