//! The process-wide "found or started once" cell behind [`crate::postgres()`]
//! and [`crate::redis()`].
//!
//! Not a `OnceLock`: [`crate::stop_started_services`] must be able to empty
//! it so a later call starts over. The values are leaked to hand out
//! `&'static` references; that is one small struct per start, at most a few
//! per process.

use std::sync::{Mutex, PoisonError};

/// A lazily filled slot holding either the service or why it is missing.
pub(crate) struct ServiceSlot<T: 'static> {
    // The error is kept as text so every later caller gets the same message
    // without paying for the search again.
    state: Mutex<Option<Result<&'static T, String>>>,
}

impl<T: 'static> ServiceSlot<T> {
    pub(crate) const fn new() -> Self {
        ServiceSlot {
            state: Mutex::new(None),
        }
    }

    /// Returns the service, running `find` first if the slot is empty. Other
    /// callers wait meanwhile, so the service is found or started only once.
    pub(crate) fn get_or_find(
        &self,
        find: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<&'static T> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let found = state.get_or_insert_with(|| match find() {
            Ok(service) => Ok(&*Box::leak(Box::new(service))),
            Err(error) => Err(format!("{error:#}")),
        });
        match found {
            Ok(service) => Ok(*service),
            Err(message) => Err(anyhow::anyhow!("{message}")),
        }
    }

    /// Empties the slot if it holds a service for which `forget` is true.
    pub(crate) fn forget_if(&self, forget: impl FnOnce(&T) -> bool) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Ok(service)) = *state {
            if forget(service) {
                *state = None;
            }
        }
    }
}
