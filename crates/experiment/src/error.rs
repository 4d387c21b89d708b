//! Errors and their places: every problem names the file, the line and column, the key.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::read_text;

/// One thing wrong with an experiment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentError {
    /// The experiment (or rule) file.
    pub file: PathBuf,
    /// 1-based; 0 when the problem has no place in the file (e.g. it cannot be read).
    pub line: usize,
    /// 1-based, in characters ([`line_col`]); 0 with `line` 0.
    pub column: usize,
    /// The key involved (`games`, `sweep.pickup`, `variant[2].war_down`), if any.
    pub key: Option<String>,
    /// What is wrong, and what is allowed.
    pub message: String,
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if let Some(k) = &self.key {
            write!(f, ": `{k}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ExperimentError {}

/// Line and column (both from 1) of the byte `offset` in `text`, as an editor shows them: the
/// column counts characters, not bytes. Every `file:line:column` of an error, in experiment
/// files and rule files alike, comes from here.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

pub(crate) fn read(path: &Path) -> Result<String, ExperimentError> {
    read_text(path).map_err(|message| ExperimentError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        key: None,
        message,
    })
}
