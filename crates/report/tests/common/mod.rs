//! Scratch folders for the report tests (the cli tests have the same in their own `common`).

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// An empty folder for one test: `<tmp>/warlab-<suite>-<pid>-<name>/`, removed when the
/// test passes; a failing test keeps it to look at.
pub fn scratch(suite: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("warlab-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A [`scratch`] folder, used as a `Path`; keep it in a variable to the end of the test.
pub struct Scratch(PathBuf);

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Unwinding from a failed assertion: keep the files it was about.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
