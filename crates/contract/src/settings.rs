//! The defaults both servers, bench and the tests agree on (where the
//! servers listen, where Postgres and Redis are), and how a URL from the
//! settings is shown in a log line. Data and a text rule only: the flags
//! that read them are each server's (`server_settings::CommonSettings`).

/// Postgres, when neither `--database-url` nor `DATABASE_URL` says otherwise.
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres:postgres@127.0.0.1:5432/postgres";
/// Redis, when neither `--redis-url` nor `REDIS_URL` says otherwise.
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";
/// Where the blocking server listens by default (`--bind`).
pub const DEFAULT_BLOCKING_BIND: &str = "127.0.0.1:8080";
/// Where the async server listens by default (`--bind`).
pub const DEFAULT_ASYNC_BIND: &str = "127.0.0.1:8081";

/// What [`redact_url`] shows instead of text it cannot read as a URL.
pub const UNREADABLE_URL: &str = "the configured URL";

/// `url` with any password replaced by `***`, for logs and error messages:
/// the one redactor of the workspace (both servers and local-services).
///
/// The password is the one after `user:` in `scheme://user:password@host`,
/// or a `password=` query parameter (libpq reads one there too). Text that
/// is not `scheme://...` at all (a libpq `host=db password=x` string, a typo)
/// is not shown, since we cannot tell where its secret is.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return UNREADABLE_URL.to_owned();
    };
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return UNREADABLE_URL.to_owned();
    }
    let (authority_and_path, query) = match rest.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (rest, None),
    };
    // The userinfo ends at the last '@' before the path.
    let authority_end = authority_and_path
        .find('/')
        .unwrap_or(authority_and_path.len());
    let (authority, path) = authority_and_path.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_owned(),
    };
    let mut redacted = format!("{scheme}://{authority}{path}");
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        redacted.push('?');
        redacted.push_str(&pairs.join("&"));
    }
    redacted
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn passwords_are_redacted() {
        let table = [
            (
                "postgres://postgres:secret@db:5432/postgres",
                "postgres://postgres:***@db:5432/postgres",
            ),
            (
                "redis://:secret@127.0.0.1:6379",
                "redis://:***@127.0.0.1:6379",
            ),
            // A password holding '@': the userinfo ends at the last one.
            ("postgres://app:p@ss@db/x", "postgres://app:***@db/x"),
            (
                "postgres://db/x?user=app&password=secret&sslmode=off",
                "postgres://db/x?user=app&password=***&sslmode=off",
            ),
            ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
            ("postgres://app@db/x", "postgres://app@db/x"),
            // '@' after the host is path, not userinfo.
            ("postgres://db/a@b", "postgres://db/a@b"),
        ];
        for (url, want) in table {
            assert_eq!(redact_url(url), want, "{url}");
        }
    }

    #[test]
    fn text_that_is_not_a_url_is_not_shown() {
        for text in ["host=db password=secret", "db:secret@host", "://x:y@z", ""] {
            assert_eq!(redact_url(text), UNREADABLE_URL, "{text:?}");
        }
    }
}
