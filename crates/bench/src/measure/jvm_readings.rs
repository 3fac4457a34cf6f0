//! What a Java server's JVM says about a window, from its `/metrics` read
//! just before and just after it: which runtime it is (`jvm_info`), the
//! JIT's compile time, the collectors' collections and time, and the
//! virtual threads that pinned their carrier, per route (JFR's events,
//! counted in the JVM). The pins are read again once JFR has handed the
//! window's events over ([`settled_pins`]): it does so about once a
//! second, so a reading just after a short window would miss them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bench_model::JvmWindow;

use super::remote_metrics::{samples, value};
use crate::servers::http_get;

/// One `/metrics` answer of a JVM, the parts bench keeps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JvmReading {
    pub version: String,
    pub compile_seconds: Option<f64>,
    pub compiler_cpu_seconds: Option<f64>,
    pub gc_collections: f64,
    pub gc_seconds: f64,
    pub pins_watched: bool,
    /// Pins per route since start-up.
    pub pinned: BTreeMap<String, u64>,
}

/// Every sample of `name` in `text` whose value is a number: its labels
/// and its value.
fn numbers<'a>(text: &'a str, name: &'a str) -> Vec<(Vec<(&'a str, &'a str)>, f64)> {
    samples(text, name)
        .filter_map(|(labels, number)| Some((labels, number.parse().ok()?)))
        .collect()
}

/// The value of label `key` among `labels`, if there.
fn label<'a>(labels: &[(&'a str, &'a str)], key: &str) -> Option<&'a str> {
    labels.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// What a JVM's `/metrics` text says; `None` when it is not a JVM's
/// (none of its families: one of our servers).
pub fn parse(text: &str) -> Option<JvmReading> {
    let info = numbers(text, "jvm_info");
    let gc = |name: &str| -> Option<f64> {
        let all = numbers(text, name);
        (!all.is_empty()).then(|| all.iter().map(|s| s.1).sum())
    };
    let compile_seconds = compile_seconds(text);
    let compiler_cpu_seconds = compiler_cpu_seconds(text);
    let (gc_collections, gc_seconds) = (
        gc("jvm_gc_collection_seconds_count"),
        gc("jvm_gc_collection_seconds_sum"),
    );
    if info.is_empty() && compile_seconds.is_none() && gc_collections.is_none() {
        return None;
    }
    let pinned = numbers(text, "jvm_virtual_thread_pinned_total")
        .into_iter()
        .filter_map(|(labels, n)| Some((label(&labels, "route")?.to_owned(), n as u64)))
        .collect();
    Some(JvmReading {
        version: info
            .first()
            .and_then(|(labels, _)| label(labels, "version"))
            .unwrap_or_default()
            .to_owned(),
        compile_seconds,
        compiler_cpu_seconds,
        gc_collections: gc_collections.unwrap_or(0.0),
        gc_seconds: gc_seconds.unwrap_or(0.0),
        pins_watched: value(text, "jvm_virtual_thread_pinned_watched", &[]) == Some(1.0),
        pinned,
    })
}

/// The JIT's compile time since start-up, from a `/metrics` text.
pub fn compile_seconds(text: &str) -> Option<f64> {
    value(text, "jvm_compilation_time_seconds_total", &[])
}

/// The JIT's compiler threads' CPU since start-up, from a `/metrics` text.
pub fn compiler_cpu_seconds(text: &str) -> Option<f64> {
    value(text, "jvm_compiler_cpu_seconds_total", &[])
}

/// The rise of a counter between two readings; a fall (a compiler thread
/// that ended takes its CPU out of the sum) counts as none.
pub fn rise(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    before.zip(after).map(|(b, a)| (a - b).max(0.0))
}

/// Pins per route from `before` to `after` (a route first counted in
/// between counts from 0).
fn pins_between(before: &JvmReading, after: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(route, n)| {
            let was = before.pinned.get(route).copied().unwrap_or(0);
            (route.clone(), n.saturating_sub(was))
        })
        .collect()
}

/// The window between two readings, its pins from `pins_after` (the
/// settled reading, [`settled_pins`]) when the JVM counts them.
pub fn window(
    before: &JvmReading,
    after: &JvmReading,
    pins_after: Option<&BTreeMap<String, u64>>,
) -> JvmWindow {
    let compile_seconds = rise(before.compile_seconds, after.compile_seconds);
    let pinned = if after.pins_watched {
        pins_between(before, pins_after.unwrap_or(&after.pinned))
    } else {
        BTreeMap::new()
    };
    JvmWindow {
        version: after.version.clone(),
        compile_seconds,
        compiler_cpu_seconds: rise(before.compiler_cpu_seconds, after.compiler_cpu_seconds),
        gc_collections: Some((after.gc_collections - before.gc_collections).max(0.0) as u64),
        gc_seconds: Some((after.gc_seconds - before.gc_seconds).max(0.0)),
        pins_watched: after.pins_watched,
        pinned,
        warm_up: None,
    }
}

/// A Java server's window from the `/metrics` texts read just before and
/// just after it, its pins once JFR has handed them over; `None` for a
/// server that is no JVM, or whose `/metrics` was not read.
pub fn of_window(before: Option<&str>, after: Option<&str>, addr: SocketAddr) -> Option<JvmWindow> {
    let (before, after) = (parse(before?)?, parse(after?)?);
    let pins = if after.pins_watched {
        settled_pins(addr)
    } else {
        None
    };
    Some(window(&before, &after, pins.as_ref()))
}

/// On a JVM that counts pins, waits until JFR has handed over the pins so
/// far ([`settled_pins`]): before a window, so that the warm-up's last
/// pins, handed over up to a second late, are not counted in it. Nothing
/// to wait for on a server that counts none.
pub fn await_pins_handed_over(addr: SocketAddr) {
    let watched = match http_get(addr, "/metrics") {
        Ok((200, body)) => parse(&body).is_some_and(|r| r.pins_watched),
        _ => false,
    };
    if watched {
        let _ = settled_pins(addr);
    }
}

/// How long the pin counts must hold still to count as handed over: more
/// than JFR's flush period (about a second).
const PINS_HOLD_FOR: Duration = Duration::from_millis(1300);

/// The longest bench waits for them after a window.
const PINS_WAIT_AT_MOST: Duration = Duration::from_secs(4);

/// The pins per route of the JVM at `addr` once they hold still for
/// [`PINS_HOLD_FOR`] (JFR has handed over every event of the window just
/// ended), or as they are after [`PINS_WAIT_AT_MOST`]; `None` when
/// `/metrics` cannot be read.
pub fn settled_pins(addr: SocketAddr) -> Option<BTreeMap<String, u64>> {
    let read = || match http_get(addr, "/metrics") {
        Ok((200, body)) => parse(&body).map(|r| r.pinned),
        _ => None,
    };
    let started = Instant::now();
    let mut last = read()?;
    let mut since = Instant::now();
    while started.elapsed() < PINS_WAIT_AT_MOST {
        std::thread::sleep(Duration::from_millis(250));
        let now = read()?;
        if now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() >= PINS_HOLD_FOR {
            break;
        }
    }
    Some(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "# TYPE jvm_info gauge\njvm_info{server=\"tomcat-virtual\",version=\"21.0.8+9-LTS\",vendor=\"Eclipse Adoptium\",runtime=\"OpenJDK Runtime Environment\"} 1\njvm_compilation_time_seconds_total{server=\"tomcat-virtual\"} 10.500\njvm_compiler_cpu_seconds_total{server=\"tomcat-virtual\"} 4.000\njvm_gc_collection_seconds_count{server=\"tomcat-virtual\",gc=\"PS Scavenge\"} 3\njvm_gc_collection_seconds_sum{server=\"tomcat-virtual\",gc=\"PS Scavenge\"} 0.100\njvm_gc_collection_seconds_count{server=\"tomcat-virtual\",gc=\"PS MarkSweep\"} 0\njvm_gc_collection_seconds_sum{server=\"tomcat-virtual\",gc=\"PS MarkSweep\"} 0.000\njvm_virtual_thread_pinned_watched{server=\"tomcat-virtual\"} 1\njvm_virtual_thread_pinned_total{server=\"tomcat-virtual\",route=\"/health\"} 0\njvm_virtual_thread_pinned_total{server=\"tomcat-virtual\",route=\"/users/{id}\"} 40\n";

    #[test]
    fn a_window_is_the_rise_of_each_figure_and_the_version_is_the_jvms() {
        let before = parse(BEFORE).unwrap();
        assert_eq!(before.version, "21.0.8+9-LTS");
        assert_eq!(before.pinned.get("/users/{id}"), Some(&40));
        let after_text = BEFORE
            .replace("10.500", "10.750")
            .replace("4.000", "4.050")
            .replace("PS Scavenge\"} 3", "PS Scavenge\"} 5")
            .replace("0.100", "0.160")
            .replace("} 40", "} 1240");
        let after = parse(&after_text).unwrap();
        let w = window(&before, &after, None);
        assert_eq!(w.compile_seconds, Some(0.25));
        assert_eq!(
            w.compiler_cpu_seconds.map(|s| (s * 1000.0).round()),
            Some(50.0)
        );
        // A compiler thread that ended takes its CPU out of the sum: no compiling, not less than none.
        let fell = parse(&after_text.replace("4.050", "3.900")).unwrap();
        assert_eq!(window(&before, &fell, None).compiler_cpu_seconds, Some(0.0));
        assert_eq!(w.gc_collections, Some(2));
        assert_eq!(w.gc_seconds.map(|s| (s * 1000.0).round()), Some(60.0));
        assert!(w.pins_watched);
        assert_eq!(w.pins_of("/users/{id}"), 1200);
        // The settled reading counts the window's pins JFR handed over late.
        let settled = BTreeMap::from([("/users/{id}".to_owned(), 1300), ("/cpu".to_owned(), 2)]);
        let w = window(&before, &after, Some(&settled));
        assert_eq!((w.pins_of("/users/{id}"), w.pins_of("/cpu")), (1260, 2));
        // A JVM that does not count pins has none, whatever the series say.
        let off = parse(&after_text.replace(
            "pinned_watched{server=\"tomcat-virtual\"} 1",
            "pinned_watched{server=\"tomcat-virtual\"} 0",
        ))
        .unwrap();
        assert!(window(&before, &off, None).pinned.is_empty());
    }

    #[test]
    fn our_servers_metrics_are_no_jvms() {
        let ours = "process_threads{server=\"async\"} 7\nhttp_requests_total{server=\"async\",route=\"/health\",status=\"200\"} 2\n";
        assert_eq!(parse(ours), None);
    }
}
