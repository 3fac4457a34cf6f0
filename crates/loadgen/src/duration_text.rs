//! Parsing of human durations such as `30s`, `500ms`, `2m` or `1m30s`, the
//! spelling wrk, k6 and oha all accept on their command lines. It is the one
//! duration parser of the workspace: `bench` calls [`parse_duration`] too.

use std::time::Duration;

/// Parses a run time or timeout: `30s`, `500ms`, `2m`, `1h`, `1m30s`,
/// `1.5s` or a bare number of seconds (`10`). Zero is an error (no run or
/// timeout can last no time at all). The error is one line saying what is
/// wrong, e.g. `expected a duration like 10s, 500ms, 2m or 1m30s, got "x"`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration_or_zero(text)?;
    if duration.is_zero() {
        return Err(format!("duration must be more than zero, got {text:?}"));
    }
    Ok(duration)
}

/// [`parse_duration`] that also accepts zero, for the places where zero
/// means something: a `0s` stage jumps straight to its target.
pub(crate) fn parse_duration_or_zero(text: &str) -> Result<Duration, String> {
    let bad = || format!("expected a duration like 10s, 500ms, 2m or 1m30s, got {text:?}");
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(bad());
    }
    if let Ok(seconds) = trimmed.parse::<f64>() {
        return seconds_to_duration(seconds).ok_or_else(bad);
    }
    let mut total = 0.0_f64;
    let mut rest = trimmed;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_len].parse().map_err(|_| bad())?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total += number * scale;
    }
    seconds_to_duration(total).ok_or_else(bad)
}

/// A non-negative, finite, representable number of seconds.
fn seconds_to_duration(seconds: f64) -> Option<Duration> {
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(seconds).ok()
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
    fn zero_is_an_error_except_where_it_means_something() {
        for text in ["0s", "0", "0ms", "0m0s"] {
            assert_eq!(
                parse_duration(text),
                Err(format!("duration must be more than zero, got {text:?}")),
            );
            assert_eq!(parse_duration_or_zero(text), Ok(Duration::ZERO), "{text}");
        }
    }

    #[test]
    fn rejects_garbage_with_one_line_naming_the_input() {
        for text in ["", "s", "10x", "-1s", "abc", "1..2s", "10 parsecs", "1e400"] {
            assert_eq!(
                parse_duration(text),
                Err(format!(
                    "expected a duration like 10s, 500ms, 2m or 1m30s, got {text:?}"
                )),
            );
        }
    }
}
