//! Solves one rule set from every deal and prints the figures and the time:
//! `cargo run --release -p warlab-exact --example solve -- deck=custom ranks=4 suits=2`
//! (`MAX_STATES=N` raises the state limit)

use warlab_engine::Rules;
use warlab_exact::{Options, Start, solve};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs = args.iter().map(|a| a.split_once('=').expect("NAME=VALUE"));
    let rules = Rules::from_pairs(pairs).expect("valid rules");
    let mut options = Options::default();
    if let Ok(n) = std::env::var("MAX_STATES") {
        options.max_states = n.parse().expect("MAX_STATES: a number");
    }
    let s = solve(&rules, &Start::AllDeals, &options, &mut |m| {
        eprintln!("{m}")
    })
    .expect("solved");
    println!(
        "{} states, {:.3} s, mean {:.6}, win {:?}, draw {:.6}, loop {:.6}, {} residual {:.1e}",
        s.states,
        s.seconds,
        s.battles_mean,
        s.win_share,
        s.draw_share,
        s.loop_share,
        s.method.name(),
        s.residual
    );
}
