//! Service URLs as they may appear in messages: with any password masked.

/// `url` with its password replaced by `***`; a URL that does not parse is
/// not shown at all, since we cannot tell where its secret is.
pub(crate) fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            if parsed.password().is_some() {
                let _ = parsed.set_password(Some("***"));
            }
            parsed.into()
        }
        Err(_) => "the configured URL".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            redacted("postgres://app:secret@127.0.0.1/db"),
            "postgres://app:***@127.0.0.1/db"
        );
        assert_eq!(
            redacted("redis://:secret@127.0.0.1:6379"),
            "redis://:***@127.0.0.1:6379"
        );
    }

    #[test]
    fn urls_without_password_are_unchanged() {
        assert_eq!(
            redacted("postgres://app@127.0.0.1/db"),
            "postgres://app@127.0.0.1/db"
        );
    }

    #[test]
    fn unparseable_urls_are_not_shown() {
        assert_eq!(redacted("host=db password=secret"), "the configured URL");
    }
}
