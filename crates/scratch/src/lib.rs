//! Scratch folders for the workspace's tests: an empty folder per test under the system's
//! temporary folder, removed when the test passes and kept when it fails, to look at. Without
//! it every test run left its folders behind (36 folders, 87 MB a run of the command-line,
//! report and folder tests).

#![warn(missing_docs)]
#![forbid(unsafe_code)]

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// An empty folder `<tmp>/warlab-<suite>-<pid>-<name>/` for one test (emptied first if a
/// crashed run left it).
pub fn scratch(suite: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("warlab-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder in the temporary folder");
    Scratch(dir)
}

/// A [`scratch`] folder, used as a `Path`. Keep it in a variable to the end of the test: it is
/// removed when dropped.
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
