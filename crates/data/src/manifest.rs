//! What a run did, for `manifest.json` (its type, and the run key's, are
//! [`warlab_stats::files`]'): the manifest of an experiment, its timing, UTC timestamps.

use warlab_experiment::{Experiment, RuleSet};
use warlab_stats::files::{Manifest, ManifestVariant, RunKey};

/// Timing of a run, for the manifest.
pub struct Timing {
    /// When the run started.
    pub started: std::time::SystemTime,
    /// Wall time, in seconds.
    pub seconds: f64,
    /// Games played by this invocation.
    pub games_played: u64,
    /// Worker threads.
    pub threads: usize,
}

/// The manifest of `exp` under `key`, with no timing yet.
pub(crate) fn describe<R: RuleSet>(exp: &Experiment<R>, key: &RunKey) -> Manifest {
    Manifest {
        game: R::GAME.into(),
        experiment: exp.name.clone(),
        description: exp.description.clone(),
        file: exp.file.display().to_string(),
        file_hash: key.experiment_hash.clone(),
        text: exp.text.clone(),
        overrides: exp.overrides.args(),
        warlab_version: key.warlab_version.clone(),
        seed: key.seed,
        games_from: key.games_from,
        games_to: key.games_to,
        games_per_variant: key.games_to - key.games_from,
        rows: key.rows,
        threads: 0,
        started_utc: String::new(),
        finished_utc: String::new(),
        seconds: 0.0,
        games_played: 0,
        games_per_s: 0.0,
        variants_resumed: 0,
        merged_from: Vec::new(),
        summary_csv_fnv1a: String::new(),
        seed_scheme: "game g of a variant uses Pcg64Mcg seeded from (seed, seed_id, g) by the splitmix64 chain documented in crates/engine/src/rng.rs; seed_id = FNV-1a 64 of the variant name".into(),
        variants: exp
            .variants
            .iter()
            .map(|v| ManifestVariant::new(&v.name, v.seed_id, v.rules.pairs()))
            .collect(),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, whole seconds, UTC); a clock set before 1970 gives 1970.
pub(crate) fn utc(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_seconds(t.max(std::time::UNIX_EPOCH)).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_formats_known_instants() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        assert_eq!(super::utc(t), "2026-11-18T11:06:40Z");
        assert_eq!(super::utc(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
