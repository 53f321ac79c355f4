//! Admission of HTTP calls: a share per token (`token_busy` at once when it
//! is used up: one client cannot crowd out the others), then a slot of the
//! server (queued in arrival order for up to the queue wait, then
//! `server_busy`). A call is admitted once its head is read and before its
//! body is, so a client that sends its body slowly holds only its own share,
//! and only until the body deadline. Every admitted call is a `Flight` until
//! its answer has been sent; shutdown waits for the flights to land. Search
//! admission (`mcp::admission`) still applies inside, across all clients.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use super::refusal::Refusal;

pub(crate) struct Slots {
    per_token: usize,
    shares: Mutex<HashMap<String, Arc<Semaphore>>>,
    server: Arc<Semaphore>,
    queue_wait: Duration,
    flights: Arc<Flights>,
}

/// Calls whose answers are not yet sent.
#[derive(Default)]
pub(crate) struct Flights {
    count: AtomicUsize,
    landed: Notify,
}

impl Flights {
    pub(crate) fn in_flight(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Waits until no call is in flight.
    pub(crate) async fn all_landed(&self) {
        loop {
            // Registered before the count is read, so a landing in between is not missed.
            let landed = self.landed.notified();
            if self.in_flight() == 0 {
                return;
            }
            landed.await;
        }
    }
}

struct Flight(Arc<Flights>);

impl Drop for Flight {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.landed.notify_waiters();
    }
}

/// What an admitted call holds until its answer is sent.
pub(crate) struct Held {
    _share: Option<OwnedSemaphorePermit>,
    _slot: OwnedSemaphorePermit,
    _flight: Flight,
}

impl Slots {
    pub(crate) fn new(per_token: usize, server: usize, queue_wait: Duration) -> Self {
        Self {
            per_token: per_token.max(1),
            shares: Mutex::new(HashMap::new()),
            server: Arc::new(Semaphore::new(server.max(1))),
            queue_wait,
            flights: Arc::default(),
        }
    }

    pub(crate) fn flights(&self) -> Arc<Flights> {
        Arc::clone(&self.flights)
    }

    /// Admits a call of `label` (`None`: a server without tokens, where only the server's slots count).
    pub(crate) async fn admit(&self, label: Option<&str>) -> Result<Held, Refusal> {
        let share = match label {
            Some(label) => {
                let share = {
                    let mut shares = self.shares.lock().map_err(|_| Refusal::ServerBusy)?;
                    let per_token = self.per_token;
                    Arc::clone(shares.entry(label.to_owned()).or_insert_with(|| Arc::new(Semaphore::new(per_token))))
                };
                Some(share.try_acquire_owned().map_err(|_| Refusal::TokenBusy)?)
            }
            None => None,
        };
        let slot = tokio::time::timeout(self.queue_wait, Arc::clone(&self.server).acquire_owned())
            .await
            .map_err(|_| Refusal::ServerBusy)?
            .map_err(|_| Refusal::ServerBusy)?;
        self.flights.count.fetch_add(1, Ordering::SeqCst);
        Ok(Held { _share: share, _slot: slot, _flight: Flight(Arc::clone(&self.flights)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_token_over_its_share_is_refused_at_once_and_others_are_not() {
        let slots = Slots::new(2, 10, Duration::from_secs(5));
        let a1 = slots.admit(Some("a")).await.unwrap();
        let _a2 = slots.admit(Some("a")).await.unwrap();
        assert_eq!(slots.admit(Some("a")).await.err(), Some(Refusal::TokenBusy));
        let _b = slots.admit(Some("b")).await.unwrap();
        assert_eq!(slots.flights().in_flight(), 3);
        drop(a1);
        assert!(slots.admit(Some("a")).await.is_ok(), "a landed call frees its share");
    }

    #[tokio::test]
    async fn a_full_server_queues_then_refuses_after_the_wait() {
        let slots = Slots::new(8, 1, Duration::from_millis(50));
        let held = slots.admit(None).await.unwrap();
        let started = std::time::Instant::now();
        assert_eq!(slots.admit(Some("x")).await.err(), Some(Refusal::ServerBusy));
        assert!(started.elapsed() >= Duration::from_millis(50), "it waited for a slot first");
        // The refused call gave its token share back.
        drop(held);
        assert!(slots.admit(Some("x")).await.is_ok());
    }

    #[tokio::test]
    async fn a_queued_call_gets_the_slot_a_landing_call_frees() {
        let slots = Arc::new(Slots::new(8, 1, Duration::from_secs(5)));
        let held = slots.admit(None).await.unwrap();
        let waiting = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.admit(None).await.map(|_| ()) })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(held);
        assert_eq!(waiting.await.unwrap(), Ok(()));
    }

    #[tokio::test]
    async fn shutdown_waits_for_every_flight_to_land() {
        let slots = Slots::new(8, 8, Duration::from_secs(1));
        let flights = slots.flights();
        flights.all_landed().await;
        let held = slots.admit(None).await.unwrap();
        let landing = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            drop(held);
        });
        tokio::time::timeout(Duration::from_secs(2), flights.all_landed()).await.unwrap();
        assert_eq!(flights.in_flight(), 0);
        landing.await.unwrap();
    }
}
