//! Finds installed server binaries: on `PATH` first, then in Debian's
//! versioned `/usr/lib/postgresql/<major>/bin`, which is not on `PATH`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where `initdb` and `postgres` of one installation live.
#[derive(Debug, Clone)]
pub(crate) struct PostgresBinaries {
    pub(crate) initdb: PathBuf,
    pub(crate) postgres: PathBuf,
}

/// Finds `initdb` and `postgres` from the same installation (a mismatched
/// pair refuses to work together): `PATH` first, then the highest major
/// version under `/usr/lib/postgresql`.
pub(crate) fn find_postgres() -> Option<PostgresBinaries> {
    path_dirs()
        .chain(debian_postgres_dirs())
        .find_map(|dir| postgres_pair_in(&dir))
}

/// Finds `redis-server` on `PATH` (or in `/usr/bin` / `/usr/sbin` when `PATH`
/// is minimal).
pub(crate) fn find_redis_server() -> Option<PathBuf> {
    path_dirs()
        .chain(["/usr/bin", "/usr/sbin", "/usr/local/bin"].map(PathBuf::from))
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| is_executable(candidate))
}

fn postgres_pair_in(dir: &Path) -> Option<PostgresBinaries> {
    let postgres = dir.join("postgres");
    if !is_executable(&postgres) {
        return None;
    }
    // /usr/local/bin/postgres is often a symlink into a versioned directory;
    // the initdb beside the real binary is the one that matches it.
    let real_dir = std::fs::canonicalize(&postgres)
        .ok()
        .and_then(|real| real.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| dir.to_path_buf());
    let postgres = real_dir.join("postgres");
    let initdb = real_dir.join("initdb");
    (is_executable(&postgres) && is_executable(&initdb))
        .then_some(PostgresBinaries { initdb, postgres })
}

fn path_dirs() -> impl Iterator<Item = PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).collect::<Vec<_>>().into_iter()
}

/// `/usr/lib/postgresql/*/bin`, highest major version first.
fn debian_postgres_dirs() -> impl Iterator<Item = PathBuf> {
    let mut versions: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version = name
                .split('.')
                .map(|part| part.parse().ok())
                .collect::<Option<Vec<u32>>>()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    versions.into_iter().map(|(_, dir)| dir)
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
