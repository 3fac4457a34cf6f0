//! A small Chrome DevTools Protocol (CDP) client for bench's browser tests:
//! it starts a real headless Chromium, opens a file in one page, evaluates
//! JavaScript there, takes a screenshot of the first screen or the whole
//! page, and records what the page did (console errors, uncaught
//! exceptions, Log errors, every request).
//!
//! Our own client over `tungstenite` rather than a CDP crate
//! (`headless_chrome`, `chromiumoxide`): the tests need six commands and
//! four events, which fit in three short files on one blocking socket,
//! where those crates bring an async runtime or a launcher of their own and
//! a generated binding of the whole protocol to read past.
//!
//! How it fits together: [`chromium::Chromium`] is the process (killed on
//! drop, also when a test panics, and its profile folder removed);
//! [`cdp::Connection`] is one DevTools WebSocket, one
//! command at a time, keeping every event it reads in order. Every wait is
//! bounded by [`WAIT`] and panics naming what it waited for.

mod cdp;
mod chromium;

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use cdp::Connection;
use chromium::Chromium;

/// The PNG of a `Page.captureScreenshot` answer.
fn png_of(shot: &Value) -> Vec<u8> {
    let data = shot["data"]
        .as_str()
        .expect("Page.captureScreenshot answers its image in data");
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("decoding the screenshot's base64")
}

/// The longest any one wait lasts: Chromium's start, a command's answer, a
/// page's load event. Far above what they take here (about a second, a few
/// milliseconds, tens of milliseconds), so only a hang reaches it.
pub(crate) const WAIT: Duration = Duration::from_secs(30);

/// One headless Chromium with one page, driven over CDP.
pub(crate) struct Browser {
    page: Connection,
    /// Where the current document's events begin in `page.events`.
    page_start: usize,
    /// Declared last so it is dropped last: the WebSocket closes first, then
    /// Chromium is killed.
    chromium: Chromium,
}

/// What the page did since [`Browser::open`] was called, in order.
#[derive(Debug, Default)]
pub(crate) struct PageRecord {
    /// `console.error(...)` and failed `console.assert(...)` calls.
    pub(crate) console_errors: Vec<String>,
    /// Uncaught exceptions (`Runtime.exceptionThrown`), unhandled rejections too.
    pub(crate) exceptions: Vec<String>,
    /// Browser-side errors (`Log.entryAdded` at level error), such as a
    /// resource that failed to load.
    pub(crate) log_errors: Vec<String>,
    /// The URL of every request the page made, its own document first.
    pub(crate) requests: Vec<String>,
}

impl Browser {
    /// Starts Chromium and opens DevTools on a page of its own.
    pub(crate) fn launch() -> Browser {
        let mut chromium = Chromium::start();
        let (port, browser_path) = chromium.devtools_endpoint();
        // A page target of our own rather than the about:blank tab Chromium
        // starts with: its id is known, no list of targets to search.
        let target = Connection::open(port, &browser_path)
            .call("Target.createTarget", json!({ "url": "about:blank" }))["targetId"]
            .as_str()
            .map(str::to_string)
            .expect("Target.createTarget answers a targetId");
        let mut page = Connection::open(port, &format!("/devtools/page/{target}"));
        for domain in ["Page", "Runtime", "Log", "Network"] {
            page.call(&format!("{domain}.enable"), json!({}));
        }
        Browser {
            page,
            page_start: 0,
            chromium,
        }
    }

    /// Sets the page's layout width in CSS pixels (800 high, scale 1, not
    /// mobile); it holds for every document opened afterwards.
    pub(crate) fn set_viewport_width(&mut self, width: u32) {
        self.set_viewport(width, 800);
    }

    /// Sets the page's viewport (the first screen) in CSS pixels, scale 1,
    /// not mobile; it holds for every document opened afterwards.
    pub(crate) fn set_viewport(&mut self, width: u32, height: u32) {
        self.page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        // No scrollbar: the page is laid out, and photographed, at the
        // whole width rather than the width less a scrollbar's 15 px.
        self.page
            .call("Emulation.setScrollbarsHidden", json!({ "hidden": true }));
    }

    /// Opens `file` from disk, waits for its load event, and returns its
    /// file:// URL; from here [`Browser::record`] tells what this document did.
    pub(crate) fn open(&mut self, file: &Path) -> String {
        let path = file
            .canonicalize()
            .unwrap_or_else(|e| panic!("cannot open {} in chromium: {e}", file.display()));
        let url = url::Url::from_file_path(&path)
            .unwrap_or_else(|()| panic!("{} has no file:// URL", path.display()))
            .to_string();
        let since = self.page.events.len();
        let navigated = self.page.call("Page.navigate", json!({ "url": url }));
        if let Some(error) = navigated.get("errorText") {
            panic!(
                "chromium cannot open {url}: {error}; its output:\n{}",
                self.chromium.log_tail()
            );
        }
        self.page.wait_for_event("Page.loadEventFired", since);
        self.page_start = since;
        // Past the load event, let timers a page sets at load (a script
        // that throws a moment later) run before anyone reads the record.
        self.evaluate("new Promise(done => setTimeout(done, 100))");
        url
    }

    /// Evaluates a JavaScript expression in the page (awaiting it if it is a
    /// promise) and returns its value as JSON (null for undefined); panics
    /// if it throws.
    pub(crate) fn evaluate(&mut self, expression: &str) -> Value {
        let answer = self.page.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(details) = answer.get("exceptionDetails") {
            panic!(
                "evaluating `{expression}` in the page threw: {}",
                exception_text(details)
            );
        }
        answer["result"]
            .get("value")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// A PNG of the viewport: what a reader sees before scrolling.
    pub(crate) fn first_screen_screenshot(&mut self) -> Vec<u8> {
        let shot = self
            .page
            .call("Page.captureScreenshot", json!({ "format": "png" }));
        png_of(&shot)
    }

    /// A PNG of the whole page, not only the viewport: the page's full
    /// scroll size measured first, then captured beyond the viewport.
    pub(crate) fn full_page_screenshot(&mut self) -> Vec<u8> {
        let size = self.evaluate(
            "[document.documentElement.scrollWidth,
              Math.max(document.documentElement.scrollHeight,
                       document.body ? document.body.scrollHeight : 0)]",
        );
        let (width, height) = (size[0].as_f64(), size[1].as_f64());
        let shot = self.page.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
            }),
        );
        png_of(&shot)
    }

    /// What the current document did since [`Browser::open`].
    pub(crate) fn record(&mut self) -> PageRecord {
        // One round trip first: every event Chromium sent before its answer
        // is then read and kept.
        self.evaluate("0");
        let mut record = PageRecord::default();
        for event in &self.page.events[self.page_start..] {
            let params = &event["params"];
            match event["method"].as_str().unwrap_or_default() {
                "Runtime.consoleAPICalled"
                    if matches!(params["type"].as_str(), Some("error" | "assert")) =>
                {
                    record.console_errors.push(console_text(params));
                }
                "Runtime.exceptionThrown" => {
                    record
                        .exceptions
                        .push(exception_text(&params["exceptionDetails"]));
                }
                "Log.entryAdded" if params["entry"]["level"] == "error" => {
                    let entry = &params["entry"];
                    record.log_errors.push(format!(
                        "{} ({})",
                        entry["text"].as_str().unwrap_or_default(),
                        entry["url"].as_str().unwrap_or("no url")
                    ));
                }
                "Network.requestWillBeSent" => record.requests.push(
                    params["request"]["url"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                ),
                _ => {}
            }
        }
        record
    }
}

/// A console call's arguments as the console would print them.
fn console_text(params: &Value) -> String {
    let args = params["args"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    args.iter()
        .map(|arg| match &arg["value"] {
            Value::String(s) => s.clone(),
            Value::Null => arg["description"].as_str().unwrap_or_default().to_string(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An exception's first line (`Error: ...`) and where it was thrown.
fn exception_text(details: &Value) -> String {
    let message = details["exception"]["description"]
        .as_str()
        .or_else(|| details["text"].as_str())
        .unwrap_or("an exception without a description");
    format!(
        "{} (at {}:{})",
        message.lines().next().unwrap_or_default(),
        details["url"].as_str().unwrap_or("the page"),
        details["lineNumber"].as_i64().unwrap_or(-1) + 1
    )
}
