//! The contract suite's cases: a request, and the status and exact body the
//! contract says it gets, built from the `contract` crate's own types and
//! errors. The cross-server suite (`tests/suites/contract_suite.rs`) runs
//! them against every server mode; bench's tests run those whose routes the
//! calibration servers have against Tomcat and Netty.

use std::net::SocketAddr;

use contract::model::{to_json, CachedUser, CpuResult, Health, Post};
use contract::params::{parse_cpu_n, parse_id, MAX_BODY_BYTES};
use contract::workload::sqrt_sum;
use contract::ApiError;

use crate::http::Response;

/// What a case expects: a status and either an exact body or an error of the contract's shape.
pub enum Expect {
    Json(u16, Vec<u8>),
    Error(ApiError),
    /// Only the status and the `{"error":..}` shape (message left to the server).
    ErrorStatus(u16),
}

pub struct Case {
    pub name: &'static str,
    pub method: &'static str,
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    pub expect: Expect,
}

fn get(name: &'static str, path: &str, expect: Expect) -> Case {
    Case {
        name,
        method: "GET",
        path: path.to_owned(),
        headers: vec![],
        body: vec![],
        expect,
    }
}

fn user_1_json() -> Vec<u8> {
    br#"{"id":1,"name":"seungwoo","email":"seungwoo@gmail.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#.to_vec()
}

/// Every case of the contract suite, in its order.
pub fn cases() -> Vec<Case> {
    let json = |status, v: Vec<u8>| Expect::Json(status, v);
    let echo = |name, content_type: Option<&str>, body: &[u8], expect| Case {
        name,
        method: "POST",
        path: "/echo".into(),
        headers: content_type
            .map(|c| vec![("Content-Type", c.to_owned())])
            .unwrap_or_default(),
        body: body.to_vec(),
        expect,
    };
    vec![
        get("health", "/health", json(200, to_json(&Health::ok()))),
        get("cpu small n", "/cpu?n=1000", json(200, to_json(&CpuResult { n: 1000, result: sqrt_sum(1000) }))),
        get("cpu default n", "/cpu", json(200, to_json(&CpuResult { n: 10_000_000, result: sqrt_sum(10_000_000) }))),
        get("cpu n=0", "/cpu?n=0", Expect::Error(parse_cpu_n(Some("n=0")).unwrap_err())),
        get("cpu n too big", "/cpu?n=100000001", Expect::Error(parse_cpu_n(Some("n=100000001")).unwrap_err())),
        get("cpu n not a number", "/cpu?n=abc", Expect::Error(parse_cpu_n(Some("n=abc")).unwrap_err())),
        get("user 1", "/users/1", json(200, user_1_json())),
        get("user 10000", "/users/10000", json(200, br#"{"id":10000,"name":"user10000","email":"user10000@example.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#.to_vec())),
        get("absent user", "/users/10001", Expect::Error(ApiError::user_not_found(10001))),
        get("user id 0", "/users/0", Expect::Error(parse_id("0").unwrap_err())),
        get("user id negative", "/users/-1", Expect::Error(parse_id("-1").unwrap_err())),
        get("user id text", "/users/abc", Expect::Error(parse_id("abc").unwrap_err())),
        get("user id overflow", "/users/99999999999999999999", Expect::Error(parse_id("99999999999999999999").unwrap_err())),
        get("cached user 1", "/users/1/cache", json(200, to_json(&CachedUser { name: "seungwoo".into(), email: "seungwoo@gmail.com".into() }))),
        get("cached absent user", "/users/10001/cache", Expect::Error(ApiError::user_not_found(10001))),
        get("cached bad id", "/users/x/cache", Expect::Error(parse_id("x").unwrap_err())),
        get("post 1", "/posts/1", json(200, to_json(&Post { id: 1, content: "Post content is 1".into() }))),
        get("post 10 fails on purpose", "/posts/10", Expect::Error(contract::posts::post_after_delay(10).unwrap_err())),
        get("post bad id", "/posts/nope", Expect::Error(parse_id("nope").unwrap_err())),
        echo("echo", Some("application/json"), br#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#,
            json(200, br#"{"firstName":"Adax","lastName":"Lovelacex","age":46}"#.to_vec())),
        echo("echo with charset", Some("application/json; charset=utf-8"), br#"{"FirstName":"a","LastName":"b","Age":-10}"#,
            json(200, br#"{"firstName":"ax","lastName":"bx","age":0}"#.to_vec())),
        echo("echo malformed json", Some("application/json"), b"{not json", Expect::ErrorStatus(400)),
        echo("echo missing field", Some("application/json"), br#"{"FirstName":"a"}"#, Expect::ErrorStatus(400)),
        echo("echo wrong content type", Some("text/plain"), br#"{"FirstName":"a","LastName":"b","Age":1}"#, Expect::Error(ApiError::unsupported_media_type())),
        echo("echo no content type", None, br#"{"FirstName":"a","LastName":"b","Age":1}"#, Expect::Error(ApiError::unsupported_media_type())),
        echo("echo body over 64 KiB", Some("application/json"), &vec![b' '; MAX_BODY_BYTES + 1], Expect::Error(ApiError::payload_too_large())),
        get("unknown route", "/nope", Expect::Error(ApiError::no_route())),
        get("unknown sub-route", "/users/1/nope", Expect::Error(ApiError::no_route())),
        get("echo with GET", "/echo", Expect::Error(ApiError::method_not_allowed())),
        Case { name: "health with POST", method: "POST", path: "/health".into(), headers: vec![], body: vec![], expect: Expect::Error(ApiError::method_not_allowed()) },
        Case { name: "user with DELETE", method: "DELETE", path: "/users/1".into(), headers: vec![], body: vec![], expect: Expect::Error(ApiError::method_not_allowed()) },
        // The framing rule both servers share (contract::framing).
        Case { name: "content-length with a sign", method: "GET", path: "/health".into(), headers: vec![("Content-Length", "+5".into())], body: vec![], expect: Expect::Error(contract::framing::malformed("content-length")) },
        Case { name: "header over 16 KiB", method: "GET", path: "/health".into(), headers: vec![("X-Big", "a".repeat(20 * 1024))], body: vec![], expect: Expect::Error(ApiError::headers_too_large()) },
    ]
}

/// One case against the server at `addr`, named `server` in a failure.
pub fn run_case_at(addr: SocketAddr, server: &str, case: &Case) -> Response {
    let headers: Vec<(&str, &str)> = case.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    crate::http::send(addr, case.method, &case.path, &headers, &case.body)
        .unwrap_or_else(|e| panic!("{server} {} {}: {e}", case.method, case.path))
}

/// Whether `got` is the answer `case` expects from the server named
/// `server`; what differs, in a line, when not.
pub fn check(server: &str, case: &Case, got: &Response) -> Result<(), String> {
    let fail = |what: String| {
        Err(format!(
            "{} server, case {:?}: {what}; got {} {}",
            server,
            case.name,
            got.status,
            got.text()
        ))
    };
    let (status, body) = match &case.expect {
        Expect::Json(s, b) => (*s, Some(b.clone())),
        Expect::Error(e) => (e.status(), Some(e.body_json())),
        Expect::ErrorStatus(s) => (*s, None),
    };
    if got.status != status {
        return fail(format!("expected status {status}"));
    }
    match body {
        Some(b) if got.body != b => {
            return fail(format!("expected body {}", String::from_utf8_lossy(&b)))
        }
        None => {
            let v = got.json();
            if v.as_object()
                .map(|o| o.len() == 1 && o.get("error").is_some_and(|m| m.is_string()))
                != Some(true)
            {
                return fail("expected the {\"error\":..} shape".into());
            }
        }
        _ => {}
    }
    if !got.body.is_empty()
        && !got
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/json"))
    {
        return fail(format!(
            "expected Content-Type application/json, got {:?}",
            got.header("content-type")
        ));
    }
    Ok(())
}
