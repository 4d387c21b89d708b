//! Whole-file writes that never leave a partial file (write `name.tmp`, sync, rename), and the
//! run key every data file carries.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use polars::prelude::*;

use warlab_stats::files::RunKey;

/// The Parquet key-value metadata entry that holds a file's run key (as JSON).
pub const RUN_KEY_METADATA: &str = "warlab.run";

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

/// A Parquet writer that stamps `key` into the file's key-value metadata.
pub(crate) fn keyed_writer<W: Write>(w: W, key: &RunKey) -> Result<ParquetWriter<W>> {
    let json = serde_json::to_string(key)?;
    Ok(
        ParquetWriter::new(w).with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![(
            RUN_KEY_METADATA.to_string(),
            json,
        )]))),
    )
}

/// Writes `df` to `path` as Parquet, carrying the run key `key`.
pub fn write_parquet(path: &Path, df: &mut DataFrame, key: &RunKey) -> Result<()> {
    atomic_write(path, |w| {
        keyed_writer(w, key)?.finish(df)?;
        Ok(())
    })
}

/// Writes `bytes` to `path` (whole or not at all).
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write(path, |w| Ok(w.write_all(bytes)?))
}

/// `df` as CSV text.
pub(crate) fn csv_bytes(df: &mut DataFrame) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    CsvWriter::new(&mut out).finish(df)?;
    Ok(out)
}

/// Reads a whole Parquet file into a frame (the tests and `verify` read the files back).
pub fn read_parquet(path: &Path) -> Result<DataFrame> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    ParquetReader::new(file)
        .finish()
        .map_err(anyhow::Error::from)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// What a Parquet file's footer says: its rows and its run key (`None`: it carries none).
pub fn parquet_footer(path: &Path) -> Result<(usize, Option<RunKey>)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut reader = ParquetReader::new(file);
    let meta = reader
        .get_metadata()
        .map_err(anyhow::Error::from)
        .with_context(|| {
            format!(
                "{} is not a readable Parquet file (truncated or damaged)",
                path.display()
            )
        })?;
    let key = meta
        .key_value_metadata
        .iter()
        .flatten()
        .find(|kv| kv.key == RUN_KEY_METADATA)
        .and_then(|kv| kv.value.as_deref())
        .map(|json| {
            serde_json::from_str::<RunKey>(json).with_context(|| {
                format!("{}: its run key `{json}` is not readable", path.display())
            })
        })
        .transpose()?;
    Ok((meta.num_rows, key))
}
