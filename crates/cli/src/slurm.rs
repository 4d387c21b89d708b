//! `warlab slurm`: a job array over an experiment's shards and a merge job that waits for it.
//! Slurm schedules; warlab only shards and merges.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::options::input_error;

// `warlab slurm`'s arguments (the subcommand's doc comment is its --help text).
#[derive(Args)]
pub struct SlurmArgs {
    /// The experiment file
    pub file: PathBuf,
    /// Number of shards (array tasks), 1..=1000
    #[arg(long, default_value_t = 4)]
    pub shards: u64,
    /// Slurm partition (default: the cluster's default)
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit per task, in Slurm's format
    #[arg(long, default_value = "01:00:00")]
    pub time: String,
    /// CPUs per task (the worker threads of each shard)
    #[arg(long, default_value_t = 2)]
    pub cpus_per_task: u32,
    /// Data folder of the shards and of the merged run
    #[arg(long, default_value = "data")]
    pub out: PathBuf,
    /// Where the scripts are written
    #[arg(long, default_value = "slurm")]
    pub dir: PathBuf,
    /// Submit with sbatch and print the job ids
    #[arg(long)]
    pub submit: bool,
}

/// At most this many shards: Slurm's default `MaxArraySize` (1001) allows array indices up
/// to 1000.
pub const MAX_SHARDS: u64 = 1000;

/// A Slurm time limit: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S` (numbers), or
/// `UNLIMITED` / `INFINITE`.
fn check_time(time: &str) -> Result<()> {
    let numbers = |s: &str, most: usize| {
        let parts: Vec<&str> = s.split(':').collect();
        parts.len() <= most
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let ok = match time.split_once('-') {
        _ if matches!(time.to_ascii_uppercase().as_str(), "UNLIMITED" | "INFINITE") => true,
        Some((days, rest)) => numbers(days, 1) && numbers(rest, 3),
        None => numbers(time, 3),
    };
    if ok {
        Ok(())
    } else {
        Err(input_error(format!(
            "--time `{}`: not a Slurm time limit; allowed: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS, UNLIMITED",
            time.escape_debug()
        )))
    }
}

/// A partition name (or a comma-separated list): it goes into the script as is, so nothing
/// but letters, digits, `_`, `-`, `.`, `,` (a newline would add lines to the script).
fn check_partition(p: &str) -> Result<()> {
    if !p.is_empty()
        && p.len() <= 200
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ','))
    {
        Ok(())
    } else {
        Err(input_error(format!(
            "--partition `{}`: a partition name is letters, digits, `_`, `-`, `.` (several separated by `,`)",
            p.escape_debug()
        )))
    }
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    })
}

pub fn slurm(a: SlurmArgs) -> Result<()> {
    // Either game: only the experiment's name is needed here.
    let exp = crate::run::load_any(&a.file)?;
    let name = exp.name().to_string();
    if a.shards == 0 || a.cpus_per_task == 0 {
        return Err(input_error(
            "--shards and --cpus-per-task must be at least 1",
        ));
    }
    if a.shards > MAX_SHARDS {
        return Err(input_error(format!(
            "--shards {}: at most {MAX_SHARDS} (Slurm's default MaxArraySize allows array indices up to 1000)",
            a.shards
        )));
    }
    check_time(&a.time)?;
    if let Some(p) = &a.partition {
        check_partition(p)?;
    }
    let exe = std::env::current_exe().context("cannot find the warlab binary")?;
    let cwd = std::env::current_dir()?;
    let (file, out) = (absolute(&a.file)?, absolute(&a.out)?);
    std::fs::create_dir_all(&a.dir)
        .with_context(|| format!("cannot create {}", a.dir.display()))?;
    let logs = absolute(&a.dir)?;
    let n = a.shards;
    let header = |job: &str, extra: &str| {
        let mut h = format!(
            "#!/bin/bash\n#SBATCH --job-name={job}\n#SBATCH --time={}\n",
            a.time
        );
        if let Some(p) = &a.partition {
            let _ = writeln!(h, "#SBATCH --partition={p}");
        }
        h.push_str(extra);
        h.push_str("set -euo pipefail\n");
        let _ = writeln!(h, "cd {}", quote(&cwd));
        h
    };
    let array = format!(
        "{}# Shard I of {n} plays a contiguous run of whole chunks of every variant's games\n\
         # (seeds depend only on the game index); a failed shard can be re-run alone with the\n\
         # same command, and resumes from its finished variants.\n\
         {} run {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --threads \"${{SLURM_CPUS_PER_TASK}}\" --out {}\n",
        header(
            &format!("warlab-{}", name),
            &format!(
                "#SBATCH --array=1-{n}\n#SBATCH --cpus-per-task={}\n#SBATCH --output={}/{}-%A_%a.out\n",
                a.cpus_per_task,
                logs.display(),
                name
            ),
        ),
        quote(&exe),
        quote(&file),
        quote(&out),
    );
    let shard_dirs: Vec<String> = (1..=n)
        .map(|i| quote(&out.join(format!("{}.shard-{i}-of-{n}", name))))
        .collect();
    let merge = format!(
        "{}# Runs after every shard succeeded (--dependency=afterok on the array).\n{} merge {} --out {}\n",
        header(
            &format!("warlab-{}-merge", name),
            &format!(
                "#SBATCH --cpus-per-task=1\n#SBATCH --output={}/{}-merge-%j.out\n",
                logs.display(),
                name
            ),
        ),
        quote(&exe),
        shard_dirs.join(" "),
        quote(&out),
    );
    let array_path = a.dir.join(format!("{}.sbatch", name));
    let merge_path = a.dir.join(format!("{}.merge.sbatch", name));
    for (path, text) in [(&array_path, array), (&merge_path, merge)] {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!("array job: {}", array_path.display());
    println!("merge job: {}", merge_path.display());
    if !a.submit {
        println!(
            "submit with: id=$(sbatch --parsable {}) && sbatch --dependency=afterok:$id {}",
            array_path.display(),
            merge_path.display()
        );
        return Ok(());
    }
    let sbatch = |args: &[&str]| -> Result<String> {
        let out = Command::new("sbatch")
            .args(args)
            .output()
            .context("cannot run sbatch: is Slurm installed here?")?;
        if !out.status.success() {
            bail!(
                "sbatch {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // `--parsable` prints `id` or `id;cluster`.
        Ok(id.split(';').next().unwrap_or_default().to_string())
    };
    let array_id = sbatch(&["--parsable", &array_path.display().to_string()])?;
    let merge_id = sbatch(&[
        "--parsable",
        &format!("--dependency=afterok:{array_id}"),
        &merge_path.display().to_string(),
    ])?;
    println!("submitted: array job {array_id} ({n} tasks), merge job {merge_id}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn slurm_time_limits() {
        for ok in [
            "30",
            "30:00",
            "01:00:00",
            "2-0",
            "2-12",
            "2-12:30",
            "2-12:30:00",
            "UNLIMITED",
            "infinite",
        ] {
            assert!(super::check_time(ok).is_ok(), "{ok}");
        }
        for bad in [
            "junk",
            "",
            "1:2:3:4",
            "1-",
            "-1",
            "1h",
            "01:00:00\n#SBATCH --x",
            "1--2",
            "a-1",
        ] {
            assert!(super::check_time(bad).is_err(), "{bad:?}");
        }
    }
}
