//! What a report reads: the run's `manifest.json` and `aggregates.json`, checked against each
//! other, and the experiment the manifest's text declares.

use std::path::Path;

use anyhow::{Context, Result, bail};
use warlab_engine::EndReason;
use warlab_experiment::{Experiment, Overrides, RuleSet, Variant};
use warlab_folders::refused;
use warlab_stats::files::{AggregatesFile, Manifest, NamedAggregate};
use warlab_stats::survival::KaplanMeier;
use warlab_stats::{Aggregate, Lengths};

/// One variant as the report sees it.
pub struct Row {
    /// The variant's name.
    pub name: String,
    /// Every rule option as `(name, value)`, from the manifest.
    pub rules: Vec<(String, String)>,
    /// The sweep axes' values (or the named variant's own options) that make it.
    pub settings: Vec<(String, String)>,
    /// Seats at the table.
    pub players: usize,
    /// Cards in play (the deck's size, for power laws).
    pub cards: usize,
    /// The variant plays one fixed deal: a single game, not a sample of its deck.
    pub fixed_deal: bool,
    /// The variant's exact counts.
    pub agg: Aggregate,
    /// The ended games' counts and the capped games' stopping points, from `agg`; `None` for
    /// data of an older warlab that had loops or caps and did not keep them apart.
    pub lengths: Option<Lengths>,
}

impl Row {
    pub(crate) fn loops(&self) -> u64 {
        self.agg.ended(EndReason::Cycle)
    }

    pub(crate) fn capped(&self) -> u64 {
        self.agg.ended(EndReason::Capped)
    }

    pub(crate) fn lengths(&self) -> Option<&Lengths> {
        self.lengths.as_ref()
    }

    /// `P(length > n)`: loops never end, capped games are censored at the cap.
    pub(crate) fn survival(&self) -> Option<KaplanMeier> {
        let l = self.lengths()?;
        Some(KaplanMeier::new(
            &l.ended_battles,
            &l.capped_battles,
            self.loops(),
        ))
    }
}

/// The experiment a run played, from the text its manifest holds. A text that no longer parses
/// (an edited manifest, or one of a warlab whose experiment files differ) is refused: a report
/// from guessed players and cards would be wrong without saying so.
pub(crate) fn played_experiment<R: RuleSet>(
    manifest_path: &Path,
    manifest: &Manifest,
) -> Result<Experiment<R>> {
    Overrides::from_recorded(&manifest.overrides)
        .and_then(|o| {
            Experiment::parse_game_with(Path::new(&manifest.file), &manifest.text, &o)
                .map_err(|e| e.to_string())
        })
        .map_err(|e| {
        refused(format!(
            "{}: `text` (the experiment file {} as played) does not parse: {e}; the manifest was edited, or written by warlab {} whose experiment files this one does not read",
            manifest_path.display(),
            manifest.file,
            manifest.warlab_version
        ))
    })
}

/// The variant `name` of the played experiment; one the text does not declare is refused.
pub(crate) fn played_variant<'e, R: RuleSet>(
    manifest_path: &Path,
    exp: &'e Experiment<R>,
    name: &str,
) -> Result<&'e Variant<R>> {
    exp.variant(name).ok_or_else(|| {
        refused(format!(
            "{}: variant `{name}` is not one of the experiment in `text`; the manifest was edited",
            manifest_path.display()
        ))
    })
}

/// Reads a run's aggregates, checked against its manifest's variants.
pub(crate) fn read_aggregates<A: serde::de::DeserializeOwned>(
    data_dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<NamedAggregate<A>>> {
    let agg_path = data_dir.join("aggregates.json");
    let aggs: AggregatesFile<A> = serde_json::from_str(
        &std::fs::read_to_string(&agg_path)
            .with_context(|| format!("cannot read {} (incomplete run?)", agg_path.display()))?,
    )
    .with_context(|| format!("{} is not a warlab aggregates file", agg_path.display()))?;
    if aggs.variants.len() != manifest.variants.len()
        || aggs
            .variants
            .iter()
            .zip(&manifest.variants)
            .any(|(a, m)| a.variant != m.name)
    {
        bail!(
            "{} and {} list different variants: the folder mixes two runs; run the experiment again",
            agg_path.display(),
            data_dir.join("manifest.json").display()
        );
    }
    if aggs.variants.is_empty() {
        bail!("{} has no variants", agg_path.display());
    }
    Ok(aggs.variants)
}
