//! Which token opened each MCP session. A session id travels in a header and
//! could be replayed by another token holder; here a session answers only
//! the token that opened it, and to any other it does not exist (404, as
//! for an unknown session). Entries are kept as long as rmcp keeps idle
//! sessions, and pruned when a session is opened.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(crate) struct SessionOwners {
    owners: Mutex<HashMap<String, Owner>>,
    idle: Duration,
}

struct Owner {
    label: Option<String>,
    seen: Instant,
}

impl SessionOwners {
    pub(crate) fn new(idle: Duration) -> Self {
        Self { owners: Mutex::new(HashMap::new()), idle }
    }

    /// A session rmcp has just opened for `label`.
    pub(crate) fn opened(&self, session: &str, label: Option<&str>) {
        let Ok(mut owners) = self.owners.lock() else { return };
        let now = Instant::now();
        owners.retain(|_, owner| now.duration_since(owner.seen) <= self.idle);
        owners.insert(session.to_owned(), Owner { label: label.map(str::to_owned), seen: now });
    }

    /// Whether `label` may use `session`. A session this gate did not see
    /// opened is left to rmcp (which answers 404 for it).
    pub(crate) fn allows(&self, session: &str, label: Option<&str>) -> bool {
        let Ok(mut owners) = self.owners.lock() else { return false };
        match owners.get_mut(session) {
            None => true,
            Some(owner) if owner.label.as_deref() == label => {
                owner.seen = Instant::now();
                true
            }
            Some(_) => false,
        }
    }

    /// A session its owner ended (DELETE).
    pub(crate) fn closed(&self, session: &str) {
        if let Ok(mut owners) = self.owners.lock() {
            owners.remove(session);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.owners.lock().map_or(0, |o| o.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_answers_only_the_token_that_opened_it() {
        let owners = SessionOwners::new(Duration::from_secs(60));
        owners.opened("s1", Some("alice"));
        assert!(owners.allows("s1", Some("alice")));
        assert!(!owners.allows("s1", Some("bob")));
        assert!(!owners.allows("s1", None));
        assert!(owners.allows("unknown", Some("bob")), "rmcp answers for sessions it does not know");
        owners.closed("s1");
        assert!(owners.allows("s1", Some("bob")));
    }

    #[test]
    fn idle_entries_are_pruned_when_a_session_opens() {
        let owners = SessionOwners::new(Duration::from_millis(10));
        owners.opened("old", Some("a"));
        std::thread::sleep(Duration::from_millis(30));
        owners.opened("new", Some("a"));
        assert_eq!(owners.len(), 1);
    }
}
