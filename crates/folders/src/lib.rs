//! Output folders: one writer at a time, and folders replaced whole.
//!
//! Every command that writes or reads a run's folder (`run`, `merge`, `report`) holds a
//! [`FolderLock`] on it: an advisory lock (`flock`) on `.warlab.lock` inside the folder, which
//! the operating system releases when the process ends, crash or kill included. A second
//! process is refused at once with a [`Refused`] error naming the folder and the holder's pid.
//! [`replace_dir`] puts a folder built beside the old one in its place in one step.

#![warn(missing_docs)]

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The file inside a folder that its lock is taken on; it holds the holder's pid.
pub const LOCK_FILE: &str = ".warlab.lock";

/// A folder that cannot be used as asked (busy, holding another run's results, mixing two
/// runs, or named by a name that is not a folder name). Nothing was changed; the command line
/// exits with status 2.
#[derive(Debug)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A refusal as an error.
pub fn refused(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refused(message.into()))
}

/// This process's exclusive use of a folder, until dropped (or the process ends). Commands
/// take it before they change or read anything in the folder.
#[derive(Debug)]
pub struct FolderLock {
    dir: PathBuf,
    // Held open: closing it releases the lock.
    _file: File,
}

impl FolderLock {
    /// Locks the folder `dir`, or refuses at once if another process holds it.
    pub fn acquire(dir: &Path) -> Result<FolderLock> {
        if !dir.is_dir() {
            return Err(refused(format!("{} is not a folder", dir.display())));
        }
        let mut file = open_lock_file(dir)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let holder = match pid.trim() {
                    "" => "a process that has not written its pid yet".to_string(),
                    p => format!("pid {p}"),
                };
                return Err(refused(format!(
                    "{} is in use by another warlab command ({holder}): one writer per folder; wait for it to finish, or use another folder",
                    dir.display()
                )));
            }
            Err(TryLockError::Error(e)) => {
                return Err(e)
                    .with_context(|| format!("cannot lock {}", dir.join(LOCK_FILE).display()));
            }
        }
        write_pid(&mut file, dir)?;
        Ok(FolderLock {
            dir: dir.to_path_buf(),
            _file: file,
        })
    }

    /// Locks `dir` (created if missing), waiting for another holder to finish. For short
    /// critical sections only (writing a report into a reports folder).
    pub fn wait(dir: &Path) -> Result<FolderLock> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut file = open_lock_file(dir)?;
        file.lock()
            .with_context(|| format!("cannot lock {}", dir.join(LOCK_FILE).display()))?;
        write_pid(&mut file, dir)?;
        Ok(FolderLock {
            dir: dir.to_path_buf(),
            _file: file,
        })
    }

    /// The locked folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn open_lock_file(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))
}

fn write_pid(file: &mut File, dir: &Path) -> Result<()> {
    (|| {
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        writeln!(file, "{}", std::process::id())
    })()
    .with_context(|| format!("cannot write {}", dir.join(LOCK_FILE).display()))
}

/// Puts the folder `staged` (complete, beside `target` on the same file system) in place of
/// `target`, and removes the folder it replaced. On Linux the two are exchanged in one step,
/// so `target` is at every instant either the whole old folder or the whole new one;
/// elsewhere (or where the file system cannot exchange) it is renamed away first, so
/// `target` may be briefly missing but is never half replaced.
pub fn replace_dir(staged: &Path, target: &Path) -> Result<()> {
    match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return std::fs::rename(staged, target).with_context(|| {
                format!("cannot rename {} to {}", staged.display(), target.display())
            });
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", target.display())),
        Ok(m) if !m.is_dir() => {
            return Err(refused(format!(
                "{} is not a folder (a file or a link): it is not replaced; move it away",
                target.display()
            )));
        }
        Ok(_) => {}
    }
    if exchange(staged, target).is_ok() {
        // `staged` now holds the old folder.
        return std::fs::remove_dir_all(staged)
            .with_context(|| format!("cannot remove the old {}", staged.display()));
    }
    let mut old = staged.as_os_str().to_os_string();
    old.push(".old");
    let old = PathBuf::from(old);
    if old.exists() {
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("cannot remove {}", old.display()))?;
    }
    std::fs::rename(target, &old)
        .with_context(|| format!("cannot rename {} to {}", target.display(), old.display()))?;
    std::fs::rename(staged, target)
        .with_context(|| format!("cannot rename {} to {}", staged.display(), target.display()))?;
    std::fs::remove_dir_all(&old).with_context(|| format!("cannot remove {}", old.display()))
}

/// Exchanges two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that live across the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> warlab_scratch::Scratch {
        warlab_scratch::scratch("folders", name)
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_folder_and_pid_until_the_first_is_dropped() {
        let root = scratch("lock");
        let dir = root.join("run");
        assert!(
            FolderLock::acquire(&dir).is_err(),
            "no lock on a missing folder"
        );
        std::fs::create_dir_all(&dir).unwrap();
        let first = FolderLock::acquire(&dir).unwrap();
        assert_eq!(first.dir(), dir);
        // flock locks belong to open files: a second open in this process conflicts too.
        let err = FolderLock::acquire(&dir).unwrap_err();
        let msg = err.to_string();
        assert!(err.is::<Refused>(), "{msg}");
        assert!(
            msg.contains(&dir.display().to_string())
                && msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        drop(first);
        FolderLock::acquire(&dir).unwrap();
    }

    #[test]
    fn replacing_a_folder_swaps_it_whole() {
        let root = scratch("swap");
        let (staged, target) = (root.join(".r.tmp"), root.join("r"));
        std::fs::create_dir_all(&staged).unwrap();
        std::fs::write(staged.join("report.md"), "new").unwrap();
        replace_dir(&staged, &target).unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("report.md")).unwrap(),
            "new"
        );
        std::fs::create_dir_all(&staged).unwrap();
        std::fs::write(staged.join("report.md"), "newer").unwrap();
        std::fs::write(target.join("old-figure.png"), "x").unwrap();
        replace_dir(&staged, &target).unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("report.md")).unwrap(),
            "newer"
        );
        assert!(
            !target.join("old-figure.png").exists(),
            "nothing of the old one left"
        );
        assert!(!staged.exists());
        // A file in the way is not replaced.
        std::fs::remove_dir_all(&target).unwrap();
        std::fs::write(&target, "a user's file").unwrap();
        std::fs::create_dir_all(&staged).unwrap();
        let err = replace_dir(&staged, &target).unwrap_err();
        assert!(err.is::<Refused>(), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a user's file");
    }
}
