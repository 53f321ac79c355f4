//! The serving index as tools see it: the opened generation plus the small
//! tables every call reads (entities, periods, terminology), and a handle that
//! follows `CURRENT` so a rebuild is served without a restart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::corpus::{Entity, TermMapping};
use crate::index::IndexDir;
use crate::search::{CorpusTables, Searcher};
use crate::store::PeriodRow;
use crate::surface::ToolError;
use crate::surface::envelope::Suggestion;
use crate::text::{normalized_words, without_possessive};

/// One opened generation. Immutable; shared by concurrent calls.
pub struct OpenIndex {
    pub(crate) generation: String,
    pub(crate) searcher: Searcher,
    by_id: HashMap<String, usize>,
    /// Normalised alias words → (entity index, alias as written, language).
    by_alias: HashMap<Vec<String>, Vec<(usize, String, String)>>,
    pub(crate) periods: Vec<PeriodRow>,
    pub(crate) terminology: Vec<TermMapping>,
    pub(crate) works: Vec<String>,
    pub(crate) languages: Vec<String>,
    /// Whether the corpus names witnesses; only then does a passage without one trace incompletely.
    pub(crate) declares_witnesses: bool,
}

impl OpenIndex {
    pub fn open(dir: &Path, models_dir: Option<&Path>) -> crate::Result<Self> {
        let searcher = Searcher::open(dir, models_dir)?;
        let CorpusTables { periods, terminology, works, languages, declares_witnesses } = searcher.corpus_tables()?;
        // The searcher read the entities once (its linker needs them); this indexes them.
        let entities = searcher.entities();
        let by_id = entities.iter().enumerate().map(|(i, e)| (e.id.clone(), i)).collect();
        let mut by_alias: HashMap<Vec<String>, Vec<(usize, String, String)>> = HashMap::new();
        for (i, entity) in entities.iter().enumerate() {
            let names = std::iter::once((entity.name.as_str(), "*"))
                .chain(entity.aliases.iter().map(|a| (a.name.as_str(), a.language.as_str())));
            for (name, language) in names {
                let key = normalized_words(name);
                if key.is_empty() {
                    continue;
                }
                let slot = by_alias.entry(key).or_default();
                if !slot.iter().any(|(j, _, l)| *j == i && l == language) {
                    slot.push((i, name.to_owned(), language.to_owned()));
                }
            }
        }
        Ok(Self {
            generation: searcher.generation.name.clone(),
            searcher,
            by_id,
            by_alias,
            periods,
            terminology,
            works,
            languages,
            declares_witnesses,
        })
    }

    /// The corpus's entities, in the order the indexes here refer to.
    pub(crate) fn entities(&self) -> &[Entity] {
        self.searcher.entities()
    }

    pub(crate) fn entity(&self, id: &str) -> Option<&Entity> {
        self.by_id.get(id).map(|i| &self.entities()[*i])
    }

    /// Entities with an alias (or canonical name) equal to `term`, in that
    /// language when given; each with the alias that matched. Sorted by id.
    pub(crate) fn entities_named(&self, term: &str, language: Option<&str>) -> Vec<(&Entity, String)> {
        let mut out: Vec<(&Entity, String)> = Vec::new();
        for (i, alias, alias_language) in self.by_alias.get(&normalized_words(term)).into_iter().flatten() {
            let language_ok = language.is_none_or(|l| alias_language == l || alias_language == "*");
            if language_ok && !out.iter().any(|(e, _)| e.id == self.entities()[*i].id) {
                out.push((&self.entities()[*i], alias.clone()));
            }
        }
        out.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        out
    }

    /// Up to `n` entities whose names are close to `term`, best first: a name
    /// that contains the term or is contained in it, then names sharing a
    /// word, then names spelt alike (normalised Damerau-Levenshtein ≥ 0.7).
    /// One suggestion per entity, with its closest name; ties by entity id
    /// and alias, so the answer does not depend on hash order.
    pub(crate) fn close_names(&self, term: &str, language: Option<&str>, n: usize) -> Vec<Suggestion> {
        // Possessives compare as their base word: "Mivart" is close to "Mivart's objections".
        let base = |w: &String| without_possessive(w).to_owned();
        let words: Vec<String> = normalized_words(term).iter().map(base).collect();
        if words.is_empty() {
            return Vec::new();
        }
        let phrase = words.join(" ");
        let content: Vec<&String> = words.iter().filter(|w| w.chars().count() > 2).collect();
        let padded = |s: &str| format!(" {s} ");
        let mut best: HashMap<usize, Closeness> = HashMap::new();
        for (key, owners) in &self.by_alias {
            let key: Vec<String> = key.iter().map(base).collect();
            let alias = key.join(" ");
            let similarity = strsim::normalized_damerau_levenshtein(&phrase, &alias);
            let (tier, how) = if padded(&alias).contains(&padded(&phrase)) || padded(&phrase).contains(&padded(&alias))
            {
                (3, "contains")
            } else if content.iter().any(|w| key.contains(w)) {
                (2, "shared_words")
            } else if similarity >= 0.7 {
                (1, "similar_spelling")
            } else {
                continue;
            };
            for (i, written, alias_language) in owners {
                if language.is_some_and(|l| alias_language != l && alias_language != "*") {
                    continue;
                }
                let candidate = Closeness { tier, similarity, alias: written.clone(), how };
                if best.get(i).is_none_or(|b| candidate.beats(b)) {
                    best.insert(*i, candidate);
                }
            }
        }
        let mut ranked: Vec<(usize, Closeness)> = best.into_iter().collect();
        ranked.sort_by(|(ia, a), (ib, b)| {
            b.tier
                .cmp(&a.tier)
                .then(b.similarity.total_cmp(&a.similarity))
                .then_with(|| self.entities()[*ia].id.cmp(&self.entities()[*ib].id))
        });
        ranked
            .into_iter()
            .take(n)
            .map(|(i, c)| Suggestion {
                entity_id: self.entities()[i].id.clone(),
                name: self.entities()[i].name.clone(),
                alias: c.alias,
                how: c.how.to_owned(),
            })
            .collect()
    }

    pub(crate) fn period(&self, id: &str) -> Option<&PeriodRow> {
        self.periods.iter().find(|p| p.id == id)
    }
}

/// How close one alias is to a term (for `OpenIndex::close_names`).
struct Closeness {
    /// 3 contains, 2 shares a word, 1 spelt alike.
    tier: u8,
    similarity: f64,
    alias: String,
    how: &'static str,
}

impl Closeness {
    /// Higher tier, then higher similarity, then the alphabetically first alias.
    fn beats(&self, other: &Closeness) -> bool {
        self.tier
            .cmp(&other.tier)
            .then(self.similarity.total_cmp(&other.similarity))
            .then_with(|| other.alias.cmp(&self.alias))
            .is_gt()
    }
}

/// Follows the index directory's `CURRENT` pointer: a call after a rebuild
/// opens the new generation; calls in flight keep the one they started with.
/// `CURRENT` is read only when its file identity (inode, length, modification
/// time) changed since the last call — a publish replaces it by rename — so
/// a call costs one `stat`, not a read and a parse.
pub(crate) struct IndexHandle {
    dir: PathBuf,
    models_dir: Option<PathBuf>,
    open: RwLock<Option<Served>>,
}

/// The open generation and the identity of the `CURRENT` file that named it.
struct Served {
    index: Arc<OpenIndex>,
    current: Option<FileIdentity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileIdentity {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Self { device: meta.dev(), inode: meta.ino(), len: meta.len(), modified: meta.modified().ok() })
    }
}

impl IndexHandle {
    /// Opens the serving generation now, so a server can refuse to start without one.
    pub(crate) fn open(dir: &Path, models_dir: Option<&Path>) -> crate::Result<Self> {
        let current = FileIdentity::of(&IndexDir::current_path(dir));
        let index = Arc::new(OpenIndex::open(dir, models_dir)?);
        Ok(Self {
            dir: dir.to_owned(),
            models_dir: models_dir.map(Path::to_owned),
            open: RwLock::new(Some(Served { index, current })),
        })
    }

    /// The serving generation, reopened when `CURRENT` has moved.
    pub(crate) fn get(&self) -> Result<Arc<OpenIndex>, ToolError> {
        let identity = FileIdentity::of(&IndexDir::current_path(&self.dir));
        if let Ok(guard) = self.open.read()
            && let Some(served) = guard.as_ref()
            && identity.is_some()
            && served.current == identity
        {
            return Ok(Arc::clone(&served.index));
        }
        let current = IndexDir::open(&self.dir).and_then(|d| d.require_current()).map_err(ToolError::from)?;
        let reuse = self.open.read().ok().and_then(|guard| {
            guard.as_ref().filter(|s| s.index.generation == current.name).map(|s| Arc::clone(&s.index))
        });
        let index = match reuse {
            Some(index) => index,
            None => {
                tracing::info!(generation = %current.name, "opening new index generation");
                Arc::new(OpenIndex::open(&self.dir, self.models_dir.as_deref()).map_err(ToolError::from)?)
            }
        };
        if let Ok(mut guard) = self.open.write() {
            *guard = Some(Served { index: Arc::clone(&index), current: identity });
        }
        Ok(index)
    }
}
