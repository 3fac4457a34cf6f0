//! k6-style pass/fail thresholds (`p95<200ms`, `errors<1%`, `rps>1000`):
//! parsing them up front, so a typo fails before any load is sent, and
//! checking them against a finished report.

use crate::duration_text::parse_duration_or_zero;
use crate::report::{Report, ThresholdResult};

/// What a threshold looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    /// A latency figure in milliseconds (`avg`, `min`, `max`, `p50`, ...).
    Latency(LatencyFigure),
    /// Error rate in percent.
    ErrorRate,
    /// Throughput in requests per second.
    Throughput,
}

/// Which latency figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyFigure {
    Avg,
    Min,
    Max,
    P50,
    P90,
    P95,
    P99,
    P99_9,
}

/// Comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// A parsed threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub expression: String,
    pub metric: Metric,
    pub comparison: Comparison,
    /// Milliseconds, percent or req/s according to the metric.
    pub limit: f64,
}

impl Threshold {
    /// Parses `METRIC OP VALUE`, e.g. `p99<1s`, `avg<=50ms`, `errors<1%`, `rps>1000`.
    pub fn parse(text: &str) -> Result<Threshold, String> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let at = compact
            .find(['<', '>'])
            .ok_or_else(|| format!("threshold '{text}' needs < or >, e.g. p95<200ms"))?;
        let (name, rest) = compact.split_at(at);
        let (comparison, value) = if let Some(v) = rest.strip_prefix("<=") {
            (Comparison::LessOrEqual, v)
        } else if let Some(v) = rest.strip_prefix(">=") {
            (Comparison::GreaterOrEqual, v)
        } else if let Some(v) = rest.strip_prefix('<') {
            (Comparison::Less, v)
        } else {
            (Comparison::Greater, &rest[1..])
        };
        let metric = match name.to_ascii_lowercase().as_str() {
            "avg" | "mean" => Metric::Latency(LatencyFigure::Avg),
            "min" => Metric::Latency(LatencyFigure::Min),
            "max" => Metric::Latency(LatencyFigure::Max),
            "p50" | "med" | "median" => Metric::Latency(LatencyFigure::P50),
            "p90" => Metric::Latency(LatencyFigure::P90),
            "p95" => Metric::Latency(LatencyFigure::P95),
            "p99" => Metric::Latency(LatencyFigure::P99),
            "p99.9" | "p999" => Metric::Latency(LatencyFigure::P99_9),
            "errors" | "error_rate" => Metric::ErrorRate,
            "rps" | "throughput" => Metric::Throughput,
            other => {
                return Err(format!(
                    "threshold '{text}': unknown metric '{other}' (use avg, min, max, p50, p90, p95, p99, p99.9, errors or rps)"
                ))
            }
        };
        let bad_value = || format!("threshold '{text}': '{value}' is not a valid limit");
        let limit = match metric {
            Metric::Latency(_) => {
                // A bare number means milliseconds, as in k6.
                match value.parse::<f64>() {
                    Ok(n) if n.is_finite() && n >= 0.0 => n,
                    _ => {
                        parse_duration_or_zero(value)
                            .map_err(|_| bad_value())?
                            .as_secs_f64()
                            * 1000.0
                    }
                }
            }
            Metric::ErrorRate => value
                .strip_suffix('%')
                .unwrap_or(value)
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0)
                .ok_or_else(bad_value)?,
            Metric::Throughput => value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0)
                .ok_or_else(bad_value)?,
        };
        Ok(Threshold {
            expression: text.trim().to_string(),
            metric,
            comparison,
            limit,
        })
    }

    /// The measured value this threshold looks at.
    pub fn actual(&self, report: &Report) -> f64 {
        let l = &report.latency_ms;
        match self.metric {
            Metric::Latency(figure) => match figure {
                LatencyFigure::Avg => l.mean,
                LatencyFigure::Min => l.min,
                LatencyFigure::Max => l.max,
                LatencyFigure::P50 => l.p50,
                LatencyFigure::P90 => l.p90,
                LatencyFigure::P95 => l.p95,
                LatencyFigure::P99 => l.p99,
                LatencyFigure::P99_9 => l.p99_9,
            },
            Metric::ErrorRate => report.error_rate_percent,
            Metric::Throughput => report.throughput_rps,
        }
    }

    /// Checks the threshold against a report.
    pub fn evaluate(&self, report: &Report) -> ThresholdResult {
        let actual = self.actual(report);
        let passed = match self.comparison {
            Comparison::Less => actual < self.limit,
            Comparison::LessOrEqual => actual <= self.limit,
            Comparison::Greater => actual > self.limit,
            Comparison::GreaterOrEqual => actual >= self.limit,
        };
        ThresholdResult {
            expression: self.expression.clone(),
            actual,
            passed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_k6_spellings() {
        let cases = [
            (
                "p95<200ms",
                Metric::Latency(LatencyFigure::P95),
                Comparison::Less,
                200.0,
            ),
            (
                "p99 < 1s",
                Metric::Latency(LatencyFigure::P99),
                Comparison::Less,
                1000.0,
            ),
            (
                "avg<=50",
                Metric::Latency(LatencyFigure::Avg),
                Comparison::LessOrEqual,
                50.0,
            ),
            (
                "p99.9<2.5s",
                Metric::Latency(LatencyFigure::P99_9),
                Comparison::Less,
                2500.0,
            ),
            ("errors<1%", Metric::ErrorRate, Comparison::Less, 1.0),
            ("rps>1000", Metric::Throughput, Comparison::Greater, 1000.0),
            (
                "rps>=10",
                Metric::Throughput,
                Comparison::GreaterOrEqual,
                10.0,
            ),
        ];
        for (text, metric, comparison, limit) in cases {
            let t = Threshold::parse(text).expect(text);
            assert_eq!(
                (t.metric, t.comparison, t.limit),
                (metric, comparison, limit),
                "{text}"
            );
        }
    }

    #[test]
    fn rejects_malformed_thresholds() {
        for text in [
            "p95",
            "p97<1ms",
            "p95<fast",
            "errors<lots%",
            "rps>",
            "<5",
            "rps>-1",
        ] {
            assert!(Threshold::parse(text).is_err(), "{text}");
        }
    }
}
