//! A figure over rounds: its median and its range, as findings save their
//! interval and every printer shows a cell.

use serde::{Deserialize, Serialize};

/// A metric over rounds: its median and its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many rounds it comes from.
    pub n: usize,
}

impl Spread {
    /// The spread of `values`, ignoring values that are not finite; `None`
    /// when nothing is left.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
            n,
        })
    }

    /// The larger distance from the median to either end, as a fraction of
    /// the median (0.04 for "±4%"); 0 when the median is 0.
    pub fn plus_minus(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            ((self.median - self.min).max(self.max - self.median) / self.median).abs()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(values: &[f64]) -> Spread {
        Spread::of(values.iter().copied()).unwrap()
    }

    #[test]
    fn median_and_range() {
        assert_eq!(
            s(&[3.0, 1.0, 2.0]),
            Spread {
                median: 2.0,
                min: 1.0,
                max: 3.0,
                n: 3
            }
        );
        assert_eq!(s(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert_eq!(s(&[f64::NAN, 5.0]).n, 1);
        assert!(Spread::of([f64::INFINITY]).is_none());
        assert!((s(&[96.0, 100.0, 102.0]).plus_minus() - 0.04).abs() < 1e-12);
        assert_eq!(s(&[0.0, 0.0]).plus_minus(), 0.0);
    }
}
