//! Whole-file writes that never leave a partial file: write `name.tmp`, sync, rename.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use polars::prelude::*;

/// The temporary name a file is written under before it is renamed into place.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes `path` through `write` into a temporary file, then renames it into place.
pub(crate) fn atomic_write(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let file =
            File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut w = BufWriter::new(file);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot rename {} into place", tmp.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

pub fn write_parquet(path: &Path, df: &mut DataFrame) -> Result<()> {
    atomic_write(path, |w| {
        ParquetWriter::new(w).finish(df)?;
        Ok(())
    })
}

pub fn write_csv(path: &Path, df: &mut DataFrame) -> Result<()> {
    atomic_write(path, |w| {
        CsvWriter::new(&mut *w).finish(df)?;
        w.flush()?;
        Ok(())
    })
}

pub fn read_parquet(path: &Path) -> Result<DataFrame> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    ParquetReader::new(file)
        .finish()
        .map_err(anyhow::Error::from)
        .with_context(|| format!("cannot read {}", path.display()))
}
