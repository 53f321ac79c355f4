use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // stdout carries results (and, when serving, the protocol); logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // Closing a span prints its time: `EVIDENT_LOG=evident::stage=debug` shows each stage's.
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("EVIDENT_LOG")
                // qdrant-edge warns on every call that its process-wide feature flags were
                // never initialised (its initialiser is not public); the defaults are right.
                // pdf_oxide logs what it meets in a broken PDF; the build reports the file itself.
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,qdrant_edge=error,pdf_oxide=off")),
        )
        .init();
    let cli = evident::cli::Cli::parse();
    match evident::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Published without the files it could not read: a script can tell from a failure.
        Err(err @ evident::Error::FilesSkipped(_)) => {
            eprintln!("warning: {err}");
            ExitCode::from(3)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
