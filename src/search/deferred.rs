//! The vector lane, loaded in the background. Loading the embedding model and
//! a private copy of the vector store costs most of a reader's start-up (about
//! 0.4 s here, far more when many servers start at once), and a server must
//! answer its client's handshake promptly; so the lane loads on a thread of its
//! own. A request that runs the lane waits for it (`get`); everything else —
//! lexical and exact searches, lookups, the status — asks without waiting
//! (`peek`), so the first lexical search after start-up answers at once.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

type Loaded<T> = Result<T, String>;

pub(crate) struct Deferred<T> {
    value: OnceLock<Loaded<T>>,
    loading: Mutex<Option<JoinHandle<Loaded<T>>>>,
}

impl<T: Send + 'static> Deferred<T> {
    /// A value already known (or known to be unavailable).
    pub(crate) fn ready(value: Loaded<T>) -> Self {
        Self { value: OnceLock::from(value), loading: Mutex::new(None) }
    }

    /// Starts `load` on a thread; `get` waits for it.
    pub(crate) fn start(name: &str, load: impl FnOnce() -> Loaded<T> + Send + 'static) -> Self {
        match std::thread::Builder::new().name(name.to_owned()).spawn(load) {
            Ok(handle) => Self { value: OnceLock::new(), loading: Mutex::new(Some(handle)) },
            Err(e) => Self::ready(Err(format!("could not start loading ({e})"))),
        }
    }

    /// The value when loading has ended (`Some`), or `None` while it goes on.
    /// Never waits.
    pub(crate) fn peek(&self) -> Option<Result<&T, &str>> {
        if self.value.get().is_none() {
            // No handle and no value: another caller is joining the thread.
            let finished = self.loading.lock().ok().is_some_and(|h| h.as_ref().is_some_and(JoinHandle::is_finished));
            if !finished {
                return None;
            }
        }
        Some(self.get())
    }

    /// The value, once loaded; the first caller joins the loading thread.
    pub(crate) fn get(&self) -> Result<&T, &str> {
        self.value
            .get_or_init(|| {
                let handle = self.loading.lock().ok().and_then(|mut h| h.take());
                match handle.map(JoinHandle::join) {
                    Some(Ok(loaded)) => loaded,
                    Some(Err(_)) => Err("loading failed unexpectedly (see the server log)".into()),
                    None => Err("loading was interrupted".into()),
                }
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// A reader dropped while its lane still loads waits for the load: a process
/// that exits with the loading thread inside the ONNX runtime can crash on the
/// way out (a lexical `evident search` ends before the model has loaded).
impl<T> Drop for Deferred<T> {
    fn drop(&mut self) {
        if let Ok(loading) = self.loading.get_mut()
            && let Some(handle) = loading.take()
        {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_caller_gets_the_one_loaded_value() {
        let deferred = std::sync::Arc::new(Deferred::start("test", || Ok(vec![1, 2, 3])));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let deferred = deferred.clone();
                std::thread::spawn(move || deferred.get().map(|v| v.len()).map_err(str::to_owned))
            })
            .collect();
        for reader in readers {
            assert_eq!(reader.join().unwrap(), Ok(3));
        }
    }

    #[test]
    fn peek_does_not_wait_for_the_load() {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let deferred = Deferred::start("test", move || {
            let _ = wait.recv();
            Ok(7)
        });
        assert_eq!(deferred.peek(), None, "still loading");
        release.send(()).unwrap();
        assert_eq!(deferred.get(), Ok(&7));
        assert_eq!(deferred.peek(), Some(Ok(&7)));
        let ready: Deferred<u8> = Deferred::ready(Err("no vectors".into()));
        assert_eq!(ready.peek(), Some(Err("no vectors")));
    }

    #[test]
    fn dropping_a_deferred_value_waits_for_its_load() {
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = done.clone();
        let deferred: Deferred<()> = Deferred::start("test", move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        });
        drop(deferred);
        assert!(done.load(std::sync::atomic::Ordering::SeqCst), "the load ended before the drop returned");
    }

    #[test]
    fn a_failed_or_panicking_load_is_an_error_not_a_hang() {
        let failed: Deferred<u8> = Deferred::start("test", || Err("model missing".into()));
        assert_eq!(failed.get(), Err("model missing"));
        let panicked: Deferred<u8> = Deferred::start("test", || panic!("boom"));
        assert!(panicked.get().is_err());
        assert!(panicked.get().is_err(), "asked twice, same answer");
    }
}
