//! `warlab trace`: one game, battle by battle, as text or JSON lines.

use std::fmt::Write as _;
use std::io::Write;

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde::Serialize;
use warlab_engine::{Deal, EndReason, Engine, GameRecord, GameSeed, Observer, Rules, View};

use crate::options::{RuleArgs, input_error};

/// Collects one line per battle and writes it out as the game goes.
pub struct Tracer<'a, W: Write> {
    out: W,
    json: bool,
    rules: &'a Rules,
    /// The game's seed: printed first, so that the trace says which game it is.
    id: GameSeed,
    /// Battles to show: the record's count (a looping game is traced up to its first repeat).
    show: u64,
    battle: u64,
    up: Vec<(usize, u8, u32)>,
    down: Vec<(usize, usize, u32)>,
    prizes: Vec<(usize, u8)>,
    wars: Vec<(u32, u8, usize)>,
    dropped: Vec<(usize, bool)>,
    grabbed: bool,
    pub error: Option<std::io::Error>,
}

fn seat_list(mask: u8) -> String {
    (0..8)
        .filter(|p| mask & (1 << p) != 0)
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// One line of `trace --json` (War), its fields in this order; serde writes the JSON, so any
/// label or rule text is escaped.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WarLine<'a> {
    /// The game: its rules, the seed that replays it, and each seat's cards, top first.
    Deal {
        rules: String,
        seed: u64,
        variant: u64,
        game: u64,
        /// Each seat's hand and stack, top first, as card labels.
        stacks: &'a [String],
    },
    Battle {
        battle: u64,
        /// `[seat, card, war depth]` of every face-up card.
        up: Vec<(usize, &'a str, u32)>,
        /// `[seat, cards face down, war depth]`.
        down: &'a [(usize, usize, u32)],
        prizes: usize,
        wars: u32,
        /// `[seat, forfeit]` of every seat out of the game.
        dropped: &'a [(usize, bool)],
        grab: bool,
        winner: Option<usize>,
        pot: usize,
        cards: Vec<usize>,
    },
    End {
        end: String,
        winner: Option<u8>,
        battles: u64,
        wars: u64,
        deepest_war: u32,
        cards_turned: u64,
        lead_changes: u64,
        cycle: Option<CycleLine>,
    },
}

#[derive(Serialize)]
struct CycleLine {
    start: u64,
    period: u64,
}

/// The JSON of a line (serialising these plain types cannot fail).
fn json(line: &impl Serialize) -> String {
    serde_json::to_string(line).expect("plain data serialises")
}

impl<'a, W: Write> Tracer<'a, W> {
    pub fn new(out: W, json: bool, rules: &'a Rules, id: GameSeed, show: u64) -> Self {
        Tracer {
            out,
            json,
            rules,
            id,
            show,
            battle: 0,
            up: Vec::new(),
            down: Vec::new(),
            prizes: Vec::new(),
            wars: Vec::new(),
            dropped: Vec::new(),
            grabbed: false,
            error: None,
        }
    }

    fn label(&self, c: u8) -> &str {
        self.rules.cards().label(c)
    }

    fn emit(&mut self, line: &str) {
        if self.error.is_none()
            && let Err(e) = writeln!(self.out, "{line}")
        {
            self.error = Some(e);
        }
    }

    fn stacks_text(&self, v: &View<'_>) -> String {
        (0..v.players())
            .map(|p| v.cards(p).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn finish(&mut self, rec: &GameRecord) {
        let winner = rec.winner.map_or("none".to_string(), |w| w.to_string());
        if self.json {
            let line = json(&WarLine::End {
                end: rec.end.to_string(),
                winner: rec.winner,
                battles: rec.battles,
                wars: rec.wars,
                deepest_war: rec.deepest_war,
                cards_turned: rec.cards_turned,
                lead_changes: rec.lead_changes,
                cycle: rec.cycle.map(|c| CycleLine {
                    start: c.start,
                    period: c.period,
                }),
            });
            self.emit(&line);
        } else {
            let how = match rec.end {
                EndReason::AllCards => format!("seat {winner} holds every card"),
                EndReason::DrawInWar => "draw: every player in the war ran out at once".to_string(),
                EndReason::Cycle => "the game loops forever (exact cycle)".to_string(),
                EndReason::Capped => "stopped at the safety cap; no winner".to_string(),
                EndReason::Forfeit => format!("forfeit; seat {winner} wins"),
                other => format!("{other}; winner: {winner}"),
            };
            self.emit(&format!(
                "end: {} after {} battles: {how}\n     wars {}, deepest chain {}, cards turned {}, lead changes {}",
                rec.end, rec.battles, rec.wars, rec.deepest_war, rec.cards_turned, rec.lead_changes
            ));
            if let Some(c) = rec.cycle {
                self.emit(&format!(
                    "cycle: the state after battle {} recurs every {} battles",
                    c.start, c.period
                ));
            }
        }
        let _ = self.out.flush();
    }
}

impl<W: Write> Observer for Tracer<'_, W> {
    fn game_start(&mut self, v: &View<'_>) {
        let stacks: Vec<String> = (0..v.players())
            .map(|p| {
                let mut cards: Vec<u8> = v.hand(p).to_vec();
                cards.extend(v.stack(p));
                cards
                    .iter()
                    .map(|&c| self.label(c).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        if self.json {
            let line = json(&WarLine::Deal {
                rules: self.rules.to_string(),
                seed: self.id.seed,
                variant: self.id.variant,
                game: self.id.game,
                stacks: &stacks,
            });
            self.emit(&line);
        } else {
            self.emit(&format!("war: {}", self.rules));
            self.emit(&format!(
                "seed {} variant {} game {}",
                self.id.seed, self.id.variant, self.id.game
            ));
            for (p, s) in stacks.iter().enumerate() {
                self.emit(&format!("seat {p} ({} cards, top first): {s}", v.cards(p)));
            }
        }
    }

    fn battle_start(&mut self, battle: u64) {
        self.battle = battle;
        self.up.clear();
        self.down.clear();
        self.prizes.clear();
        self.wars.clear();
        self.dropped.clear();
        self.grabbed = false;
    }
    fn prize(&mut self, p: usize, c: u8) {
        self.prizes.push((p, c));
    }
    fn face_up(&mut self, p: usize, c: u8, d: u32) {
        self.up.push((p, c, d));
    }
    fn war(&mut self, d: u32, players: u8, down: usize) {
        self.wars.push((d, players, down));
    }
    fn face_down(&mut self, p: usize, n: usize, d: u32) {
        self.down.push((p, n, d));
    }
    fn drop_out(&mut self, p: usize, forfeit: bool) {
        self.dropped.push((p, forfeit));
    }
    fn grab(&mut self) {
        self.grabbed = true;
    }

    fn battle_end(&mut self, winner: Option<usize>, pot: usize, v: &View<'_>) {
        if self.battle > self.show {
            return;
        }
        let depth_max = self.wars.len() as u32;
        if self.json {
            let line = json(&WarLine::Battle {
                battle: self.battle,
                up: self
                    .up
                    .iter()
                    .map(|&(p, c, d)| (p, self.label(c), d))
                    .collect(),
                down: &self.down,
                prizes: self.prizes.len(),
                wars: depth_max,
                dropped: &self.dropped,
                grab: self.grabbed,
                winner,
                pot,
                cards: (0..v.players()).map(|p| v.cards(p)).collect(),
            });
            self.emit(&line);
            return;
        }
        let mut line = format!("battle {:>5}: ", self.battle);
        if !self.prizes.is_empty() {
            let _ = write!(line, "[{} prize] ", self.prizes.len());
        }
        let mut depth = 0;
        let mut first = true;
        for &(p, c, d) in &self.up.clone() {
            if d != depth {
                depth = d;
                if let Some(&(_, players, down)) = self.wars.get(d as usize - 1) {
                    let _ = write!(
                        line,
                        " | WAR {d} seats {} ({down} down): ",
                        seat_list(players)
                    );
                }
                first = true;
            }
            if !first {
                line.push_str(" vs ");
            }
            let _ = write!(line, "{}", self.label(c));
            if self.rules.players() > 2 {
                let _ = write!(line, "@{p}");
            }
            first = false;
        }
        if let Some(&(d, _, _)) = self.wars.last()
            && d > depth
        {
            let _ = write!(line, " | WAR {d}");
        }
        for &(p, forfeit) in &self.dropped {
            let _ = write!(
                line,
                " | seat {p} {}",
                if forfeit {
                    "forfeits"
                } else {
                    "is out of cards"
                }
            );
        }
        if self.grabbed {
            line.push_str(" | seat 0 grabs");
        }
        match winner {
            Some(w) => {
                let _ = write!(line, " -> seat {w} takes {pot}");
            }
            None => line.push_str(" -> drawn war, cards go back"),
        }
        let _ = write!(line, "   [cards {}]", self.stacks_text(v));
        self.emit(&line);
    }
}

/// Plays the game twice: quietly for its record, then observed up to the record's battle count
/// (a looping game's detection runs past the first repeat; the trace stops there).
pub fn trace(
    rules: &Rules,
    deal: Option<&Deal>,
    id: GameSeed,
    json: bool,
    out: impl Write,
) -> std::io::Result<GameRecord> {
    let mut engine = Engine::new(rules);
    let rec = match deal {
        Some(d) => engine.play_deal(d, id),
        None => engine.play(id),
    };
    let mut tracer = Tracer::new(out, json, rules, id, rec.battles);
    let again = match deal {
        Some(d) => engine.play_deal_observed(d, id, &mut tracer),
        None => engine.play_observed(id, &mut tracer),
    };
    debug_assert_eq!(again, rec);
    tracer.finish(&rec);
    match tracer.error.take() {
        Some(e) => Err(e),
        None => Ok(rec),
    }
}

/// A Casino War session, hand by hand: the cards, the war, what each bet paid, the bankroll.
pub fn casino<W: Write>(
    rules: &warlab_casino::CasinoRules,
    id: GameSeed,
    json: bool,
    mut out: W,
) -> std::io::Result<warlab_casino::SessionRecord> {
    const LABELS: [&str; 13] = [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    let label = |c: u8| LABELS[usize::from(c)];
    let chips = |half: i64| half as f64 / 2.0;
    let bet = rules.bet() as i64;
    let tie_bet = rules.tie_bet() as i64;
    /// The lines of `trace --json` (Casino War), their fields in this order.
    #[derive(Serialize)]
    struct Start {
        rules: String,
        seed: u64,
        variant: u64,
        game: u64,
        bankroll: u64,
    }
    #[derive(Serialize)]
    struct HandLine<'a> {
        hand: u64,
        shuffled: bool,
        player: &'a str,
        dealer: &'a str,
        war: Option<[&'a str; 2]>,
        result: &'a str,
        main: f64,
        tie_bet: f64,
        bankroll: f64,
    }
    #[derive(Serialize)]
    struct End<'a> {
        end: &'a str,
        hands: u64,
        bankroll: f64,
    }
    if json {
        let start = Start {
            rules: rules.to_string(),
            seed: id.seed,
            variant: id.variant,
            game: id.game,
            bankroll: rules.bankroll(),
        };
        writeln!(out, "{}", self::json(&start))?;
    } else {
        writeln!(out, "casino-war: {rules}")?;
        writeln!(
            out,
            "seed {} variant {} session {}: bankroll {}",
            id.seed,
            id.variant,
            id.game,
            rules.bankroll()
        )?;
    }
    let mut table = warlab_casino::Table::new(rules);
    let mut rng = warlab_engine::GameRng::new(id);
    let mut n = 0u64;
    let mut failed = None;
    let record = table.session_observed(&mut rng, |h, bank, shuffled| {
        if failed.is_some() {
            return;
        }
        n += 1;
        let main = chips(h.main * bet);
        let side = chips(h.tie_bet * tie_bet);
        let line = if json {
            self::json(&HandLine {
                hand: n,
                shuffled,
                player: label(h.shown[0]),
                dealer: label(h.shown[1]),
                war: h.war.map(|[p, d]| [label(p), label(d)]),
                result: h.result.name(),
                main,
                tie_bet: side,
                bankroll: chips(bank),
            })
        } else {
            let mut l = String::new();
            if shuffled {
                l.push_str("  -- shoe shuffled --\n");
            }
            let _ = write!(
                l,
                "hand {n}: {} vs {}",
                label(h.shown[0]),
                label(h.shown[1])
            );
            if let Some([p, d]) = h.war {
                let _ = write!(l, ", war: burn 3, {} vs {}", label(p), label(d));
            }
            let _ = write!(l, " → {} {main:+}", h.result.name());
            if tie_bet > 0 {
                let _ = write!(l, ", tie bet {side:+}");
            }
            let _ = write!(l, "  | bankroll {}", chips(bank));
            l
        };
        if let Err(e) = writeln!(out, "{line}") {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let end = record.end.map_or("", |e| e.name());
    if json {
        let last = End {
            end,
            hands: record.hands,
            bankroll: chips(record.final_bankroll),
        };
        writeln!(out, "{}", self::json(&last))?;
    } else {
        writeln!(
            out,
            "end: {end} after {} hands, bankroll {}",
            record.hands,
            chips(record.final_bankroll)
        )?;
    }
    Ok(record)
}

/// `warlab trace`'s arguments.
#[derive(Args)]
pub struct TraceArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Experiment seed of the game to replay [default: the experiment's, else 1]
    #[arg(long)]
    seed: Option<u64>,
    /// An experiment file: replay its variant's game (rules and seed from the file)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rule", "rules"])]
    experiment: Option<PathBuf>,
    /// The variant of the game: its name with --experiment, else its seed id (a number)
    #[arg(long, default_value = "0")]
    variant: String,
    /// Game index of the game to replay
    #[arg(long, default_value_t = 0)]
    game: u64,
    /// An explicit deal, each seat's stack top first, seats separated by `/`: "QS 8C AD / 9H 8D KC"
    #[arg(long, conflicts_with = "deck_order")]
    deal: Option<String>,
    /// A full deck order (top first), dealt one card at a time starting with seat 0
    #[arg(long)]
    deck_order: Option<String>,
    /// JSON lines instead of text
    #[arg(long)]
    json: bool,
}

/// `warlab trace`: one game of a rule set, of an experiment's variant, or of an explicit deal.
pub fn command(args: TraceArgs) -> Result<()> {
    let TraceArgs {
        rules,
        seed,
        experiment,
        variant,
        game,
        deal,
        deck_order,
        json,
    } = args;
    let (rules, seed, variant, fixed) = match experiment {
        Some(file) => {
            // The file is read once; its `game` decides which trace it gets.
            let exp = match crate::run::load_any(&file)? {
                warlab_experiment::AnyExperiment::Casino(exp) => {
                    let v = crate::run::variant(&exp, &file, &variant)?;
                    let id = GameSeed::new(seed.unwrap_or(exp.seed), v.seed_id, game);
                    return quiet_pipe(
                        casino(&v.rules, id, json, std::io::stdout().lock()).map(|_| ()),
                    );
                }
                warlab_experiment::AnyExperiment::War(exp) => exp,
            };
            let v = crate::run::variant(&exp, &file, &variant)?;
            (
                v.rules.clone(),
                seed.unwrap_or(exp.seed),
                v.seed_id,
                v.deal.clone(),
            )
        }
        None => {
            let id = variant.parse::<u64>().map_err(|_| {
                input_error(format!(
                    "--variant `{variant}`: without --experiment, give the variant's seed id (a number)"
                ))
            })?;
            (rules.build()?, seed.unwrap_or(1), id, None)
        }
    };
    let deal = match (deal, deck_order) {
        (Some(d), _) => {
            Some(Deal::parse(&rules, &d).map_err(|e| input_error(format!("--deal: {e}")))?)
        }
        (None, Some(d)) => Some(
            Deal::from_deck_order(&rules, &d)
                .map_err(|e| input_error(format!("--deck-order: {e}")))?,
        ),
        // A variant with a fixed deal plays it in every game.
        (None, None) => fixed,
    };
    let stdout = std::io::stdout().lock();
    quiet_pipe(
        trace(
            &rules,
            deal.as_ref(),
            GameSeed::new(seed, variant, game),
            json,
            stdout,
        )
        .map(|_| ()),
    )
}

/// A trace's output: a reader that stopped early (`warlab trace | head`) is fine.
fn quiet_pipe(written: std::io::Result<()>) -> Result<()> {
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
