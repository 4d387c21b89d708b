# Recipes for developers (`cargo install just --locked`); the README's commands never need just.

# Run every test, as CI does.
test:
    cargo test --workspace

# Format and lint everything (CI checks the same, `.ci/run`).
lint:
    cargo fmt --all
    cargo clippy --workspace --all-targets -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

# Engine throughput: classic rules (pass e.g. `--rule pickup=seat`).
bench *ARGS:
    cargo run --release -- bench {{ARGS}}

# The figures recorded in BENCHMARKS.md.
bench-all:
    cargo run --release -- bench
    cargo run --release -- bench --portable
    cargo run --release -- bench --rule pickup=seat
    cargo run --release -- bench --rule players=4
    cargo run --release -- bench --rule hand=3

# Criterion benchmark of the engine.
criterion:
    cargo bench -p warlab-engine

# One game, battle by battle.
trace *ARGS:
    cargo run --release -- trace {{ARGS}}

# Run every bundled experiment (data/<name>/).
experiments:
    for f in experiments/*.toml; do cargo run --release -- run "$f"; done

# The published results beside warlab's (reports/literature/report.md).
literature:
    cargo run --release -- run experiments/literature.toml

# Casino War: house edge exact and simulated, bankroll durations (reports/casino-war/report.md).
casino:
    cargo run --release -- run experiments/casino-war.toml

# Check that pandas/pyarrow and DuckDB read a run (needs `pip install pandas pyarrow duckdb`).
check-readers DIR="data/classic":
    python3 scripts/check_readers.py {{DIR}}

# The real Slurm test: one-node cluster on loopback, 4-shard array + merge job (needs root, apt).
slurm-test:
    scripts/slurm-test.sh
