//! The kinds of failed request a load reports, spelled in results.json as
//! the load generator's report and the importers name them ("status_500",
//! "connect", "timeout", "other", "unfinished").

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a request did not succeed. Ordered as results.json's keys sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// The connection could not be made, or was refused.
    Connect,
    /// Any other failure (a broken connection, an unreadable answer).
    Other,
    /// An answer with this status (400 and above).
    Status(u16),
    /// No answer within the load generator's timeout.
    Timeout,
    /// Still in flight when a sweep step's window was cut.
    Unfinished,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Connect => f.write_str("connect"),
            ErrorKind::Other => f.write_str("other"),
            ErrorKind::Status(code) => write!(f, "status_{code}"),
            ErrorKind::Timeout => f.write_str("timeout"),
            ErrorKind::Unfinished => f.write_str("unfinished"),
        }
    }
}

impl FromStr for ErrorKind {
    type Err = String;

    fn from_str(text: &str) -> Result<ErrorKind, String> {
        match text {
            "connect" => Ok(ErrorKind::Connect),
            "other" => Ok(ErrorKind::Other),
            "timeout" => Ok(ErrorKind::Timeout),
            "unfinished" => Ok(ErrorKind::Unfinished),
            _ => text
                .strip_prefix("status_")
                .and_then(|code| code.parse().ok())
                .map(ErrorKind::Status)
                .ok_or_else(|| format!("unknown error kind {text:?}")),
        }
    }
}

impl Serialize for ErrorKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ErrorKind, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_spell_as_results_json_does_and_sort_the_same() {
        let kinds = [
            ErrorKind::Connect,
            ErrorKind::Other,
            ErrorKind::Status(404),
            ErrorKind::Status(500),
            ErrorKind::Timeout,
            ErrorKind::Unfinished,
        ];
        let texts: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted, "the enum's order is the strings' order");
        for (kind, text) in kinds.iter().zip(&texts) {
            assert_eq!(text.parse::<ErrorKind>(), Ok(*kind));
        }
        assert!("status_x".parse::<ErrorKind>().is_err());
        assert!("refused".parse::<ErrorKind>().is_err());
    }
}
