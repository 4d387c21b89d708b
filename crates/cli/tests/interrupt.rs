//! Ctrl-C: the run stops between chunks, keeps every finished variant, says so and how to
//! resume, and exits with status 130; in a log (stderr not a terminal) progress comes as lines.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{LONG, scratch, warlab, write};

#[test]
fn ctrl_c_keeps_finished_variants_and_says_how_to_resume() {
    let dir = scratch("interrupt", "ctrl-c");
    let file = write(&dir, "long.toml", LONG);
    let out = dir.join("out");
    let args = [
        "run",
        file.as_str(),
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--no-report",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_warlab"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = out.join("long").join(".parts").join("v0000.aggregate.json");
    let started = Instant::now();
    while !first.exists() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(first.exists(), "the first variant never finished");
    // SAFETY: a plain kill(2) of our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{err}");
    assert!(
        err.contains("long: 320000 games to play in 8 variant(s)"),
        "{err}"
    );
    assert!(
        err.contains("variant war_down=0 finished (1 of 8); "),
        "{err}"
    );
    assert!(err.contains("games/s, ETA "), "{err}");
    assert!(err.contains("interrupted: "), "{err}");
    assert!(
        err.contains("variant(s) finished and kept in") && err.contains("run the same command"),
        "{err}"
    );
    assert!(!out.join("long").join("manifest.json").exists());
    // The same command resumes from what was kept.
    let (code, _, err) = warlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resuming long: "), "{err}");
}
