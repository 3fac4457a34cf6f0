//! Parsing of human durations such as `30s`, `500ms`, `2m` or `1m30s`, the
//! spelling wrk, k6 and oha all accept on their command lines.

use std::time::Duration;

/// Parses `30s`, `500ms`, `2m`, `1h`, `1m30s`, `1.5s` or a bare number of
/// seconds (`10`). Returns a message naming what is wrong otherwise.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty duration".to_string());
    }
    if let Ok(seconds) = text.parse::<f64>() {
        return seconds_to_duration(seconds, text);
    }
    let mut total = 0.0_f64;
    let mut rest = text;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if number_len == 0 {
            return Err(format!(
                "duration '{text}' must start each part with a number"
            ));
        }
        let number: f64 = rest[..number_len]
            .parse()
            .map_err(|_| format!("duration '{text}' has a malformed number"))?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let scale = match unit {
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => {
                return Err(format!(
                    "duration '{text}' has unknown unit '{other}' (use ms, s, m or h)"
                ))
            }
        };
        total += number * scale;
    }
    seconds_to_duration(total, text)
}

fn seconds_to_duration(seconds: f64, text: &str) -> Result<Duration, String> {
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("duration '{text}' must be a non-negative number"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("duration '{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_usual_spellings() {
        let cases = [
            ("30s", 30_000),
            ("500ms", 500),
            ("2m", 120_000),
            ("1h", 3_600_000),
            ("1m30s", 90_000),
            ("1.5s", 1_500),
            ("10", 10_000),
            ("0s", 0),
        ];
        for (text, millis) in cases {
            assert_eq!(
                parse_duration(text),
                Ok(Duration::from_millis(millis)),
                "{text}"
            );
        }
    }

    #[test]
    fn rejects_garbage_with_a_message() {
        for text in ["", "s", "10x", "-1s", "abc", "1..2s"] {
            let err = parse_duration(text).expect_err(text);
            assert!(!err.is_empty());
        }
    }
}
