//! "What decides a game": the starting hand, the position during play and the time a game
//! takes, from the counts the runner kept (`warlab_stats::decides`). Every share has its 95 %
//! Wilson interval, every fitted slope its 95 % interval, every quantile its
//! order-statistic interval; games that never end are counted as not won, and as longer than
//! every game that ended.

use std::fmt::Write as _;

use anyhow::Result;
use warlab_experiment::Experiment;
use warlab_experiment::TimeModel;
use warlab_stats::decides::{
    CHECKPOINTS, Logistic, Outcomes, PositionCounts, TimeCounts, Verdict, logistic,
};
use warlab_stats::wilson;

use crate::format::{Figures, fmt_ci, show, slug};
use crate::input::Row;
use crate::plots::{AxisMeans, Curve, HeatMap, IntervalSeries, Survival};

/// Games a cell, a class or a lead needs before the report states its share.
const MIN_GAMES: u64 = 30;

/// The section, for the War variants that deal (not a fixed deal).
pub(crate) fn section(
    md: &mut String,
    figs: &Figures,
    exp: &Experiment,
    rows: &[Row],
) -> Result<()> {
    // Counts that cover fewer games than the variant's come from merging data of a warlab
    // that did not keep them: they are named, not used.
    let partial: Vec<&str> = rows
        .iter()
        .filter(|r| r.agg.games > 0 && r.agg.decides.hand.games() != r.agg.games)
        .map(|r| r.name.as_str())
        .collect();
    let dealt: Vec<&Row> = rows
        .iter()
        .filter(|r| !r.fixed_deal && r.agg.games > 0 && r.agg.decides.hand.games() == r.agg.games)
        .collect();
    let timed: Vec<&Row> = rows
        .iter()
        .filter(|r| !partial.contains(&r.name.as_str()))
        .filter(|r| r.agg.decides.time.as_ref().is_some_and(|t| t.games() > 0))
        .collect();
    if dealt.is_empty() && timed.is_empty() && partial.is_empty() {
        return Ok(());
    }
    md.push_str("## What decides a game\n\n");
    md.push_str(
        "Seat 0's chances from its starting hand, from the position during play, and how long \
         a game takes at a table. A game that never ends (a loop, the cap) counts as not won \
         by anyone, and as longer than every game that ended. Shares have 95 % Wilson \
         intervals; fitted slopes 95 % intervals from the fit's Fisher information.\n\n",
    );
    if !partial.is_empty() {
        let _ = writeln!(
            md,
            "Not counted here: {} (its data were merged with data of a warlab that did not \
             count what decides a game, so these counts cover only some of its games; run the \
             experiment again to count them all).\n",
            partial
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !dealt.is_empty() {
        hand(md, figs, exp, &dealt)?;
    }
    let followed: Vec<&Row> = rows
        .iter()
        .filter(|r| !partial.contains(&r.name.as_str()))
        .filter(|r| {
            r.agg
                .decides
                .position
                .as_ref()
                .is_some_and(|p| p.followed > 0)
        })
        .collect();
    if followed.is_empty() {
        md.push_str(
            "The position during play was not followed: add `[decides]` with `position = true` \
             to the experiment file for the win probability by the cards held after each \
             battle, the lead that decides a game, and who trails when (every game is then \
             played through the reference loop, several times slower).\n\n",
        );
    } else {
        position(md, figs, &followed)?;
    }
    if !timed.is_empty() {
        time(md, figs, exp, &timed)?;
    }
    let untimed: Vec<&str> = rows
        .iter()
        .filter(|r| r.agg.decides.time.is_none() && r.agg.games > 0)
        .map(|r| r.name.as_str())
        .collect();
    if !untimed.is_empty() && !timed.is_empty() {
        let _ = writeln!(
            md,
            "No time for {}: with a prize card, more than two players or shuffled won piles, a \
             game's war cards and shuffles are known only when every battle is followed \
             (`position = true`).\n",
            untimed
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// The strongest cards `by_top` counts in a row's deck, as labels: "A" for a French deck,
/// "JK/A" for one with two jokers.
fn top_label(exp: &Experiment, row: &Row) -> String {
    let k = row.agg.decides.hand.top_values.max(1) as usize;
    exp.variant(&row.name).map_or("top".into(), |v| {
        let cards = v.rules.cards();
        let n = cards.values();
        (n.saturating_sub(k)..n)
            .rev()
            .map(|value| cards.label(value as u8).to_string())
            .collect::<Vec<_>>()
            .join("/")
    })
}

fn share_cell(wins: u64, games: u64) -> String {
    match wilson(wins, games) {
        Some(ci) if games >= MIN_GAMES => format!(
            "{:.1} % ({})",
            100.0 * wins as f64 / games as f64,
            fmt_pct(ci)
        ),
        _ => "–".into(),
    }
}

fn fmt_pct((lo, hi): (f64, f64)) -> String {
    format!("{:.1}–{:.1}", 100.0 * lo, 100.0 * hi)
}

fn outcome_groups(classes: &[Outcomes]) -> Vec<(f64, u64, u64)> {
    classes
        .iter()
        .enumerate()
        .map(|(x, o)| (x as f64, o.games, o.wins))
        .collect()
}

/// "each one adds about N percentage points near even odds (odds × e^b)".
fn slope_words(f: &Logistic, unit: &str) -> String {
    let (lo, hi) = f.slope_ci();
    format!(
        "log-odds {:+.3} per {unit} (95 % CI {:+.3} to {:+.3}): the odds × {:.3} ({:.3}–{:.3}), \
         about {:+.1} percentage points of P(seat 0 wins) near even odds",
        f.slope,
        lo,
        hi,
        f.slope.exp(),
        lo.exp(),
        hi.exp(),
        25.0 * f.slope
    )
}

fn hand(md: &mut String, figs: &Figures, exp: &Experiment, rows: &[&Row]) -> Result<()> {
    md.push_str("### The starting hand\n\n");
    // One label for the table when every deck's strongest cards are the same.
    let labels: Vec<String> = rows.iter().map(|r| top_label(exp, r)).collect();
    let top = if labels.iter().all(|l| *l == labels[0]) {
        labels[0].clone()
    } else {
        let each: Vec<String> = rows
            .iter()
            .zip(&labels)
            .map(|(r, l)| format!("`{}`: {l}", r.name))
            .collect();
        let _ = writeln!(
            md,
            "The decks differ, so do their strongest cards ({}).\n",
            each.join("; ")
        );
        "top".into()
    };
    let most = rows
        .iter()
        .map(|r| r.agg.decides.hand.by_top.len())
        .max()
        .unwrap_or(0);
    let _ = write!(
        md,
        "P(seat 0 wins) and the mean length of the games that ended (battles, 95 % CI), by the \
         number of the strongest cards (`{top}`: the fewest of the strongest values that make \
         up four cards or more) seat 0 was dealt.\n\n| variant |"
    );
    for a in 0..most {
        let _ = write!(md, " {a} × {top} |");
    }
    let _ = writeln!(md, " one more `{top}`: logistic fit |");
    md.push_str("|---|");
    for _ in 0..=most {
        md.push_str("---:|");
    }
    md.push('\n');
    let mut series: Vec<IntervalSeries> = Vec::new();
    for r in rows {
        let h = &r.agg.decides.hand;
        let _ = write!(md, "| `{}` |", r.name);
        let mut points = Vec::new();
        for a in 0..most {
            let o = h.by_top.get(a).copied().unwrap_or_default();
            let length = o
                .mean_length()
                .filter(|_| o.ended >= MIN_GAMES)
                .map_or("–".into(), |(m, ci)| {
                    format!("{m:.0} ({})", fmt_ci(Some(ci), 0))
                });
            if o.games == 0 {
                md.push_str(" – |");
                continue;
            }
            let _ = write!(
                md,
                " {}; n = {}; length {length} |",
                share_cell(o.wins, o.games),
                o.games
            );
            if o.games >= MIN_GAMES
                && let Some(ci) = wilson(o.wins, o.games)
            {
                let p = o.wins as f64 / o.games as f64;
                points.push((a as f64, 100.0 * p, 100.0 * ci.0, 100.0 * ci.1));
            }
        }
        let fit = logistic(&outcome_groups(&h.by_top));
        let _ = writeln!(
            md,
            " {} |",
            fit.map_or("–".into(), |f| slope_words(&f, &format!("`{top}`")))
        );
        series.push((r.name.clone(), points));
    }
    md.push('\n');
    if series.iter().any(|s| !s.1.is_empty()) {
        show(
            md,
            figs,
            "decides-aces",
            AxisMeans {
                title: format!("{}: P(seat 0 wins) by its {top}s", exp.name),
                axis: format!("{top}s dealt to seat 0"),
                y_desc: "P(seat 0 wins), %, 95 % CI".into(),
                series,
                fits: Vec::new(),
                log_log: false,
                exact_pairs: false,
            },
            &format!(
                "P(seat 0 wins) with its 95 % Wilson interval against the number of `{top}` seat 0 \
             was dealt (classes of at least {MIN_GAMES} games)."
            ),
        )?;
    }

    // Hand strength: the sum of the card values, in deciles of the games.
    md.push_str(
        "Hand strength is the sum of seat 0's card values, counting the weakest value 0, the \
         next 1, and so on. The deciles split the games into ten groups of about equal size \
         by strength (a decile is a range of sums; ties at its edge stay together).\n\n\
         | variant | P(seat 0 wins) (95 % CI) and the mean length of the ended games per decile of hand strength, weakest first (range of sums) | logistic fit on strength |\n|---|---|---|\n",
    );
    for r in rows {
        let h = &r.agg.decides.hand;
        let deciles = deciles(&h.by_sum);
        let cells: Vec<String> = deciles
            .iter()
            .map(|d| {
                let length =
                    d.2.mean_length()
                        .map_or(String::new(), |(m, _)| format!(", length {m:.0}"));
                format!(
                    "{}–{}: {}{length}",
                    d.0,
                    d.1,
                    share_cell(d.2.wins, d.2.games)
                )
            })
            .collect();
        let fit = logistic(&outcome_groups(&h.by_sum));
        let _ = writeln!(
            md,
            "| `{}` | {} | {} |",
            r.name,
            cells.join("; "),
            fit.map_or("–".into(), |f| slope_words(&f, "point of strength"))
        );
    }
    md.push('\n');

    // What each card value is worth: the logistic slope per card of that value.
    let mut series: Vec<IntervalSeries> = Vec::new();
    // The deck's labels on the axis when every variant has the same values.
    let ends = |r: &Row| {
        exp.variant(&r.name).map(|v| {
            let cards = v.rules.cards();
            let last = cards.values() - 1;
            (
                last,
                cards.label(0).to_string(),
                cards.label(last as u8).to_string(),
            )
        })
    };
    let axis = match ends(rows[0]) {
        Some((last, lo, hi))
            if rows
                .iter()
                .all(|r| ends(r) == Some((last, lo.clone(), hi.clone()))) =>
        {
            format!("card value (0 = {lo}, …, {last} = {hi})")
        }
        _ => "card value (0 = the weakest)".to_string(),
    };
    md.push_str(
        "What one card of each value is worth: the logistic slope of seat 0's win on how many \
         cards of that value it was dealt, fitted value by value (the other values vary as \
         they fall). Positive: the card helps its holder.\n\n| variant | value: log-odds per card (95 % CI) |\n|---|---|\n",
    );
    for r in rows {
        let Some(v) = exp.variant(&r.name) else {
            continue;
        };
        let cards = v.rules.cards();
        let h = &r.agg.decides.hand;
        let mut points = Vec::new();
        let mut cells = Vec::new();
        for (value, counts) in h.by_value.iter().enumerate() {
            let groups: Vec<(f64, u64, u64)> = counts
                .iter()
                .enumerate()
                .map(|(c, g)| (c as f64, g[0], g[1]))
                .collect();
            let label = cards.label(value as u8);
            match logistic(&groups) {
                Some(f) => {
                    let (lo, hi) = f.slope_ci();
                    cells.push(format!("{label}: {:+.3} ({lo:+.3} to {hi:+.3})", f.slope));
                    points.push((value as f64, f.slope, lo, hi));
                }
                None => cells.push(format!("{label}: –")),
            }
        }
        let _ = writeln!(md, "| `{}` | {} |", r.name, cells.join("; "));
        series.push((r.name.clone(), points));
    }
    md.push('\n');
    if series.iter().all(|s| s.1.is_empty()) {
        return Ok(());
    }
    show(
        md,
        figs,
        "decides-values",
        AxisMeans {
            title: format!("{}: what one card of each value is worth", exp.name),
            axis,
            y_desc: "log-odds of seat 0 winning per card, 95 % CI".into(),
            series,
            fits: Vec::new(),
            log_log: false,
            exact_pairs: false,
        },
        "The logistic slope of seat 0's win on its count of each card value, with 95 % \
         intervals: how much one more card of that value moves the log-odds of winning.",
    )
}

/// Ten groups of about equal games by hand strength: `(lowest sum, highest sum, outcomes)`. A
/// sum's games stay together, in the decile where its first game falls; a sum that spans
/// several deciles leaves the groups fewer than ten.
fn deciles(by_sum: &[Outcomes]) -> Vec<(usize, usize, Outcomes)> {
    let total: u64 = by_sum.iter().map(|o| o.games).sum();
    let mut out: Vec<(usize, usize, Outcomes)> = Vec::new();
    let mut open = None;
    let mut seen = 0u64;
    for (s, o) in by_sum.iter().enumerate().filter(|(_, o)| o.games > 0) {
        let d = seen * 10 / total.max(1);
        seen += o.games;
        match out.last_mut() {
            Some(last) if open == Some(d) => {
                last.1 = s;
                last.2.merge(o);
            }
            _ => {
                out.push((s, s, *o));
                open = Some(d);
            }
        }
    }
    out
}

/// Rows of the heat map: seat 0's cards in bins of an odd width near a thirteenth of the
/// cards in play, one centred on an even split among the `players` (so that the map of two
/// players is symmetric).
fn card_bins(cards: usize, players: usize) -> Vec<(usize, usize)> {
    let width = (cards / 13) | 1;
    let half = width / 2;
    let centre = cards / players.max(1);
    // The lowest bin's upper end: the centre bin's lower end less whole bins.
    let first_hi = (centre - half + width - 1) % width;
    let mut bins = vec![(0, first_hi.min(cards))];
    let mut lo = first_hi + 1;
    while lo <= cards {
        bins.push((lo, (lo + width - 1).min(cards)));
        lo += width;
    }
    bins
}

fn position(md: &mut String, figs: &Figures, rows: &[&Row]) -> Result<()> {
    md.push_str("### The position during play\n\n");
    md.push_str(
        "After battle t (t = 5, 10, 25, …) each followed game still in play counts once: a game \
         that ended in battle t or before is decided and counts no more; a looping game counts \
         at every t, its loop replayed. P(seat 0 wins) by the cards seat 0 then holds. The \
         \"call it\" lead after t is the smallest lead in cards (seat against seat) from which \
         the leader won at least 95 % (99 %) of the games in which a seat led by that much or \
         more, with the share's 95 % interval; † marks a lead whose interval reaches below the \
         level (estimated, not shown with 95 % confidence). Leads pooled over fewer than 30 \
         games are not judged. Both seats' leads are pooled, so under rules that favour a seat (`speed`, \
         `pickup = seat`, different hand policies) it averages the two. \"Never trails\" is the \
         share of the games with a winner, still in play after t, whose winner never held fewer \
         cards than another seat after it.\n\n",
    );
    for r in rows {
        let Some(p) = &r.agg.decides.position else {
            continue;
        };
        if r.agg.games == 0 || p.followed == 0 {
            continue;
        }
        let two = r.players == 2;
        let sample = if p.followed < r.agg.games {
            format!(
                " (the first {} of its {} games followed battle by battle)",
                p.followed, r.agg.games
            )
        } else {
            String::new()
        };
        let _ = writeln!(md, "**`{}`**{sample}\n", r.name);
        md.push_str(
            "| after battle | games in play | call it at 95 %: lead (leader won, 95 % CI) | at 99 % | winner never trails after (95 % CI) |\n|---:|---:|---|---|---|\n",
        );
        for (i, &t) in CHECKPOINTS.iter().enumerate() {
            let games: u64 = p.at.get(i).map_or(0, |row| row.iter().map(|c| c[0]).sum());
            if games == 0 {
                break;
            }
            let call = |target: f64| -> String {
                if !two {
                    return "(two players only)".into();
                }
                match p.call_it(i, target, MIN_GAMES) {
                    Verdict::Called(c) => format!(
                        "{} cards ({:.2} %, {}–{} %){}",
                        c.lead,
                        100.0 * c.wins as f64 / c.games as f64,
                        format_args!("{:.2}", 100.0 * c.ci.0),
                        format_args!("{:.2}", 100.0 * c.ci.1),
                        if c.sure { "" } else { " †" }
                    ),
                    Verdict::NotReached { .. } => "no lead reaches it".into(),
                    Verdict::TooFew { games } => format!("too few games ({games} with a lead)"),
                }
            };
            let nt = p.never_trails.get(i).copied().unwrap_or([0, 0]);
            let _ = writeln!(
                md,
                "| {t} | {games} | {} | {} | {} |",
                call(0.95),
                call(0.99),
                share_cell(nt[1], nt[0])
            );
        }
        md.push('\n');
        last_change(md, r, p);
        heat_map(md, figs, r, p)?;
        if two {
            call_it_figure(md, figs, r, p)?;
        }
    }
    Ok(())
}

/// The "call it" curve of a two-player variant: P(the leader wins) against the lead, after a
/// few battles t, beside a fair game's ½ + d / (2 × cards) (the cards a seat holds as its
/// chance, as in a fair coin-tossing game).
fn call_it_figure(md: &mut String, figs: &Figures, r: &Row, p: &PositionCounts) -> Result<()> {
    let mut series: Vec<IntervalSeries> = Vec::new();
    for (i, &t) in CHECKPOINTS.iter().enumerate() {
        if ![10, 50, 250, 1000].contains(&t) {
            continue;
        }
        let Some(by_lead) = p.by_lead(i) else { break };
        let points: Vec<_> = by_lead
            .iter()
            .enumerate()
            .filter(|(_, e)| e[0] >= MIN_GAMES)
            .filter_map(|(d, e)| {
                let (lo, hi) = wilson(e[1], e[0])?;
                let share = e[1] as f64 / e[0] as f64;
                Some((d as f64, 100.0 * share, 100.0 * lo, 100.0 * hi))
            })
            .collect();
        if points.len() >= 2 {
            series.push((format!("after battle {t}"), points));
        }
    }
    if series.is_empty() {
        return Ok(());
    }
    let cards = f64::from(p.cards);
    let fair = (1..=p.cards)
        .map(|d| {
            let y = 100.0 * (0.5 + f64::from(d) / (2.0 * cards));
            (f64::from(d), y, y, y)
        })
        .collect();
    series.push(("fair game: ½ + lead / (2 × cards)".into(), fair));
    show(
        md,
        figs,
        &format!("decides-call-it-{}", slug(&r.name)),
        AxisMeans {
            title: format!("{}: P(the leader wins) by its lead", r.name),
            axis: "lead in cards (seat against seat)".into(),
            y_desc: "P(the leader wins), %, 95 % CI".into(),
            series,
            fits: Vec::new(),
            log_log: false,
            exact_pairs: false,
        },
        &format!(
            "`{}`: the share of games the leader went on to win, by its lead after battle t \
             (leads of at least {MIN_GAMES} games), and the line of a fair game, in which a \
             seat's chance is its share of the cards. Each point is one exact lead; the table's \
             \"call it\" pools every lead from d up and asks for the level with 95 % confidence, \
             so it can differ from where a curve crosses 95 %.",
            r.name
        ),
    )
}

fn last_change(md: &mut String, r: &Row, p: &PositionCounts) {
    if let Some(m) = warlab_stats::mean_estimate(&r.agg.lead_changes) {
        let _ = writeln!(
            md,
            "Lead changes per game (every game as recorded, a loop up to its first repeat): \
             mean {:.2} (95 % CI {}), median {}.\n",
            m.mean,
            fmt_ci(m.ci, 2),
            r.agg.lead_changes.quantile(0.5).unwrap_or(0)
        );
    }
    let h = &p.last_change;
    if h.count() == 0 {
        return;
    }
    let never = h.iter().find(|(v, _)| *v == 0).map_or(0, |(_, c)| c);
    let _ = writeln!(
        md,
        "The last lead change of the games with a winner: median after battle {}, 90 % of \
         games by battle {}; {} had none after the deal.\n",
        h.quantile(0.5).unwrap_or(0),
        h.quantile(0.9).unwrap_or(0),
        crate::format::pct(never, h.count()),
    );
}

fn heat_map(md: &mut String, figs: &Figures, r: &Row, p: &PositionCounts) -> Result<()> {
    let bins = card_bins(p.cards as usize, r.players);
    let mut columns = Vec::new();
    let mut cells = Vec::new();
    for (i, &t) in CHECKPOINTS.iter().enumerate() {
        let Some(row) = p.at.get(i) else { break };
        if row.iter().map(|c| c[0]).sum::<u64>() == 0 {
            break;
        }
        let column: Vec<Option<(f64, u64)>> = bins
            .iter()
            .map(|&(lo, hi)| {
                let (n, w) = row[lo..=hi.min(row.len() - 1)]
                    .iter()
                    .fold((0, 0), |(n, w), c| (n + c[0], w + c[1]));
                (n >= MIN_GAMES).then(|| (w as f64 / n as f64, n))
            })
            .collect();
        if column.iter().all(Option::is_none) {
            // Later battles have fewer games still in play: nothing more to show.
            break;
        }
        columns.push(t.to_string());
        cells.push(column);
    }
    if columns.is_empty() {
        return Ok(());
    }
    let rows_labels = bins
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            }
        })
        .collect();
    show(
        md,
        figs,
        &format!("decides-position-{}", slug(&r.name)),
        HeatMap {
            title: format!("{}: P(seat 0 wins) by its cards after battle t", r.name),
            x_desc: "after battle t".into(),
            columns,
            y_desc: "seat 0's cards".into(),
            rows: rows_labels,
            cells,
        },
        &format!(
            "`{}`: P(seat 0 wins) (red: likely, blue: unlikely) and the number of games, by the \
             cards seat 0 holds after battle t; cells of fewer than {MIN_GAMES} games are \
             blank. The counts for every number of cards are in `aggregates.json` \
             (`decides.position.at`).",
            r.name
        ),
    )
}

fn minutes(seconds: Option<u64>) -> String {
    seconds.map_or("never (beyond the games that ended)".into(), |s| {
        format!("{:.1}", s as f64 / 60.0)
    })
}

fn time(md: &mut String, figs: &Figures, exp: &Experiment, rows: &[&Row]) -> Result<()> {
    md.push_str("### How long a game takes\n\n");
    let t0 = rows[0].agg.decides.time.as_ref().expect("timed rows");
    let d = TimeModel::default();
    let source = if (t0.battle_ms, t0.war_card_ms, t0.shuffle_ms)
        == (d.battle_ms, d.war_card_ms, d.shuffle_ms)
    {
        "warlab's defaults: an assumption, not a measurement; `[decides]` in the experiment \
         file sets other times"
    } else {
        "set in the experiment file's `[decides]`"
    };
    let _ = writeln!(
        md,
        "Each game's duration at a table from a time model: {} s per battle, {} s per war \
         card (face down, or face up after a battle's first cards), {} s per shuffle of a \
         won pile ({source}). Quantiles in minutes: the q-quantile is the time within which a \
         share q of the games end, over every game, those that never ended counted as longer \
         than all; the median's 95 % interval is distribution-free, from the order statistics. \
         Where the record alone does not give a game's time (a prize card, more than two \
         players, shuffled won piles) only the games followed battle by battle are timed.\n",
        t0.battle_ms as f64 / 1000.0,
        t0.war_card_ms as f64 / 1000.0,
        t0.shuffle_ms as f64 / 1000.0,
    );
    md.push_str(
        "| variant | games timed | 10 % | 25 % | median (95 % CI) | 75 % | 90 % | never end |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut curves = Vec::new();
    let mut first_median = None;
    for r in rows {
        let t: &TimeCounts = r.agg.decides.time.as_ref().expect("timed rows");
        let q = |x: f64| t.quantile(x);
        let at = |x: f64| minutes(q(x).and_then(|q| q.value));
        let median = q(0.5);
        let median_text = median.map_or("–".into(), |m| {
            format!("{} ({}–{})", minutes(m.value), minutes(m.lo), minutes(m.hi))
        });
        if first_median.is_none() {
            first_median = median.map(|m| (r.name.clone(), m));
        }
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            t.games(),
            at(0.1),
            at(0.25),
            median_text,
            at(0.75),
            at(0.9),
            crate::format::pct(t.unended, t.games())
        );
        curves.push(duration_curve(&r.name, t));
    }
    md.push('\n');
    if let Some((name, m)) = first_median
        && let Some(v) = m.value
    {
        let _ = writeln!(
            md,
            "The median `{name}` game takes {} minutes (95 % CI {}–{}): about half of the games \
             take longer.\n",
            minutes(Some(v)),
            minutes(m.lo),
            minutes(m.hi)
        );
    }
    show(
        md,
        figs,
        "decides-minutes",
        Survival {
            title: format!("{}: P(a game takes longer than n minutes)", exp.name),
            unit: "minutes".into(),
            series: curves,
        },
        "The share of games that take longer than n minutes under the time model, log y-axis; \
         a curve levels off (dashed) at the share of games that never end.",
    )
}

/// `P(duration > m minutes)` at every whole minute `m` up to the longest game that ended.
fn duration_curve(name: &str, t: &TimeCounts) -> Curve {
    let n = t.games() as f64;
    let counts: Vec<(u64, u64)> = t.seconds.iter().collect();
    let last = counts.last().map_or(0, |&(s, _)| s.div_ceil(60));
    let mut steps = Vec::with_capacity(last as usize + 1);
    let (mut done, mut at) = (0u64, 0usize);
    for m in 0..=last {
        // Games of at most m minutes.
        while at < counts.len() && counts[at].0 <= 60 * m {
            done += counts[at].1;
            at += 1;
        }
        steps.push((m, 1.0 - done as f64 / n));
    }
    Curve {
        name: name.to_string(),
        steps,
        plateau: (t.unended > 0).then(|| t.unended as f64 / n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_bins_are_symmetric_and_cover_every_count() {
        for cards in [4, 8, 12, 20, 36, 52, 54, 104] {
            let bins = card_bins(cards, 2);
            assert_eq!(bins[0].0, 0);
            assert_eq!(bins.last().unwrap().1, cards);
            for w in bins.windows(2) {
                assert_eq!(w[0].1 + 1, w[1].0, "{cards}: {bins:?}");
            }
            for &(lo, hi) in &bins {
                assert!(
                    bins.contains(&(cards - hi, cards - lo)),
                    "{cards}: {bins:?}"
                );
            }
        }
        assert!(card_bins(52, 2).contains(&(24, 28)));
        // Three players: a bin centred on 17 of 51 cards, every count covered.
        let three = card_bins(51, 3);
        assert!(three.contains(&(16, 18)), "{three:?}");
        assert_eq!((three[0].0, three.last().unwrap().1), (0, 51));
    }

    #[test]
    fn deciles_keep_ties_together_and_split_evenly() {
        let by_sum: Vec<Outcomes> = (0..100)
            .map(|s| Outcomes {
                games: if s % 2 == 0 { 10 } else { 0 },
                wins: 5,
                ..Outcomes::default()
            })
            .collect();
        let d = deciles(&by_sum);
        assert_eq!(d.len(), 10);
        assert!(d.iter().all(|g| g.2.games == 50));
        assert_eq!((d[0].0, d[0].1), (0, 8));

        // A sum holding 40 % of the games spans four deciles; the sums after it start in
        // the decile it ends in and are grouped together, not one by one.
        let games = [10, 10, 40, 5, 5, 5, 5, 5, 5, 5, 5];
        let lumpy: Vec<Outcomes> = games
            .iter()
            .map(|&g| Outcomes {
                games: g,
                ..Outcomes::default()
            })
            .collect();
        let d = deciles(&lumpy);
        let sizes: Vec<u64> = d.iter().map(|g| g.2.games).collect();
        assert_eq!(sizes.iter().sum::<u64>(), 100);
        assert_eq!(sizes, [10, 10, 40, 10, 10, 10, 10]);
    }
}
