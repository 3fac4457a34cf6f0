//! The target URL: validated once, resolved to a socket address once, and
//! split into literal pieces and `{rand:A-B}` placeholders so that each request
//! can hit a random id without re-parsing the URL.

use std::net::{SocketAddr, ToSocketAddrs};

use serde::Serialize;
use url::{Position, Url};

/// A piece of the request target (path and query).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetPiece {
    /// Bytes copied as they are.
    Literal(String),
    /// A random integer drawn uniformly from `low..=high` for every request.
    Random { low: u64, high: u64 },
}

/// A parsed `http://` target.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    /// The URL as the user wrote it (placeholders included).
    pub url: String,
    /// Value for the `Host` header (`host` or `host:port`).
    #[serde(skip)]
    pub host_header: String,
    /// Where connections go; resolved once before the run.
    #[serde(skip)]
    pub addr: SocketAddr,
    /// Path and query, split around placeholders.
    #[serde(skip)]
    pub pieces: Vec<TargetPiece>,
}

impl Target {
    /// Parses and resolves `text`. Errors name what is wrong with the URL.
    pub fn parse(text: &str) -> Result<Target, String> {
        let (marked, ranges) = mark_placeholders(text)?;
        let url = Url::parse(&marked).map_err(|e| format!("malformed URL '{text}': {e}"))?;
        match url.scheme() {
            "http" => {}
            "https" => return Err(format!("URL '{text}': https is not supported, use http://")),
            other => {
                return Err(format!(
                    "URL '{text}': scheme '{other}' is not supported, use http://"
                ))
            }
        }
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| format!("URL '{text}' has no host"))?;
        let port = url.port_or_known_default().unwrap_or(80);
        let host_header = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        // Brackets around IPv6 literals are part of host_str(); strip them to resolve.
        let bare_host = host.trim_start_matches('[').trim_end_matches(']');
        let addr = (bare_host, port)
            .to_socket_addrs()
            .map_err(|e| format!("URL '{text}': cannot resolve host '{host}': {e}"))?
            .next()
            .ok_or_else(|| format!("URL '{text}': host '{host}' resolved to no address"))?;
        let request_target = &url[Position::BeforePath..Position::AfterQuery];
        let pieces = split_on_markers(request_target, &ranges);
        Ok(Target {
            url: text.to_string(),
            host_header,
            addr,
            pieces,
        })
    }

    /// Whether every request has the same target (no placeholders).
    pub fn is_fixed(&self) -> bool {
        self.pieces
            .iter()
            .all(|p| matches!(p, TargetPiece::Literal(_)))
    }
}

fn marker(index: usize) -> String {
    format!("LOADGENRAND{index}X")
}

/// Replaces each `{rand:A-B}` by a marker that survives URL normalisation.
fn mark_placeholders(text: &str) -> Result<(String, Vec<(u64, u64)>), String> {
    let mut out = String::with_capacity(text.len());
    let mut ranges = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{rand:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{rand:".len()..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("URL '{text}': '{{rand:' has no closing '}}'"))?;
        let spec = &after[..end];
        let (low, high) = spec
            .split_once('-')
            .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)))
            .ok_or_else(|| {
                format!(
                    "URL '{text}': placeholder '{{rand:{spec}}}' must look like {{rand:1-10000}}"
                )
            })?;
        if low > high {
            return Err(format!(
                "URL '{text}': placeholder range {low}-{high} is empty"
            ));
        }
        out.push_str(&marker(ranges.len()));
        ranges.push((low, high));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok((out, ranges))
}

fn split_on_markers(request_target: &str, ranges: &[(u64, u64)]) -> Vec<TargetPiece> {
    let mut pieces = Vec::new();
    let mut rest = request_target.to_string();
    for (index, &(low, high)) in ranges.iter().enumerate() {
        let m = marker(index);
        if let Some(at) = rest.find(&m) {
            if at > 0 {
                pieces.push(TargetPiece::Literal(rest[..at].to_string()));
            }
            pieces.push(TargetPiece::Random { low, high });
            rest = rest[at + m.len()..].to_string();
        }
    }
    if !rest.is_empty() || pieces.is_empty() {
        pieces.push(TargetPiece::Literal(rest));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_url_is_one_literal() {
        let target = Target::parse("http://127.0.0.1:8080/health?x=1").expect("valid URL");
        assert_eq!(target.host_header, "127.0.0.1:8080");
        assert_eq!(target.addr.port(), 8080);
        assert_eq!(
            target.pieces,
            vec![TargetPiece::Literal("/health?x=1".into())]
        );
        assert!(target.is_fixed());
    }

    #[test]
    fn an_empty_path_becomes_slash() {
        let target = Target::parse("http://127.0.0.1").expect("valid URL");
        assert_eq!(target.host_header, "127.0.0.1");
        assert_eq!(target.addr.port(), 80);
        assert_eq!(target.pieces, vec![TargetPiece::Literal("/".into())]);
    }

    #[test]
    fn placeholders_split_the_path() {
        let target = Target::parse("http://127.0.0.1:1/users/{rand:1-10000}/posts?p={rand:5-6}")
            .expect("valid URL");
        assert_eq!(
            target.pieces,
            vec![
                TargetPiece::Literal("/users/".into()),
                TargetPiece::Random {
                    low: 1,
                    high: 10000
                },
                TargetPiece::Literal("/posts?p=".into()),
                TargetPiece::Random { low: 5, high: 6 },
            ]
        );
        assert!(!target.is_fixed());
    }

    #[test]
    fn rejects_bad_urls() {
        for text in [
            "not a url",
            "ftp://127.0.0.1/",
            "https://127.0.0.1/",
            "http://127.0.0.1/{rand:9-1}",
            "http://127.0.0.1/{rand:x}",
            "http://127.0.0.1/{rand:1-2",
            "http://",
        ] {
            assert!(Target::parse(text).is_err(), "{text}");
        }
    }
}
