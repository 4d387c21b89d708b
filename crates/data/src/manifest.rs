//! What a run is and what it did: the run key every data file carries, and `manifest.json`.

use serde::{Deserialize, Serialize};
use warlab_experiment::{Experiment, RuleSet};

/// What makes two runs' results interchangeable. Every data file carries it (Parquet
/// key-value metadata, a field of the JSON files, the manifest's hash of the CSV); parts are
/// reused, and finished results replaced without `--force`, only under an equal key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunKey {
    /// FNV-1a 64 (hex) of the experiment file's text.
    pub experiment_hash: String,
    /// The experiment seed the games were played with.
    pub seed: u64,
    /// First game index played in every variant.
    pub games_from: u64,
    /// Game index every variant stopped before.
    pub games_to: u64,
    /// Whether `games.parquet` (one row per game) was written.
    pub rows: bool,
    /// The warlab version that played the games.
    pub warlab_version: String,
}

impl RunKey {
    /// What differs from `other`: the field's name, this key's value, `other`'s value.
    pub fn differences(&self, other: &RunKey) -> Vec<(&'static str, String, String)> {
        let mut out = Vec::new();
        let mut field = |what, a: String, b: String| {
            if a != b {
                out.push((what, a, b));
            }
        };
        field(
            "experiment file hash",
            self.experiment_hash.clone(),
            other.experiment_hash.clone(),
        );
        field("seed", self.seed.to_string(), other.seed.to_string());
        field(
            "games",
            format!("{}..{}", self.games_from, self.games_to),
            format!("{}..{}", other.games_from, other.games_to),
        );
        field("rows", self.rows.to_string(), other.rows.to_string());
        field(
            "warlab version",
            self.warlab_version.clone(),
            other.warlab_version.clone(),
        );
        out
    }

    /// The differences from `other` in words: "seed `1` (there) against `2` (here)".
    pub(crate) fn describe_differences(&self, other: &RunKey, there: &str, here: &str) -> String {
        self.differences(other)
            .iter()
            .map(|(what, a, b)| format!("{what} `{a}` ({there}) against `{b}` ({here})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn war() -> String {
    "war".into()
}

/// What `manifest.json` records. Its seed, range, rows, file hash and version are the run
/// key of the folder's files.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// `war` or `casino-war` (manifests written before Casino War have no field: War).
    #[serde(default = "war")]
    pub game: String,
    /// The experiment's `name` (the folder's name; checked before it becomes a path).
    pub experiment: String,
    /// The experiment's `description`.
    pub description: String,
    /// The experiment file as given on the command line.
    pub file: String,
    /// FNV-1a 64 (hex) of `text`.
    pub file_hash: String,
    /// The experiment file's text, as played.
    pub text: String,
    /// The warlab version that wrote the folder.
    pub warlab_version: String,
    /// The experiment seed.
    pub seed: u64,
    /// First game index played in every variant.
    pub games_from: u64,
    /// Game index every variant stopped before.
    pub games_to: u64,
    /// Games of each variant in the folder (`games_to − games_from`, or a variant's own `games`).
    pub games_per_variant: u64,
    /// Whether `games.parquet` was written.
    pub rows: bool,
    /// Worker threads of the run.
    pub threads: usize,
    /// When the run started (RFC 3339, UTC).
    pub started_utc: String,
    /// When the last file was written (RFC 3339, UTC).
    pub finished_utc: String,
    /// Wall time of this invocation, in seconds.
    pub seconds: f64,
    /// Games played by this invocation (not counting variants resumed from an earlier one).
    pub games_played: u64,
    /// Games per second of this invocation.
    pub games_per_s: f64,
    /// Variants taken whole from `.parts/` of an interrupted run.
    pub variants_resumed: usize,
    /// The folders a `warlab merge` combined (empty for a run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// How game seeds derive from the experiment seed, in words (see `warlab_engine::rng`).
    pub seed_scheme: String,
    /// FNV-1a 64 (hex) of `summary.csv`'s bytes: a CSV file has no place for the run key, so
    /// the manifest vouches for it (empty in folders written before run keys).
    #[serde(default)]
    pub summary_csv_fnv1a: String,
    /// Every variant, in experiment order.
    pub variants: Vec<ManifestVariant>,
}

/// One variant of the manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ManifestVariant {
    /// The variant's name.
    pub name: String,
    /// The variant's seed id (FNV-1a 64 of its name).
    pub seed_id: u64,
    /// Every rule option, `name=value`.
    pub rules: Vec<String>,
}

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

impl Manifest {
    /// The run key of the folder this manifest describes.
    pub fn key(&self) -> RunKey {
        RunKey {
            experiment_hash: self.file_hash.clone(),
            seed: self.seed,
            games_from: self.games_from,
            games_to: self.games_to,
            rows: self.rows,
            warlab_version: self.warlab_version.clone(),
        }
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
                .map(|v| ManifestVariant {
                    name: v.name.clone(),
                    seed_id: v.seed_id,
                    rules: v
                        .rules
                        .pairs()
                        .into_iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect(),
                })
                .collect(),
        }
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
