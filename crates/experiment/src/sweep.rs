//! The `[sweep]` table: every option given as a list is an axis, and the variants are the
//! axes' cartesian product, the first axis varying slowest, each named by its values.

use toml::de::DeValue;

use std::collections::HashMap;

use crate::parse::{Parser, Value, check_table_value, make_variant};
use crate::{ExperimentError, MAX_VARIANTS, RuleSet, Variant};

/// One `[sweep]` list: the option, where its key is, and each value's text and place.
pub(crate) struct Axis {
    pub(crate) option: String,
    pub(crate) offset: usize,
    pub(crate) values: Vec<(String, usize)>,
}

impl Parser<'_> {
    /// The axes of a `[sweep]` table: each value valid for its option, none listed twice.
    pub(crate) fn sweep_axes<R: RuleSet>(
        &self,
        v: &Value<'_>,
        key: &str,
    ) -> Result<Vec<Axis>, ExperimentError> {
        let mut sweep = Vec::new();
        for (sk, sv) in self.table(v, key)?.iter() {
            let opt = sk.get_ref().as_ref();
            let full = format!("sweep.{opt}");
            let DeValue::Array(items) = sv.get_ref() else {
                return Err(self.error(
                        sv.span().start,
                        Some(&full),
                        "a sweep axis is a list of values, e.g. `pickup = [\"seat\", \"shuffled\"]`; for one value, put it under [rules]",
                    ));
            };
            if items.is_empty() {
                return Err(self.error(
                    sv.span().start,
                    Some(&full),
                    "an empty list: give at least one value",
                ));
            }
            let mut values = Vec::new();
            let mut normal = HashMap::with_capacity(items.len());
            for item in items.iter() {
                let text = self.option_value::<R>(item, opt, &full)?;
                axis_value::<R>(opt, &text, &mut normal)
                    .map_err(|e| self.error(item.span().start, Some(&full), e))?;
                values.push((text, item.span().start));
            }
            sweep.push(Axis {
                option: opt.to_string(),
                offset: sk.span().start,
                values,
            });
        }
        Ok(sweep)
    }

    /// The axis of `--sweep opt=values`: each value checked as a file's sweep values are.
    pub(crate) fn override_axis<R: RuleSet>(
        &self,
        opt: &str,
        values: &[String],
    ) -> Result<Axis, ExperimentError> {
        let mut normal = HashMap::with_capacity(values.len());
        for v in values {
            axis_value::<R>(opt, v, &mut normal)
                .map_err(|e| self.flag_error(&format!("--sweep {opt}"), e))?;
        }
        Ok(Axis {
            option: opt.to_string(),
            offset: 0,
            values: values.iter().map(|v| (v.clone(), 0)).collect(),
        })
    }

    /// The variants of the sweep's product over the base options; `named` named variants
    /// follow them (counted in the bound on variants).
    pub(crate) fn sweep_variants<R: RuleSet>(
        &self,
        sweep: &[Axis],
        base: &R::Options,
        named: usize,
        variant_offset: usize,
    ) -> Result<Vec<Variant<R>>, ExperimentError> {
        let mut variants = Vec::new();
        // The sweep's product, the first axis varying slowest; checked before anything is
        // built (axes can multiply past any memory, or past 2^64).
        let axes_len = if sweep.is_empty() {
            Some(0)
        } else {
            sweep
                .iter()
                .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        }
        .filter(|n| n.saturating_add(named) <= MAX_VARIANTS);
        let Some(axes_len) = axes_len else {
            let lens: Vec<String> = sweep.iter().map(|a| a.values.len().to_string()).collect();
            let product = sweep
                .iter()
                .try_fold(1u128, |n, a| n.checked_mul(a.values.len() as u128))
                .map_or("more than 2^128".to_string(), |n| n.to_string());
            return Err(self.error(
                sweep.first().map_or(variant_offset, |a| a.offset),
                Some("sweep"),
                format!(
                    "the sweep's axes ({}) make {product} variants{}; at most {MAX_VARIANTS} variants per experiment",
                    lens.join(" × "),
                    if named == 0 {
                        String::new()
                    } else {
                        format!(", plus {} named", named)
                    }
                ),
            ));
        };
        variants.reserve(axes_len);
        for i in 0..axes_len {
            let mut o = base.clone();
            let mut settings = Vec::new();
            let mut rest = i;
            let mut picks = vec![0; sweep.len()];
            for (a, axis) in sweep.iter().enumerate().rev() {
                picks[a] = rest % axis.values.len();
                rest /= axis.values.len();
            }
            for (a, axis) in sweep.iter().enumerate() {
                let (text, offset) = &axis.values[picks[a]];
                let opt = &axis.option;
                self.set::<R>(&mut o, opt, text, *offset, &format!("sweep.{opt}"))?;
                settings.push((opt.clone(), text.clone()));
            }
            // Axes with a single value are the same in every variant: left out of names.
            let named_axes: Vec<&(String, String)> = settings
                .iter()
                .zip(sweep)
                .filter(|(_, axis)| axis.values.len() > 1)
                .map(|(s, _)| s)
                .collect();
            let shown = if named_axes.is_empty() {
                settings.iter().collect()
            } else {
                named_axes
            };
            let vname = shown
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let rules = R::build(o).map_err(|e| {
                self.error(
                    sweep[0].offset,
                    Some("sweep"),
                    format!("variant `{vname}`: {e}"),
                )
            })?;
            variants.push(make_variant(vname, rules, settings));
        }
        Ok(variants)
    }
}

/// Checks one value of a sweep axis: valid for its option on its own, and not a value of the
/// axis again in another spelling (`[1, "01"]`). `normal` maps each value's one written form
/// to the text first given for it.
fn axis_value<R: RuleSet>(
    opt: &str,
    text: &str,
    normal: &mut HashMap<String, String>,
) -> Result<(), String> {
    let mut probe = R::Options::default();
    check_table_value(text).and_then(|()| R::set(&mut probe, opt, text))?;
    let form = R::option_pairs(&probe)
        .into_iter()
        .find(|(k, _)| *k == opt)
        .map_or_else(|| text.to_string(), |(_, v)| v);
    if let Some(first) = normal.get(&form) {
        return Err(if first == text {
            format!("`{text}` is listed twice")
        } else {
            format!("`{text}` is `{first}` again (both read as `{form}`): each value at most once")
        });
    }
    normal.insert(form, text.to_string());
    Ok(())
}
