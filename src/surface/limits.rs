//! The published limits of responses, in one place: the contract prints
//! them and the execution side enforces them.

/// Byte budget of a response to a call that asks for no more than the
/// defaults (no count raised, no flag turned on): small enough that agents
/// read it whole. Larger results are paged with a cursor.
pub(crate) const DEFAULT_RESPONSE_BUDGET: usize = 24_000;
/// Byte budget of any response (the server's default `--response-budget`):
/// under the ~50,000 characters at which agent clients spill tool output.
pub const MAX_RESPONSE_BUDGET: usize = 48_000;
/// Longest snippet of `detail: "snippet"`, in characters, the ellipses included.
pub const SNIPPET_CHARS: usize = 300;
/// Close names offered for a term that names no entity.
pub(crate) const MAX_SUGGESTIONS: usize = 5;
/// Most quoted phrases in one query: each is embedded and searched on its own,
/// so phrases multiply a request's work (100 phrases once took a gigabyte).
pub const MAX_QUERY_PHRASES: usize = 8;
/// Most words in one query: an abstract pasted to find related passages fits.
/// Plain words cost BM25 little (a term clause each); phrases are bounded above.
pub const MAX_QUERY_WORDS: usize = 512;
