//! The bytes of one HTTP/1.1 request, built once before the run. Only when the
//! URL has `{rand:A-B}` placeholders are they rebuilt per request, and then
//! only the request line changes: the head after it and the body are shared.

use bytes::{Bytes, BytesMut};
use rand::Rng;

use crate::target::{Target, TargetPiece};

/// What to send, as given on the command line or through the library.
#[derive(Debug, Clone)]
pub struct RequestSpec {
    /// Method, e.g. `GET` or `POST`.
    pub method: String,
    /// Extra headers as (name, value).
    pub headers: Vec<(String, String)>,
    /// Request body (empty for none).
    pub body: Bytes,
    /// Whether to keep connections open between requests.
    pub keep_alive: bool,
}

impl Default for RequestSpec {
    fn default() -> Self {
        RequestSpec {
            method: "GET".to_string(),
            headers: Vec::new(),
            body: Bytes::new(),
            keep_alive: true,
        }
    }
}

/// Parses `Name: value` as given to `-H`.
pub(crate) fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("header '{text}' must look like 'Name: value'"))?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err(format!("header '{text}' has an invalid name"));
    }
    if value.contains(['\r', '\n']) {
        return Err(format!("header '{text}' contains a line break"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Checks a method name (`-m`).
pub(crate) fn validate_method(text: &str) -> Result<String, String> {
    if text.is_empty() || !text.bytes().all(is_token_byte) {
        return Err(format!("method '{text}' is not a valid HTTP method"));
    }
    Ok(text.to_ascii_uppercase())
}

/// The request, ready to be written.
#[derive(Debug, Clone)]
pub(crate) struct RequestTemplate {
    /// `METHOD ` (with the trailing space).
    method_prefix: Bytes,
    /// Path pieces; a single literal when there are no placeholders.
    pieces: Vec<TargetPiece>,
    /// ` HTTP/1.1\r\n`, headers, blank line and body.
    head_rest_and_body: Bytes,
    /// The whole request when it never changes.
    fixed: Option<Bytes>,
    /// Whether the response carries no body whatever its headers say (HEAD).
    pub(crate) expects_no_body: bool,
}

impl RequestTemplate {
    /// Builds the request for `target` from `spec`.
    pub(crate) fn new(target: &Target, spec: &RequestSpec) -> RequestTemplate {
        let mut rest = String::from(" HTTP/1.1\r\n");
        let has = |name: &str| {
            spec.headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        if !has("host") {
            rest.push_str(&format!("Host: {}\r\n", target.host_header));
        }
        if !has("user-agent") {
            rest.push_str(concat!(
                "User-Agent: loadgen/",
                env!("CARGO_PKG_VERSION"),
                "\r\n"
            ));
        }
        if !has("accept") {
            rest.push_str("Accept: */*\r\n");
        }
        for (name, value) in &spec.headers {
            rest.push_str(&format!("{name}: {value}\r\n"));
        }
        let method_sends_body = matches!(spec.method.as_str(), "POST" | "PUT" | "PATCH");
        if (!spec.body.is_empty() || method_sends_body) && !has("content-length") {
            rest.push_str(&format!("Content-Length: {}\r\n", spec.body.len()));
        }
        if !spec.keep_alive && !has("connection") {
            rest.push_str("Connection: close\r\n");
        }
        rest.push_str("\r\n");
        let mut head_rest_and_body = BytesMut::from(rest.as_bytes());
        head_rest_and_body.extend_from_slice(&spec.body);

        let mut template = RequestTemplate {
            method_prefix: Bytes::from(format!("{} ", spec.method)),
            pieces: target.pieces.clone(),
            head_rest_and_body: head_rest_and_body.freeze(),
            fixed: None,
            expects_no_body: spec.method == "HEAD",
        };
        if target.is_fixed() {
            let mut whole = BytesMut::new();
            template.write_into(&mut whole, &mut rand::rng());
            template.fixed = Some(whole.freeze());
        }
        template
    }

    /// The whole request when it never changes. Workers borrow it rather
    /// than clone the `Bytes`, so that no reference count shared by every
    /// thread is touched per request.
    pub(crate) fn fixed_bytes(&self) -> Option<&[u8]> {
        self.fixed.as_deref()
    }

    /// The bytes of the next request: shared when fixed, fresh with new
    /// random ids otherwise.
    pub(crate) fn next_request(&self) -> Bytes {
        match &self.fixed {
            Some(bytes) => bytes.clone(),
            None => {
                let mut out = BytesMut::with_capacity(
                    self.method_prefix.len() + 64 + self.head_rest_and_body.len(),
                );
                self.write_into(&mut out, &mut rand::rng());
                out.freeze()
            }
        }
    }

    fn write_into(&self, out: &mut BytesMut, rng: &mut impl Rng) {
        out.extend_from_slice(&self.method_prefix);
        for piece in &self.pieces {
            match piece {
                TargetPiece::Literal(text) => out.extend_from_slice(text.as_bytes()),
                TargetPiece::Random { low, high } => {
                    let value = rng.random_range(*low..=*high);
                    out.extend_from_slice(value.to_string().as_bytes());
                }
            }
        }
        out.extend_from_slice(&self.head_rest_and_body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &Bytes) -> String {
        String::from_utf8(bytes.to_vec()).expect("ascii request")
    }

    #[test]
    fn a_get_has_host_and_no_body() {
        let target = Target::parse("http://127.0.0.1:9000/health").expect("valid URL");
        let request = RequestTemplate::new(&target, &RequestSpec::default()).next_request();
        let request = text(&request);
        assert!(request.starts_with("GET /health HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n"));
        assert!(request.ends_with("\r\n\r\n"));
        assert!(!request.contains("Content-Length"));
        assert!(!request.contains("Connection: close"));
    }

    #[test]
    fn a_post_carries_its_body_and_headers() {
        let target = Target::parse("http://127.0.0.1:9000/echo").expect("valid URL");
        let spec = RequestSpec {
            method: "POST".into(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: Bytes::from_static(b"{\"a\":1}"),
            keep_alive: false,
        };
        let request = text(&RequestTemplate::new(&target, &spec).next_request());
        assert!(request.starts_with("POST /echo HTTP/1.1\r\n"));
        assert!(request.contains("Content-Type: application/json\r\n"));
        assert!(request.contains("Content-Length: 7\r\n"));
        assert!(request.contains("Connection: close\r\n"));
        assert!(request.ends_with("\r\n\r\n{\"a\":1}"));
    }

    #[test]
    fn placeholders_give_ids_in_range() {
        let target = Target::parse("http://127.0.0.1:9000/users/{rand:3-5}").expect("valid URL");
        let template = RequestTemplate::new(&target, &RequestSpec::default());
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let request = text(&template.next_request());
            let id: u64 = request["GET /users/".len()..]
                .split(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .expect("an id in the request line");
            seen.insert(id);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![3, 4, 5]);
    }

    #[test]
    fn header_parsing_names_the_problem() {
        assert_eq!(
            parse_header("X-Id: 42"),
            Ok(("X-Id".to_string(), "42".to_string()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header(": empty name").is_err());
        assert!(validate_method("GE T").is_err());
        assert_eq!(validate_method("post"), Ok("POST".to_string()));
    }
}
