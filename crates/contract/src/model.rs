//! The JSON bodies of the contract, one type per answer.
//!
//! Field names and order are part of the contract: both servers serialise these
//! very types, so their bodies are byte-for-byte the same.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize, Serializer};

/// `GET /health`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub health: String,
}

impl Health {
    pub fn ok() -> Self {
        Health {
            health: "ok".to_owned(),
        }
    }
}

/// `GET /cpu` and its variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuResult {
    pub n: u64,
    pub result: f64,
}

/// `GET /users/{id}`: one row of the `users` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub email: String,
    #[serde(serialize_with = "rfc3339_micros")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339_micros")]
    pub updated_at: DateTime<Utc>,
}

/// `GET /users/{id}/cache`: the two cached fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedUser {
    pub name: String,
    pub email: String,
}

/// `GET /posts/{id}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Post {
    pub id: i64,
    pub content: String,
}

/// `POST /echo` request body, in seed 003's field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EchoRequest {
    #[serde(rename = "FirstName")]
    pub first_name: String,
    #[serde(rename = "LastName")]
    pub last_name: String,
    #[serde(rename = "Age")]
    pub age: i64,
}

/// `POST /echo` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EchoResponse {
    pub first_name: String,
    pub last_name: String,
    pub age: i64,
}

impl EchoRequest {
    /// Seed 003's transformation: append "x" to both names, add 10 to the age.
    /// An age that would overflow is the client's fault.
    pub fn answer(self) -> Result<EchoResponse, crate::ApiError> {
        let age = self
            .age
            .checked_add(10)
            .ok_or_else(|| crate::ApiError::bad_request("Age is too large"))?;
        Ok(EchoResponse {
            first_name: self.first_name + "x",
            last_name: self.last_name + "x",
            age,
        })
    }

    /// Parses the body of `POST /echo`. Both servers call this, so malformed JSON
    /// gets the same 400 and message from each.
    pub fn from_json(body: &[u8]) -> Result<Self, crate::ApiError> {
        serde_json::from_slice(body)
            .map_err(|e| crate::ApiError::bad_request(format!("invalid JSON body: {e}")))
    }
}

/// Timestamps as RFC 3339 with microseconds and a `Z`, e.g. `2024-01-01T00:00:00.000000Z`,
/// whatever the driver handed us.
fn rfc3339_micros<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::Micros, true))
}

/// Serialises a contract type. These types hold only strings and numbers, so
/// serialisation cannot fail; if a bug in this crate ever made it fail, the
/// client gets the generic error body rather than a panicked thread.
pub fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|_| br#"{"error":"internal server error"}"#.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn user_json_has_fixed_field_order_and_timestamp_format() {
        let t = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
        let user = User {
            id: 1,
            name: "seungwoo".into(),
            email: "seungwoo@gmail.com".into(),
            created_at: t,
            updated_at: t,
        };
        assert_eq!(
            String::from_utf8(to_json(&user)).unwrap(),
            r#"{"id":1,"name":"seungwoo","email":"seungwoo@gmail.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#
        );
    }

    #[test]
    fn echo_follows_seed_003() {
        let req = EchoRequest::from_json(br#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#)
            .unwrap();
        let json = to_json(&req.answer().unwrap());
        assert_eq!(
            json,
            br#"{"firstName":"Adax","lastName":"Lovelacex","age":46}"#
        );
    }

    #[test]
    fn echo_rejects_bad_bodies_with_400() {
        for body in [
            &b"not json"[..],
            br#"{"FirstName":"a","LastName":"b"}"#,
            br#"{"FirstName":"a","LastName":"b","Age":"x"}"#,
            br#"{"FirstName":"a","LastName":"b","Age":1,"Extra":2}"#,
            br#"{"FirstName":"a","LastName":"b","Age":9223372036854775807}"#,
        ] {
            let err = EchoRequest::from_json(body).and_then(EchoRequest::answer);
            assert_eq!(
                err.unwrap_err().status(),
                400,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
