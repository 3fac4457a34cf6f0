-- The users table read by GET /users/{id} and, on a cache miss, by GET /users/{id}/cache.
-- Every statement here is idempotent: both servers run this file at every start-up,
-- inside one transaction that holds an advisory lock, so two servers starting at the
-- same instant on an empty database apply it exactly once.
CREATE TABLE IF NOT EXISTS users (
    id         BIGINT      PRIMARY KEY,
    name       TEXT        NOT NULL,
    email      TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
