//! The Redis key names of `GET /users/{id}/cache` (seed 001's `users:1:name`).
//!
//! A prefix, empty by default, lets tests share one Redis without seeing each
//! other's keys; a running server and a test run can share it too.

/// `"{prefix}users:{id}:name"`
pub fn name_key(prefix: &str, id: i64) -> String {
    format!("{prefix}users:{id}:name")
}

/// `"{prefix}users:{id}:email"`
pub fn email_key(prefix: &str, id: i64) -> String {
    format!("{prefix}users:{id}:email")
}

/// How many keys one pipelined write sets while seeding the cache at start-up.
pub const SEED_BATCH: usize = 1_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_seeds_names() {
        assert_eq!(name_key("", 1), "users:1:name");
        assert_eq!(email_key("", 1), "users:1:email");
        assert_eq!(name_key("t_ab:", 42), "t_ab:users:42:name");
    }
}
