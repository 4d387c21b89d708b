//! A finished variant's rows while its run goes (`.parts/vNNNN.games.rows`): fixed-width
//! records in game order, each row as its [`Tables`] codec writes it, read once by the final
//! write of `games.parquet` and then removed.
//!
//! They were Parquet files: a polars frame built and encoded every 65,536 rows, with a
//! dictionary tried on every column, on threads the games needed. That cost a run with rows
//! 0.3 s of 3.1 (4 M games on two threads, BENCHMARKS.md); these are written as the rows come.
//! Like every file warlab writes, a part carries the run key, in its header.
//!
//! Layout: [`MAGIC`]; the bytes of a row (u32, little-endian); the run key's JSON, after its
//! length (u32); the rows; then the number of rows (u64) and [`END`]. A part is written under a
//! temporary name and renamed when whole, and read only after its length, header and footer
//! agree, so a truncated or damaged part is found before its rows are used.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use warlab_stats::files::RunKey;

use crate::frames::Tables;

/// The first bytes of a rows part.
const MAGIC: &[u8; 8] = b"WLROWS1\n";
/// The last bytes of a whole rows part.
const END: &[u8; 8] = b"WLROWEND";
/// The footer: the number of rows, then [`END`].
const FOOTER: u64 = 16;

/// Writes a rows part at `path` as rows come; [`RowsWriter::finish`] ends it.
pub(crate) struct RowsWriter<G> {
    w: BufWriter<File>,
    path: PathBuf,
    rows: u64,
    encoded: Vec<u8>,
    _game: PhantomData<G>,
}

impl<G: Tables> RowsWriter<G> {
    /// Creates `path` (a temporary name: the caller renames it when the variant is done) and
    /// writes its header.
    pub(crate) fn create(path: &Path, key: &RunKey) -> Result<RowsWriter<G>> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut writer = RowsWriter {
            w: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            rows: 0,
            encoded: Vec::new(),
            _game: PhantomData,
        };
        let json = serde_json::to_vec(key)?;
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&(G::ROW_BYTES as u32).to_le_bytes());
        header.extend_from_slice(&u32::try_from(json.len())?.to_le_bytes());
        header.extend_from_slice(&json);
        writer.put(&header)?;
        Ok(writer)
    }

    /// Appends `rows`.
    pub(crate) fn write(&mut self, rows: &[G::Row]) -> Result<()> {
        let mut encoded = std::mem::take(&mut self.encoded);
        encoded.clear();
        encoded.reserve(rows.len() * G::ROW_BYTES);
        for row in rows {
            G::put_row(row, &mut encoded);
        }
        debug_assert_eq!(encoded.len(), rows.len() * G::ROW_BYTES);
        self.put(&encoded)?;
        self.encoded = encoded;
        self.rows += rows.len() as u64;
        Ok(())
    }

    /// Writes the footer and flushes the part. (Not synced to the disk, as the Parquet parts
    /// before it were not: a part of a few hundred MB would wait for its writeback. A power cut
    /// may leave a part whose length, header and footer agree around rows that never reached
    /// the disk; no checksum covers the rows.)
    pub(crate) fn finish(mut self) -> Result<()> {
        let mut footer = self.rows.to_le_bytes().to_vec();
        footer.extend_from_slice(END);
        self.put(&footer)?;
        self.w
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.w
            .write_all(bytes)
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// What a whole rows part holds: its run key and rows, and where the rows start.
pub(crate) struct RowsPart {
    pub key: RunKey,
    pub rows: u64,
    pub row_bytes: u64,
    pub start: u64,
}

/// Reads the header and footer of the rows part at `path`, and checks that they and its
/// length agree.
pub(crate) fn read_part(path: &Path) -> Result<RowsPart> {
    let damaged = |what: &str| format!("{} is not a whole rows part ({what})", path.display());
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let mut fixed = [0u8; 16];
    file.read_exact(&mut fixed)
        .with_context(|| damaged("no header"))?;
    if &fixed[..8] != MAGIC {
        bail!(damaged("not a rows part"));
    }
    let row_bytes = u64::from(u32::from_le_bytes(fixed[8..12].try_into()?));
    let key_len = u64::from(u32::from_le_bytes(fixed[12..16].try_into()?));
    let start = 16 + key_len;
    if row_bytes == 0 || start + FOOTER > len {
        bail!(damaged("a cut header"));
    }
    let mut json = vec![0u8; key_len as usize];
    file.read_exact(&mut json)
        .with_context(|| damaged("a cut header"))?;
    let key: RunKey = serde_json::from_slice(&json).with_context(|| damaged("its run key"))?;
    let mut footer = [0u8; FOOTER as usize];
    file.seek(SeekFrom::Start(len - FOOTER))
        .and_then(|_| file.read_exact(&mut footer))
        .with_context(|| damaged("no footer"))?;
    let rows = u64::from_le_bytes(footer[..8].try_into()?);
    if &footer[8..] != END
        || rows
            .checked_mul(row_bytes)
            .and_then(|b| b.checked_add(start + FOOTER))
            != Some(len)
    {
        bail!(damaged(
            "its length and row count disagree: truncated or damaged"
        ));
    }
    Ok(RowsPart {
        key,
        rows,
        row_bytes,
        start,
    })
}

/// Rows `from..from + n` of the rows part at `path`, whose records start at byte `start`: a
/// part [`read_part`] found whole, of `G`'s row size, with at least `from + n` rows.
pub(crate) fn read_rows<G: Tables>(
    path: &Path,
    start: u64,
    from: u64,
    n: usize,
) -> Result<Vec<G::Row>> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = vec![0u8; n * G::ROW_BYTES];
    file.seek(SeekFrom::Start(start + from * G::ROW_BYTES as u64))
        .and_then(|_| file.read_exact(&mut bytes))
        .with_context(|| format!("cannot read {}", path.display()))?;
    bytes
        .chunks_exact(G::ROW_BYTES)
        .map(|row| {
            G::get_row(row)
                .with_context(|| format!("{} holds a row that is not one", path.display()))
        })
        .collect()
}

/// The run key and row count in the rows part at `path` (a `.parts/vNNNN.games.rows` file of a
/// run with rows that has not finished), after checking that the part is whole.
pub fn rows_part(path: &Path) -> Result<(u64, RunKey)> {
    let part = read_part(path)?;
    Ok((part.rows, part.key))
}
