//! `warlab slurm`: a job array over an experiment's shards and a merge job that waits for it.
//! Slurm schedules; warlab only shards and merges.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::options::input_error;

pub struct SlurmArgs {
    pub file: PathBuf,
    pub shards: u64,
    pub partition: Option<String>,
    pub time: String,
    pub cpus_per_task: u32,
    pub out: PathBuf,
    pub dir: PathBuf,
    pub submit: bool,
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
    std::fs::write(&array_path, array)?;
    std::fs::write(&merge_path, merge)?;
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
