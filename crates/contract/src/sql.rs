//! The SQL both servers send, as text, and the schema they apply at start-up.
//!
//! Every statement that carries client input is parameterised (`$1`): no
//! request text is ever formatted into SQL.

/// `GET /users/{id}`: the one query of the I/O-bound group.
pub const SELECT_USER_BY_ID: &str =
    "SELECT id, name, email, created_at, updated_at FROM users WHERE id = $1";

/// All users' cached fields, read once at start-up to fill Redis.
pub const SELECT_ALL_USER_CACHE_FIELDS: &str = "SELECT id, name, email FROM users ORDER BY id";

/// How many users the seed migration creates.
pub const SEEDED_USERS: i64 = 10_000;

/// The advisory lock both servers take (transaction-scoped) while applying
/// [`MIGRATIONS`], so two servers starting at once apply them one after the other.
pub const MIGRATION_LOCK_KEY: i64 = 0x6d76_635f_7766_6c78; // "mvc_wflx"

/// `SELECT pg_advisory_xact_lock(..)` with [`MIGRATION_LOCK_KEY`].
pub const TAKE_MIGRATION_LOCK: &str = "SELECT pg_advisory_xact_lock(7887601059062246520)";

/// The files of `migrations/`, in order. Each is idempotent; a server runs them
/// all, in one transaction after [`TAKE_MIGRATION_LOCK`], at every start-up.
pub const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_create_users.sql",
        include_str!("../../../migrations/0001_create_users.sql"),
    ),
    (
        "0002_seed_users.sql",
        include_str!("../../../migrations/0002_seed_users.sql"),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_statement_uses_the_lock_key() {
        assert_eq!(
            TAKE_MIGRATION_LOCK,
            format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        );
    }

    #[test]
    fn seed_migration_seeds_the_documented_count() {
        let seed = MIGRATIONS[1].1;
        assert!(seed.contains(&format!("generate_series(1, {SEEDED_USERS})")));
        assert!(seed.contains("'seungwoo@gmail.com'"));
    }
}
