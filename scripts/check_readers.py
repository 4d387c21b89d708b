#!/usr/bin/env python3
"""Reads a run's data with pandas/pyarrow and DuckDB and checks it against itself.

Optional (not part of CI, which needs no Python): `pip install pandas pyarrow duckdb`, then
`python3 scripts/check_readers.py data/classic`.
"""
import sys

import duckdb
import pandas as pd

d = sys.argv[1] if len(sys.argv) > 1 else "data/classic"
summary = pd.read_parquet(f"{d}/summary.parquet")
lengths = pd.read_parquet(f"{d}/lengths.parquet")
csv = pd.read_csv(f"{d}/summary.csv")
assert list(csv["variant"]) == list(summary["variant"]), "CSV and Parquet list the same variants"
for _, row in summary.iterrows():
    h = lengths[lengths["variant"] == row["variant"]]
    n = int(h["count"].sum())
    assert n == row["n"], (row["variant"], n, row["n"])
    # lengths.parquet holds every game at its recorded length; where none looped or was capped
    # those are the ended games the summary's lengths are about.
    if row["share_cycle"] == 0 and row["share_capped"] == 0:
        mean = float((h["battles"] * h["count"]).sum()) / n
        assert n == row["ended_n"], (row["variant"], n, row["ended_n"])
        assert abs(mean - row["ended_battles_mean"]) < 1e-9, (row["variant"], mean, row["ended_battles_mean"])
    via_duckdb = duckdb.sql(
        f"select sum(count) from '{d}/lengths.parquet' where variant = $v", params={"v": row["variant"]}
    ).fetchall()[0][0]
    assert via_duckdb == n
print(f"ok: {d}: {len(summary)} variant(s) read by pandas/pyarrow and DuckDB agree with the summary")
