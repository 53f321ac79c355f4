//! Bearer tokens for `serve --http`. The tokens file holds one line per
//! token, `<sha256 hex> <label>`; the token itself is never stored, only its
//! hash, so a leaked file grants nothing. `evident token new LABEL` makes a
//! token and appends its line. A presented token is hashed and compared
//! against every line in constant time, so neither the answer nor its timing
//! says which tokens exist. The file is re-read when it changes (a stat per
//! request), so a token added or removed takes effect without a restart.

use std::path::{Path, PathBuf};
use std::sync::RwLock;
use subtle::ConstantTimeEq;

/// Variable naming the tokens file when `--tokens` is not given.
pub(crate) const TOKENS_FILE_VARIABLE: &str = "EVIDENT_TOKENS_FILE";
/// Prefix of every token `token new` makes (lets secret scanners find them).
const TOKEN_PREFIX: &str = "evd_";
/// Random bytes in a token (256 bits).
const TOKEN_BYTES: usize = 32;

#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum TokenError {
    #[error("cannot read the tokens file {path}: {reason}")]
    Read { path: String, reason: String },
    #[error(
        "tokens file {path}, line {line}: expected `<64 hex digits> <label>` (make lines with `evident token new LABEL`)"
    )]
    Malformed { path: String, line: usize },
    #[error("tokens file {path}, line {line}: label `{label}` is already used on line {first}")]
    DuplicateLabel { path: String, line: usize, label: String, first: usize },
    #[error("tokens file {path} already has a token labelled `{label}`; pick another label, or remove its line first")]
    LabelTaken { path: String, label: String },
    #[error("the label must be 1-64 characters of letters, digits, `.`, `_`, `-` or `@`; got `{0}`")]
    BadLabel(String),
    #[error("cannot write the tokens file {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("the operating system's random source failed: {0}")]
    Random(String),
}

/// One line of the file: the token's sha256 (64 lower-case hex digits) and who holds it.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    hash: String,
    label: String,
}

/// The tokens a server accepts, following its file.
#[derive(Debug)]
pub(crate) struct Tokens {
    path: PathBuf,
    loaded: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    entries: Vec<Entry>,
    identity: Option<(std::time::SystemTime, u64)>,
}

fn identity(path: &Path) -> Option<(std::time::SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn hash_token(token: &str) -> String {
    crate::corpus::sha256_hex(token.as_bytes())
}

/// A sha256 as the file writes it, lower-cased (a hand-edited line may use capitals).
fn parse_hash(text: &str) -> Option<String> {
    (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| text.to_ascii_lowercase())
}

pub(crate) fn check_label(label: &str) -> Result<(), TokenError> {
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@');
    if label.is_empty() || label.len() > 64 || !label.chars().all(fine) {
        return Err(TokenError::BadLabel(crate::surface::echo(label)));
    }
    Ok(())
}

/// Parses the file's text: blank lines and `#` comments are skipped.
fn parse(text: &str, path: &Path) -> Result<Vec<Entry>, TokenError> {
    let shown = path.display().to_string();
    let mut entries: Vec<(usize, Entry)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(hash), Some(label), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(TokenError::Malformed { path: shown, line: line_no });
        };
        let hash = parse_hash(hash).ok_or_else(|| TokenError::Malformed { path: shown.clone(), line: line_no })?;
        check_label(label).map_err(|_| TokenError::Malformed { path: shown.clone(), line: line_no })?;
        if let Some((first, _)) = entries.iter().find(|(_, e)| e.label == label) {
            return Err(TokenError::DuplicateLabel {
                path: shown,
                line: line_no,
                label: label.to_owned(),
                first: *first,
            });
        }
        entries.push((line_no, Entry { hash, label: label.to_owned() }));
    }
    Ok(entries.into_iter().map(|(_, e)| e).collect())
}

fn read(path: &Path) -> Result<Vec<Entry>, TokenError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| TokenError::Read { path: path.display().to_string(), reason: e.to_string() })?;
    parse(&text, path)
}

impl Tokens {
    /// Loads the file; a server refuses to start on an unreadable or malformed one.
    pub(crate) fn load(path: &Path) -> Result<Self, TokenError> {
        let entries = read(path)?;
        let loaded = Loaded { entries, identity: identity(path) };
        Ok(Self { path: path.to_owned(), loaded: RwLock::new(loaded) })
    }

    /// How many tokens the file holds now.
    pub(crate) fn len(&self) -> usize {
        self.refresh();
        self.loaded.read().map_or(0, |l| l.entries.len())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Re-reads the file if it changed. A file that became unreadable or
    /// malformed keeps the tokens last read (and says so in the log): a
    /// half-written edit must not lock every client out or let anyone in.
    fn refresh(&self) {
        let now = identity(&self.path);
        if self.loaded.read().is_ok_and(|l| l.identity == now) {
            return;
        }
        match read(&self.path) {
            Ok(entries) => {
                if let Ok(mut loaded) = self.loaded.write() {
                    tracing::info!(tokens = entries.len(), "tokens file reloaded");
                    *loaded = Loaded { entries, identity: now };
                }
            }
            Err(error) => tracing::warn!(%error, "tokens file not reloaded; the tokens read before stay in force"),
        }
    }

    /// The label of the token presented, if it is one of ours. Every entry
    /// is compared, in constant time, whatever matches.
    pub(crate) fn label_of(&self, presented: &str) -> Option<String> {
        self.refresh();
        let hash = hash_token(presented);
        let loaded = self.loaded.read().ok()?;
        let mut found: Option<&str> = None;
        for entry in &loaded.entries {
            if bool::from(entry.hash.as_bytes().ct_eq(hash.as_bytes())) {
                found = Some(&entry.label);
            }
        }
        found.map(str::to_owned)
    }
}

/// A fresh token: the prefix and 32 random bytes in hex.
pub(crate) fn generate() -> Result<String, TokenError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(format!("{TOKEN_PREFIX}{}", crate::text::hex(&bytes)))
}

/// Makes a token for `label`, appends its hash line to `path` (created with
/// owner-only permissions if missing) and returns the token, which exists
/// nowhere else from then on.
pub(crate) fn new_token(path: &Path, label: &str) -> Result<String, TokenError> {
    use std::io::Write;
    check_label(label)?;
    let shown = path.display().to_string();
    let existing = if path.exists() { read(path)? } else { Vec::new() };
    if existing.iter().any(|e| e.label == label) {
        return Err(TokenError::LabelTaken { path: shown, label: label.to_owned() });
    }
    let token = generate()?;
    let write_error = |e: std::io::Error| TokenError::Write { path: shown.clone(), reason: e.to_string() };
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(write_error)?;
    writeln!(file, "{} {label}", hash_token(&token)).map_err(write_error)?;
    file.sync_all().map_err(write_error)?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_is_accepted_under_its_label_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        let alice = new_token(&path, "alice").unwrap();
        let bob = new_token(&path, "bob@lab").unwrap();
        assert!(alice.starts_with("evd_") && alice.len() == 4 + 64);
        assert_ne!(alice, bob);
        let tokens = Tokens::load(&path).unwrap();
        assert_eq!(tokens.label_of(&alice).as_deref(), Some("alice"));
        assert_eq!(tokens.label_of(&bob).as_deref(), Some("bob@lab"));
        assert_eq!(tokens.label_of("evd_0000"), None);
        assert_eq!(tokens.label_of(""), None);
        // The file holds hashes, never the token.
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&alice[4..]));
        assert!(text.contains(&hash_token(&alice)));
    }

    #[test]
    fn a_token_added_while_serving_is_accepted_without_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        new_token(&path, "first").unwrap();
        let tokens = Tokens::load(&path).unwrap();
        let second = new_token(&path, "second").unwrap();
        assert_eq!(tokens.label_of(&second).as_deref(), Some("second"));
        assert_eq!(tokens.len(), 2);
    }

    #[test]
    fn a_broken_edit_keeps_the_tokens_in_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        let token = new_token(&path, "keep").unwrap();
        let tokens = Tokens::load(&path).unwrap();
        std::fs::write(&path, "not a token line at all, and longer than before\n").unwrap();
        assert_eq!(tokens.label_of(&token).as_deref(), Some("keep"));
    }

    #[test]
    fn malformed_files_and_labels_are_refused_with_the_line() {
        let path = Path::new("t");
        let good = "7".repeat(64);
        assert!(matches!(parse("nohash label", path), Err(TokenError::Malformed { line: 1, .. })));
        assert!(matches!(parse(&format!("# c\n\n{good}"), path), Err(TokenError::Malformed { line: 3, .. })));
        assert!(matches!(parse(&format!("{good} a b"), path), Err(TokenError::Malformed { line: 1, .. })));
        assert!(matches!(
            parse(&format!("{good} a\n{good} a"), path),
            Err(TokenError::DuplicateLabel { line: 2, first: 1, .. })
        ));
        assert_eq!(parse(&format!("# comment\n{good} lab-1\n"), path).unwrap().len(), 1);
        assert!(check_label("has space").is_err());
        assert!(check_label("").is_err());
        assert!(check_label(&"x".repeat(65)).is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens");
        new_token(&file, "dup").unwrap();
        assert_eq!(
            new_token(&file, "dup").unwrap_err().to_string(),
            format!(
                "tokens file {} already has a token labelled `dup`; pick another label, or remove its line first",
                file.display()
            )
        );
        // A hand-edited line in capitals is the same hash.
        assert_eq!(parse(&format!("{} up", "AB".repeat(32)), path).unwrap()[0].hash, "ab".repeat(32));
    }
}
