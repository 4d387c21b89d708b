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
//! length (u32); the rows in blocks of [`BLOCK`] rows (the last block holds the rest: it may
//! be shorter; no rows, no block), each block followed by the XXH3-64 of its bytes (u64); then
//! the number of rows (u64) and [`END`].
//!
//! A part is written under a temporary name and renamed when whole, and read only after its
//! length, header and footer agree, so a truncated part is found before its rows are used.
//! Parts are not synced to the disk (a part of a few hundred MB would wait for its
//! writeback): after a power cut, a part may keep its length, header and footer around rows
//! that never reached the disk. The checksums find those: a resumed run checks every block
//! of the parts it keeps, and the final write checks each block as it reads it.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use warlab_stats::files::RunKey;
use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use crate::frames::{ROW_GROUP, Tables};

/// The first bytes of a rows part. (Parts of version 1 had no checksums; a run resumed from
/// one plays its variants again.)
const MAGIC: &[u8; 8] = b"WLROWS2\n";
/// The rows a checksum covers: a row group of `games.parquet`, so that the final write reads
/// and checks each block once, on the thread that encodes its row group.
pub(crate) const BLOCK: u64 = ROW_GROUP as u64;
/// The bytes of a block's checksum.
const SUM: u64 = 8;
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
    /// The checksum of the rows of the block being written so far.
    block: Xxh3Default,
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
            block: Xxh3Default::new(),
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
        let mut rest = &encoded[..];
        while !rest.is_empty() {
            let room = (BLOCK - self.rows % BLOCK) as usize;
            let (now, later) = rest.split_at(rest.len().min(room * G::ROW_BYTES));
            self.block.update(now);
            self.put(now)?;
            self.rows += (now.len() / G::ROW_BYTES) as u64;
            if self.rows.is_multiple_of(BLOCK) {
                self.end_block()?;
            }
            rest = later;
        }
        self.encoded = encoded;
        Ok(())
    }

    /// Writes the last block's checksum and the footer, and flushes the part (not synced: see
    /// the module's docs).
    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.rows.is_multiple_of(BLOCK) {
            self.end_block()?;
        }
        let mut footer = self.rows.to_le_bytes().to_vec();
        footer.extend_from_slice(END);
        self.put(&footer)?;
        self.w
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))
    }

    fn end_block(&mut self) -> Result<()> {
        let sum = self.block.digest().to_le_bytes();
        self.block.reset();
        self.put(&sum)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.w
            .write_all(bytes)
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// What a whole rows part holds: its run key, and where its records are.
#[derive(Debug)]
pub(crate) struct RowsPart {
    pub key: RunKey,
    pub records: Records,
}

/// Where a whole rows part's records are: the blocks of its `rows` rows of `row_bytes` bytes,
/// each followed by its checksum, from byte `start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Records {
    pub start: u64,
    pub rows: u64,
    pub row_bytes: u64,
}

impl Records {
    /// The bytes from the first block to the footer; `None` if they overflow.
    fn len(&self) -> Option<u64> {
        let sums = self.rows.div_ceil(BLOCK).checked_mul(SUM)?;
        self.rows.checked_mul(self.row_bytes)?.checked_add(sums)
    }

    /// Where block `b` starts.
    fn block_at(&self, b: u64) -> u64 {
        self.start + b * (BLOCK * self.row_bytes + SUM)
    }

    /// The rows of block `b`.
    fn block_rows(&self, b: u64) -> u64 {
        BLOCK.min(self.rows - b * BLOCK)
    }
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
        bail!(damaged("not a rows part of this version"));
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
    let records = Records {
        start,
        rows: u64::from_le_bytes(footer[..8].try_into()?),
        row_bytes,
    };
    if &footer[8..] != END || records.len().and_then(|b| b.checked_add(start + FOOTER)) != Some(len)
    {
        bail!(damaged(
            "its length and row count disagree: truncated or damaged"
        ));
    }
    Ok(RowsPart { key, records })
}

/// Rows `from..from + n` of the rows part at `path`, whose `records` [`read_part`] found
/// whole and of `G`'s row size, after checking the blocks that hold them (an error if the part
/// holds fewer rows).
pub(crate) fn read_rows<G: Tables>(
    path: &Path,
    records: &Records,
    from: u64,
    n: usize,
) -> Result<Vec<G::Row>> {
    debug_assert_eq!(records.row_bytes, G::ROW_BYTES as u64);
    if from
        .checked_add(n as u64)
        .is_none_or(|to| to > records.rows)
    {
        bail!(
            "{} holds {} rows, not rows {from}..{}",
            path.display(),
            records.rows,
            from.saturating_add(n as u64)
        );
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let (first, last) = (from / BLOCK, (from + n as u64 - 1) / BLOCK);
    let end = records.block_at(last) + records.block_rows(last) * records.row_bytes + SUM;
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = vec![0u8; (end - records.block_at(first)) as usize];
    file.seek(SeekFrom::Start(records.block_at(first)))
        .and_then(|_| file.read_exact(&mut bytes))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::with_capacity(n);
    let mut blocks = &bytes[..];
    for b in first..=last {
        let (block, rest) = blocks.split_at((records.block_rows(b) * records.row_bytes) as usize);
        let (sum, rest) = rest.split_at(SUM as usize);
        if let Err(damage) = check_block(path, b, records, block, sum) {
            bail!("{damage}; the same command run again plays its variant again");
        }
        let lo = from.max(b * BLOCK) - b * BLOCK;
        let hi = (from + n as u64).min(b * BLOCK + records.block_rows(b)) - b * BLOCK;
        for row in block[(lo * records.row_bytes) as usize..(hi * records.row_bytes) as usize]
            .chunks_exact(G::ROW_BYTES)
        {
            rows.push(
                G::get_row(row)
                    .with_context(|| format!("{} holds a row that is not one", path.display()))?,
            );
        }
        blocks = rest;
    }
    Ok(rows)
}

/// Checks every block of the rows part at `path` against its checksum.
pub(crate) fn check_rows(path: &Path, records: &Records) -> Result<()> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    file.seek(SeekFrom::Start(records.start))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = Vec::new();
    for b in 0..records.rows.div_ceil(BLOCK) {
        bytes.resize(
            (records.block_rows(b) * records.row_bytes + SUM) as usize,
            0,
        );
        file.read_exact(&mut bytes)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let (block, sum) = bytes.split_at(bytes.len() - SUM as usize);
        check_block(path, b, records, block, sum).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// Block `b`'s bytes against their checksum `sum`; the damage, named, if they differ.
fn check_block(
    path: &Path,
    b: u64,
    records: &Records,
    block: &[u8],
    sum: &[u8],
) -> Result<(), String> {
    if xxh3_64(block).to_le_bytes() != sum {
        return Err(format!(
            "{} is damaged: its rows {}..{} do not match their checksum",
            path.display(),
            b * BLOCK,
            b * BLOCK + records.block_rows(b)
        ));
    }
    Ok(())
}

/// The run key and row count in the rows part at `path` (a `.parts/vNNNN.games.rows` file of a
/// run with rows that has not finished), after checking that the part is whole and its rows
/// match their checksums.
pub fn rows_part(path: &Path) -> Result<(u64, RunKey)> {
    let part = read_part(path)?;
    check_rows(path, &part.records)?;
    Ok((part.records.rows, part.key))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use warlab_engine::{Cycle, EndReason, GameRecord, Rules};
    use warlab_runner::GameRow;
    use warlab_stats::files::RunKey;

    use super::{BLOCK, RowsWriter, check_rows, read_part, read_rows};

    fn key() -> RunKey {
        RunKey {
            experiment_hash: "0123456789abcdef".into(),
            seed: 7,
            games_from: 0,
            games_to: 3,
            rows: true,
            warlab_version: "test".into(),
        }
    }

    /// Game `i`'s row: every field different from its neighbours'.
    fn row(i: u64) -> GameRow {
        GameRow {
            game: i,
            record: GameRecord {
                battles: i * 3 + 1,
                wars: i % 17,
                deepest_war: (i % 5) as u32,
                cards_turned: i * 7,
                lead_changes: i % 11,
                winner: (!i.is_multiple_of(3)).then_some((i % 2) as u8),
                end: EndReason::ALL[(i % 9) as usize],
                cycle: i.is_multiple_of(4).then_some(Cycle {
                    start: i,
                    period: i % 13 + 1,
                }),
            },
        }
    }

    /// A part of `n` rows at `dir/name`, written in uneven pieces that cross blocks.
    fn part(dir: &Path, name: &str, n: u64) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        let mut w = RowsWriter::<Rules>::create(&path, &key()).unwrap();
        let rows: Vec<GameRow> = (0..n).map(row).collect();
        for piece in rows.chunks(40_000) {
            let (a, b) = piece.split_at(piece.len() / 3);
            w.write(a).unwrap();
            w.write(b).unwrap();
        }
        w.finish().unwrap();
        path
    }

    /// A fresh folder for one test; [`done`] removes it.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("warlab-rowfile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn done(dir: &Path) {
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn rows_read_back_across_blocks() {
        let dir = scratch("back");
        for n in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 5] {
            let path = part(&dir, &format!("{n}.rows"), n);
            let part = read_part(&path).unwrap();
            assert_eq!(part.key, key());
            assert_eq!(part.records.rows, n);
            check_rows(&path, &part.records).unwrap();
            let all = read_rows::<Rules>(&path, &part.records, 0, n as usize).unwrap();
            assert_eq!(all, (0..n).map(row).collect::<Vec<_>>(), "{n} rows");
            // Ranges inside a block, across a block's end, over parts of two blocks, over a
            // whole middle block with a row on each side, and a whole block.
            for (from, len) in [
                (0, 1),
                (BLOCK - 2, 5),
                (BLOCK / 2, BLOCK + 3),
                (BLOCK - 1, BLOCK + 2),
                (BLOCK, BLOCK),
                (n / 2, 2),
            ] {
                let len = len.min(n.saturating_sub(from));
                if len == 0 {
                    continue;
                }
                let got = read_rows::<Rules>(&path, &part.records, from, len as usize).unwrap();
                let want: Vec<GameRow> = (from..from + len).map(row).collect();
                assert_eq!(got, want, "{n} rows, {len} from {from}");
            }
            // Rows the part does not hold are an error, not fewer rows.
            let err = read_rows::<Rules>(&path, &part.records, n, 1).unwrap_err();
            assert!(
                err.to_string().contains(&format!("holds {n} rows")),
                "{err}"
            );
        }
        done(&dir);
    }

    #[test]
    fn a_damaged_row_is_found_by_its_blocks_checksum() {
        let dir = scratch("damaged");
        let n = 2 * BLOCK + 5;
        let path = part(&dir, "p.rows", n);
        let records = read_part(&path).unwrap().records;
        // One bit of game BLOCK + 10, in the second block; the length, header and footer stay.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = records.block_at(1) + 10 * records.row_bytes + 3;
        bytes[at as usize] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let records = read_part(&path).unwrap().records;
        let err = check_rows(&path, &records).unwrap_err().to_string();
        let rows = format!(
            "its rows {}..{} do not match their checksum",
            BLOCK,
            2 * BLOCK
        );
        assert!(err.contains(&rows) && err.contains("p.rows"), "{err}");
        let err = read_rows::<Rules>(&path, &records, BLOCK - 1, 2)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&rows) && err.contains("plays its variant again"),
            "{err}"
        );
        // The blocks around it still read.
        read_rows::<Rules>(&path, &records, 0, BLOCK as usize).unwrap();
        read_rows::<Rules>(&path, &records, 2 * BLOCK, 5).unwrap();
        // A cut part is refused before its rows are read.
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = read_part(&path).unwrap_err().to_string();
        assert!(err.contains("truncated or damaged"), "{err}");
        done(&dir);
    }

    #[test]
    fn damage_in_the_last_short_block_or_in_a_checksum_is_found() {
        let dir = scratch("ends");
        let n = BLOCK + 3;
        let clean = std::fs::read(part(&dir, "p.rows", n)).unwrap();
        let path = dir.join("p.rows");
        let records = read_part(&path).unwrap().records;
        let last_row = records.block_at(1) + 2 * records.row_bytes;
        let first_sum = records.block_at(1) - 1;
        for (at, rows) in [(last_row, (BLOCK, n)), (first_sum, (0, BLOCK))] {
            let mut bytes = clean.clone();
            bytes[at as usize] ^= 0x80;
            std::fs::write(&path, &bytes).unwrap();
            let records = read_part(&path).unwrap().records;
            let err = check_rows(&path, &records).unwrap_err().to_string();
            let want = format!("its rows {}..{} do not match", rows.0, rows.1);
            assert!(err.contains(&want), "byte {at}: {err}");
            let err = read_rows::<Rules>(&path, &records, rows.0, (rows.1 - rows.0) as usize)
                .unwrap_err()
                .to_string();
            assert!(err.contains(&want), "byte {at}: {err}");
        }
        done(&dir);
    }
}
