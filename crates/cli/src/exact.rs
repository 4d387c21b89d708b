//! `warlab exact`: a small deck solved exactly (warlab-exact), as a table or one JSON line.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use warlab_engine::{Deal, Rules};
use warlab_exact::{DEFAULT_MAX_STATES, ExactError, Method, Options, Solution, Start, solve};

use crate::options::{RuleArgs, input_error};

/// `warlab exact`'s arguments.
#[derive(Args)]
pub struct ExactArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Solve from this deal instead of every deal of the deck: each seat's stack top first,
    /// seats separated by `/` ("3 1 2 / 1 3 2" on a custom deck, "QS 8C / 9H 8D")
    #[arg(long)]
    deal: Option<String>,
    /// End with one JSON line instead of the table
    #[arg(long)]
    json: bool,
    /// Most states (positions) to keep; a larger state space is refused at once
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STATES)]
    max_states: usize,
    /// Rows of the length distribution to print
    #[arg(long, value_name = "N", default_value_t = 15)]
    head: usize,
}

/// `warlab exact`: solves the rules from every deal (or `--deal`) and prints the figures.
pub fn command(args: ExactArgs) -> Result<()> {
    let rules = args.rules.build()?;
    if args.max_states == 0 {
        return Err(input_error(
            "--max-states 0: give the most states to keep, e.g. --max-states 1000000",
        ));
    }
    let start = match &args.deal {
        Some(text) => {
            Start::Deal(Deal::parse(&rules, text).map_err(|e| input_error(format!("--deal: {e}")))?)
        }
        None => Start::AllDeals,
    };
    let options = Options {
        max_states: args.max_states,
        ..Options::default()
    };
    // Progress only for solves long enough to wonder about.
    let clock = Instant::now();
    let mut progress = |m: &str| {
        if clock.elapsed().as_secs_f64() >= 1.0 {
            eprintln!("exact: {m}");
        }
    };
    // Every refusal comes before or instead of a result: bad input for these rules (exit 2).
    let s = solve(&rules, &start, &options, &mut progress)
        .map_err(|e: ExactError| input_error(e.to_string()))?;
    if args.json {
        println!("{}", json(&rules, &args, &s));
    } else {
        print!("{}", table(&rules, &args, &s));
    }
    Ok(())
}

/// What was solved, in words.
fn what(rules: &Rules, args: &ExactArgs) -> String {
    let rules_text = if args.rules.rule.is_empty() {
        "classic rules".to_string()
    } else {
        args.rules.rule.join(" ")
    };
    let from = match &args.deal {
        Some(d) => format!("from the deal {d}"),
        None => format!("from every deal of {} cards", rules.cards().total()),
    };
    format!("{rules_text}, {from}")
}

fn method(s: &Solution) -> String {
    match s.method {
        Method::Exact => {
            "exact (every deal followed to its end or loop; fractions of deal counts)".to_string()
        }
        Method::Iterated => format!(
            "iterated (distribution pushed forward battle by battle): residual {:.1e}, mean within {:.1e}",
            s.residual, s.mean_residual
        ),
    }
}

fn table(rules: &Rules, args: &ExactArgs, s: &Solution) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let exact = |i: Option<String>| i.map(|f| format!("  (= {f})")).unwrap_or_default();
    let _ = writeln!(out, "exact solution: {}", what(rules, args));
    let _ = writeln!(out, "  deals          {}", s.deals);
    let _ = writeln!(out, "  states         {}", s.states);
    let _ = writeln!(
        out,
        "  mean battles   {:.6}{}   (games that end)",
        s.battles_mean,
        exact(s.battles_mean_exact.map(|f| f.to_string()))
    );
    for (p, w) in s.win_share.iter().enumerate() {
        let f = s.win_share_exact.as_ref().map(|v| v[p].to_string());
        let _ = writeln!(out, "  P(seat {p} wins) {w:.6}{}", exact(f));
    }
    let other = s.other_exact.map(|o| o.map(|f| f.to_string()));
    let _ = writeln!(
        out,
        "  P(draw)        {:.6}{}",
        s.draw_share,
        exact(other.as_ref().map(|o| o[0].clone()))
    );
    let never = if rules.is_deterministic() {
        "P(loop)       "
    } else {
        "P(never ends) "
    };
    let _ = writeln!(
        out,
        "  {never} {:.6}{}",
        s.loop_share,
        exact(other.as_ref().map(|o| o[1].clone()))
    );
    if s.capped_share > 0.0 {
        let _ = writeln!(
            out,
            "  P(capped)      {:.6}{}",
            s.capped_share,
            exact(other.as_ref().map(|o| o[2].clone()))
        );
    }
    let _ = writeln!(out, "  seconds        {:.3}", s.seconds);
    let _ = writeln!(out, "  method         {}", method(s));
    let _ = writeln!(out, "\n  length  P(length = n)");
    let shown = s
        .lengths
        .iter()
        .enumerate()
        .filter(|(_, p)| **p > 0.0)
        .take(args.head);
    for (n, p) in shown {
        let _ = writeln!(out, "  {n:>6}  {p:.9}");
    }
    if !s.loops.is_empty() {
        let _ = writeln!(out, "\n  loop start  period  P");
        for (l, p) in s.loops.iter().take(args.head) {
            let _ = writeln!(out, "  {:>10}  {:>6}  {p:.9}", l.start, l.period);
        }
        if s.loops.len() > args.head {
            let _ = writeln!(out, "  … {} loop shapes in all", s.loops.len());
        }
    }
    out
}

fn json(rules: &Rules, args: &ExactArgs, s: &Solution) -> serde_json::Value {
    let mut v = serde_json::json!({
        "what": what(rules, args),
        "battles_mean": s.battles_mean,
        "battles_mean_exact": s.battles_mean_exact.map(|f| f.to_string()),
        "win_shares": s.win_share,
        "draw_share": s.draw_share,
        "loop_share": s.loop_share,
        "capped_share": s.capped_share,
        "states": s.states,
        "deals": s.deals.to_string(),
        "seconds": s.seconds,
        "method": s.method.name(),
        "residual": s.residual,
        "mean_residual": s.mean_residual,
        "lengths": s.lengths,
        "loops": s.loops.iter().map(|(l, p)| serde_json::json!({
            "start": l.start, "period": l.period, "share": p
        })).collect::<Vec<_>>(),
        "endings": s.endings.iter().map(|(e, p)| serde_json::json!({
            "reason": e.reason.name(), "winner": e.winner, "share": p
        })).collect::<Vec<_>>(),
    });
    for (p, w) in s.win_share.iter().enumerate() {
        v[format!("win_share_{p}")] = serde_json::json!(w);
    }
    if let Some(f) = &s.win_share_exact {
        v["win_shares_exact"] =
            serde_json::json!(f.iter().map(|f| f.to_string()).collect::<Vec<_>>());
    }
    if let Some(o) = s.other_exact {
        v["draw_share_exact"] = serde_json::json!(o[0].to_string());
        v["loop_share_exact"] = serde_json::json!(o[1].to_string());
        v["capped_share_exact"] = serde_json::json!(o[2].to_string());
    }
    v
}
