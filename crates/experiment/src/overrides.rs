//! What the command line changes of an experiment file: `warlab run FILE --games N
//! --rule NAME=VALUE --sweep NAME=V1,V2 --rows`. The changes are applied as the file is read
//! (so every check of a file holds for them too), kept with the experiment, recorded in the
//! manifest as the arguments that gave them, and part of the run key: a run with other
//! overrides is another run.

use crate::MAX_GAMES;

/// The command line's changes to an experiment file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--games N`: games per variant instead of the file's `games`.
    pub games: Option<u64>,
    /// `--rule NAME=VALUE`, in order: base rule options set after the file's `[rules]`.
    pub rules: Vec<(String, String)>,
    /// `--sweep NAME=V1,V2`, in order: a sweep axis added, or replacing the file's axis of
    /// that option.
    pub sweeps: Vec<(String, Vec<String>)>,
    /// `--rows`: one row per game, as `rows = true` in the file.
    pub rows: bool,
}

/// `NAME=VALUE` split at its first `=`, both sides trimmed and non-empty.
fn pair<'a>(flag: &str, text: &'a str) -> Result<(&'a str, &'a str), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => Ok((k.trim(), v.trim())),
        _ => Err(format!(
            "{flag} `{text}`: expected NAME=VALUE, e.g. {flag} pickup=seat (see `warlab rules`)"
        )),
    }
}

impl Overrides {
    /// Reads the command line's arguments. A sweep's values are separated by `,`, or by `;`
    /// when they are war-size tables, whose own entries are separated by `,`
    /// (`--sweep "war_down=J=1,Q=2;J=2,Q=3"`).
    pub fn from_args(
        games: Option<u64>,
        rules: &[String],
        sweeps: &[String],
        rows: bool,
    ) -> Result<Overrides, String> {
        if let Some(g) = games
            && !(1..=MAX_GAMES).contains(&g)
        {
            return Err(format!(
                "--games {g}: from 1 to {MAX_GAMES} games per variant"
            ));
        }
        let rules = rules
            .iter()
            .map(|r| pair("--rule", r).map(|(k, v)| (k.to_string(), v.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let mut axes: Vec<(String, Vec<String>)> = Vec::new();
        for s in sweeps {
            let (k, list) = pair("--sweep", s)?;
            let sep = if list.contains('=') { ';' } else { ',' };
            let values: Vec<String> = list.split(sep).map(|v| v.trim().to_string()).collect();
            if values.iter().any(String::is_empty) {
                return Err(format!(
                    "--sweep `{s}`: an empty value; give the values as NAME=V1,V2"
                ));
            }
            if axes.iter().any(|(a, _)| a == k) {
                return Err(format!(
                    "--sweep `{s}`: `{k}` is swept twice; give all its values in one --sweep"
                ));
            }
            axes.push((k.to_string(), values));
        }
        Ok(Overrides {
            games,
            rules,
            sweeps: axes,
            rows,
        })
    }

    /// No change to the file.
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }

    /// The arguments that give these overrides, as `warlab run` takes them: recorded in the
    /// manifest and printed in the report's "Reproduce with" line.
    pub fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(g) = self.games {
            out.extend(["--games".to_string(), g.to_string()]);
        }
        for (k, v) in &self.rules {
            out.extend(["--rule".to_string(), format!("{k}={v}")]);
        }
        for (k, values) in &self.sweeps {
            let sep = if values.iter().any(|v| v.contains(',')) {
                ";"
            } else {
                ","
            };
            out.extend(["--sweep".to_string(), format!("{k}={}", values.join(sep))]);
        }
        if self.rows {
            out.push("--rows".to_string());
        }
        out
    }

    /// The overrides a manifest recorded with [`Overrides::args`].
    pub fn from_recorded(args: &[String]) -> Result<Overrides, String> {
        let (mut games, mut rules, mut sweeps, mut rows) = (None, Vec::new(), Vec::new(), false);
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("`{flag}` without its value"))
            };
            match flag.as_str() {
                "--games" => {
                    let v = value()?;
                    games = Some(v.parse().map_err(|_| format!("--games `{v}`"))?);
                }
                "--rule" => rules.push(value()?),
                "--sweep" => sweeps.push(value()?),
                "--rows" => rows = true,
                other => return Err(format!("unknown override `{other}`")),
            }
        }
        Overrides::from_args(games, &rules, &sweeps, rows)
    }

    /// The run key's part for these overrides: empty when there are none, so that a plain
    /// run's key is the file's hash alone.
    pub(crate) fn key_text(&self) -> String {
        if self.is_empty() {
            String::new()
        } else {
            format!("\n# warlab run {}", self.args().join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Overrides;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn arguments_read_and_print_back() {
        let o = Overrides::from_args(
            Some(200),
            &s(&["pickup=seat", "war_down = 1"]),
            &s(&["ranking=aces-high,aces-low", "war_down=J=1,Q=2;J=2"]),
            true,
        )
        .unwrap();
        assert_eq!(o.rules[1], ("war_down".into(), "1".into()));
        assert_eq!(o.sweeps[1].1, ["J=1,Q=2", "J=2"]);
        let args = o.args();
        assert_eq!(
            args,
            s(&[
                "--games",
                "200",
                "--rule",
                "pickup=seat",
                "--rule",
                "war_down=1",
                "--sweep",
                "ranking=aces-high,aces-low",
                "--sweep",
                "war_down=J=1,Q=2;J=2",
                "--rows"
            ])
        );
        assert_eq!(Overrides::from_recorded(&args).unwrap(), o);
        assert!(Overrides::default().key_text().is_empty());
    }

    #[test]
    fn bad_arguments_say_what_is_expected() {
        let e = Overrides::from_args(None, &s(&["pickup"]), &[], false).unwrap_err();
        assert!(e.contains("expected NAME=VALUE"), "{e}");
        let e = Overrides::from_args(None, &[], &s(&["pickup=seat,"]), false).unwrap_err();
        assert!(e.contains("an empty value"), "{e}");
        let e = Overrides::from_args(None, &[], &s(&["pickup=seat", "pickup=played"]), false)
            .unwrap_err();
        assert!(e.contains("swept twice"), "{e}");
        let e = Overrides::from_args(Some(0), &[], &[], false).unwrap_err();
        assert!(e.contains("from 1 to"), "{e}");
    }
}
