//! Admission of searching calls: first come, first served, one more at once
//! than the machine has cores (so a call's moments off the CPU — waiting
//! for an embedding session, reading rows — are used by the next), and at
//! least two, so one slow search never holds up every other. A search is
//! CPU-bound (query embedding, lane scans); many more of them at once than
//! cores only share the CPU, so all finish late and the scheduler serves them
//! in no particular order. Measured with 16 clients on two cores
//! (`benches/README.md`): admitted in order, the slowest calls wait about
//! half as long. Calls that do not search (`get_passage`, `resolve_entity`,
//! …) are never held back.

use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::surface::registry::ToolSpec;

pub(crate) struct Admission {
    // tokio's semaphore queues waiters in arrival order.
    gate: Arc<Semaphore>,
}

/// How many searches run at once on a machine with `cores` cores.
pub(crate) fn slots_for(cores: usize) -> usize {
    (cores + 1).max(2)
}

/// How many searches run at once on this machine.
pub(crate) fn default_slots() -> usize {
    slots_for(std::thread::available_parallelism().map_or(1, usize::from))
}

impl Admission {
    pub(crate) fn with_slots(slots: usize) -> Self {
        Self { gate: Arc::new(Semaphore::new(slots.max(1))) }
    }

    /// Waits for this call's turn if the tool searches. The permit lives as
    /// long as the call's work, which may outlast its timeout (blocking work
    /// cannot be cancelled): a slot is free only when the CPU is.
    pub(crate) async fn admit(&self, spec: &ToolSpec) -> Option<OwnedSemaphorePermit> {
        if !spec.searches {
            return None;
        }
        // The gate is never closed, so acquiring fails only if it were.
        Arc::clone(&self.gate).acquire_owned().await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::registry::tool;

    #[test]
    fn one_slot_more_than_the_cores_and_at_least_two() {
        assert_eq!(slots_for(0), 2);
        assert_eq!(slots_for(1), 2);
        assert_eq!(slots_for(2), 3);
        assert_eq!(slots_for(8), 9);
    }

    #[tokio::test]
    async fn searches_are_admitted_in_arrival_order_and_other_calls_never_wait() {
        let admission = Arc::new(Admission::with_slots(1));
        let search = tool("search_passages").unwrap();
        let held = admission.admit(search).await;
        assert!(held.is_some(), "a searching tool takes a slot");
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for i in 0..4 {
            let (admission, order) = (Arc::clone(&admission), Arc::clone(&order));
            waiting.push(tokio::spawn(async move {
                let _slot = admission.admit(search).await;
                order.lock().unwrap().push(i);
            }));
            // Each waiter queues before the next one is spawned.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
        }
        assert!(order.lock().unwrap().is_empty(), "no search runs while the only slot is held");
        let passage = tool("get_passage").unwrap();
        assert!(admission.admit(passage).await.is_none(), "a call that does not search is not held back");
        drop(held);
        for task in waiting {
            task.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3]);
    }
}
