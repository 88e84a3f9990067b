//! marginal: tunes the pruning margins of a chess engine's search.
//!
//! Data flows one way: positions and margins go into the [`engine`] (a deterministic
//! alpha-beta search with every seed pruning technique behind tunable margins); its results go
//! into scoring; scores go into optimizers; the optimizer's result goes out as tuned files and
//! exports. The engine knows nothing of tuning.

pub mod calibrate;
pub mod check;
pub mod engine;
pub mod export;
pub mod formats;
pub mod margin_spec;
pub mod params;
pub mod progress;
pub mod scoring;
pub mod tune;
pub mod uci;

/// Helpers of the unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::PathBuf;

    /// An empty directory of the test `name` of `module` under the system's temporary
    /// directory, made afresh (this process's id in its name, so test runs never share one).
    pub fn scratch(module: &str, name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("marginal-{module}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
