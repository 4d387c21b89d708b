//! The types of the data files, written once for their writer (`warlab-data`) and their
//! readers (`warlab-data`'s verify and merge, `warlab-report`): the run key every file carries,
//! `manifest.json`, and `aggregates.json`.

use std::fmt::Display;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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
    pub fn describe_differences(&self, other: &RunKey, there: &str, here: &str) -> String {
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
    /// FNV-1a 64 (hex) of `text`, followed by `overrides` when there are any.
    pub file_hash: String,
    /// The experiment file's text, as read.
    pub text: String,
    /// The command line's changes to the file (`--games`, `--rule`, `--sweep`, `--rows`) as
    /// the arguments that give them; none for a file run as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
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

impl ManifestVariant {
    /// The variant `name` with its rule options as `(name, value)` pairs.
    pub fn new<K: Display, V: Display>(
        name: &str,
        seed_id: u64,
        options: impl IntoIterator<Item = (K, V)>,
    ) -> ManifestVariant {
        ManifestVariant {
            name: name.to_string(),
            seed_id,
            rules: options
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
        }
    }

    /// The rule options back as `(name, value)` pairs, split at each entry's first `=` (values
    /// may hold `=`, as war-size tables do); an entry without one is an error naming it.
    pub fn options(&self) -> Result<Vec<(&str, &str)>, String> {
        self.rules
            .iter()
            .map(|r| {
                r.split_once('=').ok_or_else(|| {
                    format!(
                        "variant `{}`: rule `{r}` is not name=value; the manifest was edited",
                        self.name
                    )
                })
            })
            .collect()
    }
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
}

/// `aggregates.json`: every variant's exact counts (`A`: a game's aggregate, such as
/// [`crate::Aggregate`] or [`crate::CasinoAggregate`]), under the run key.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound(serialize = "A: Serialize", deserialize = "A: DeserializeOwned"))]
pub struct AggregatesFile<A> {
    /// The run that counted them (`None` in files written before run keys).
    #[serde(default)]
    pub run: Option<RunKey>,
    /// Every variant, in experiment order.
    pub variants: Vec<NamedAggregate<A>>,
}

/// One variant of `aggregates.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound(serialize = "A: Serialize", deserialize = "A: DeserializeOwned"))]
pub struct NamedAggregate<A> {
    /// The variant's exact counts.
    pub aggregate: A,
    /// The variant's name.
    pub variant: String,
}

#[cfg(test)]
mod tests {
    use super::ManifestVariant;

    #[test]
    fn options_split_at_the_first_equals_sign() {
        let v = ManifestVariant::new("v", 1, [("war_down", "J=1,Q=2"), ("pickup", "seat")]);
        assert_eq!(
            v.options().unwrap(),
            [("war_down", "J=1,Q=2"), ("pickup", "seat")]
        );
        let edited = ManifestVariant {
            rules: vec!["pickup".into()],
            ..v
        };
        assert!(
            edited
                .options()
                .unwrap_err()
                .contains("`pickup` is not name=value")
        );
    }
}
