//! r2d2's connection failures, logged through tracing: r2d2 would write them
//! with the `log` crate, which neither server installs.

/// Logs a pool's failed connection attempts as warnings naming the pool
/// (`"postgres"`, `"redis"`).
#[derive(Debug)]
pub struct LogPoolErrors(pub &'static str);

impl<E: std::fmt::Display> r2d2::HandleError<E> for LogPoolErrors {
    fn handle_error(&self, error: E) {
        tracing::warn!(pool = self.0, error = %error, "pool could not open a connection");
    }
}
