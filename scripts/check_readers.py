#!/usr/bin/env python3
"""Reads a run's data folder as a user would, and checks its files against each other.

    python3 scripts/check_readers.py [DIR ...]          (default: data/classic)

Works for War and Casino War folders alike. The standard library alone reads the CSV and JSON
files (the manifest's hash of summary.csv, the variants in every file, the games counted,
variants.csv against the summary). With pandas and pyarrow (`pip install pandas pyarrow`) it
also reads every Parquet file, with DuckDB (`pip install duckdb`) it queries them too; a
missing package is skipped with a message naming it. crates/cli/tests/analysis.rs runs it on a
War and a Casino War run wherever `python3` is found. Exits 1 on the first disagreement, 0 when
every check that could run passed.
"""
import csv
import importlib.util
import json
import sys
from pathlib import Path

RUN_COLUMNS = ["experiment", "seed", "file_hash"]


def fnv1a(data: bytes) -> str:
    """FNV-1a 64 as warlab writes it (16 hex digits)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def check(ok, what):
    if not ok:
        sys.exit(f"FAIL: {what}")


def with_stdlib(d: Path, manifest: dict) -> list:
    """The checks that need no package. Returns the summary's rows (as text)."""
    casino = manifest.get("game", "war") == "casino-war"
    names = [v["name"] for v in manifest["variants"]]
    raw = (d / "summary.csv").read_bytes()
    check(fnv1a(raw) == manifest["summary_csv_fnv1a"], f"{d}/summary.csv is the file manifest.json vouches for")
    summary = list(csv.DictReader(raw.decode().splitlines()))
    check([r["variant"] for r in summary] == names, "summary.csv lists the manifest's variants")
    for r in summary:
        check(r["experiment"] == manifest["experiment"], "summary.csv: experiment")
        check(int(r["seed"]) == manifest["seed"], "summary.csv: seed")
        check(r["file_hash"] == manifest["file_hash"], "summary.csv: file_hash")
    aggregates = json.loads((d / "aggregates.json").read_text())
    check([v["variant"] for v in aggregates["variants"]] == names, "aggregates.json lists the manifest's variants")
    played = "sessions" if casino else "n"
    for r, a in zip(summary, aggregates["variants"]):
        counted = a["aggregate"]["sessions" if casino else "games"]
        check(int(r[played]) == counted, f"{r['variant']}: summary.csv `{played}` {r[played]}, aggregates.json {counted}")
    # variants.csv: the summary's first columns, row for row.
    with open(d / "variants.csv", newline="") as f:
        reader = csv.DictReader(f)
        header, variants = reader.fieldnames, list(reader)
    check(header[:4] == RUN_COLUMNS + ["variant"], "variants.csv starts with the run columns and variant")
    check(list(summary[0])[: len(header)] == header, "variants.csv's columns are the summary's first ones")
    for v, s in zip(variants, summary, strict=True):
        check(all(v[c] == s[c] for c in header), f"variants.csv agrees with summary.csv on {v['variant']}")
    print(f"ok: {d}: standard library: {len(summary)} variant(s); summary.csv, variants.csv, aggregates.json and manifest.json agree")
    return summary


def with_pandas(d: Path, manifest: dict, summary_csv: list) -> None:
    """The Parquet files, read by pandas through pyarrow with nullable dtypes."""
    import pandas as pd
    import pyarrow.parquet as pq

    casino = manifest.get("game", "war") == "casino-war"
    files = ["summary.parquet", "variants.parquet", "lengths.parquet"]
    if manifest["rows"]:
        files.append("games.parquet")
    for name in files:
        key = json.loads(pq.read_metadata(d / name).metadata[b"warlab.run"])
        check(key["seed"] == manifest["seed"] and key["experiment_hash"] == manifest["file_hash"], f"{name} carries the run key")
    # Without dtype_backend a nullable integer column (winner, an option left unset) reads as
    # float64 with NaN; "numpy_nullable" keeps it an integer with <NA>.
    read = lambda name: pd.read_parquet(d / name, dtype_backend="numpy_nullable")  # noqa: E731
    summary, variants, lengths = read("summary.parquet"), read("variants.parquet"), read("lengths.parquet")
    check(list(summary["variant"]) == [r["variant"] for r in summary_csv], "summary.parquet and summary.csv list the same variants")
    check(list(variants.columns) == list(summary.columns[: len(variants.columns)]), "variants.parquet: the summary's first columns")
    unit = "hands" if casino else "battles"
    n_col = "sessions" if casino else "n"
    for _, row in summary.iterrows():
        h = lengths[lengths["variant"] == row["variant"]]
        n = int(h["count"].sum())
        check(n == row[n_col], f"{row['variant']}: lengths.parquet counts {n}, the summary {row[n_col]}")
        if casino:
            mean = float((h[unit] * h["count"]).sum()) / n
            check(abs(mean - row["hands_mean"]) < 1e-9, f"{row['variant']}: mean hands")
        elif row["share_cycle"] == 0 and row["share_capped"] == 0:
            # lengths.parquet holds every game at its recorded length; where none looped or
            # was capped those are the ended games the summary's lengths are about.
            mean = float((h[unit] * h["count"]).sum()) / n
            check(n == row["ended_n"], (row["variant"], n, row["ended_n"]))
            check(abs(mean - row["ended_battles_mean"]) < 1e-9, (row["variant"], mean, row["ended_battles_mean"]))
    if manifest["rows"]:
        games = read("games.parquet")
        check(isinstance(games["end_reason"].dtype, pd.CategoricalDtype), f"end_reason is categorical ({games['end_reason'].dtype})")
        if not casino:
            check(str(games["winner"].dtype) == "UInt8", f"winner is a nullable integer ({games['winner'].dtype})")
        keys = RUN_COLUMNS + ["variant"]
        joined = games.merge(variants, on=keys, how="left", validate="many_to_one", indicator=True)
        check((joined["_merge"] == "both").all(), "every game joins its variant's rules")
        per_variant = games.groupby("variant", observed=True).size()
        for _, row in summary.iterrows():
            check(per_variant.get(row["variant"], 0) == row[n_col], f"{row['variant']}: games.parquet rows")
    print(f"ok: {d}: pandas/pyarrow: {len(files)} Parquet file(s) carry the run key and agree with the summary")


def with_duckdb(d: Path, manifest: dict) -> None:
    import duckdb

    n_col = "sessions" if manifest.get("game", "war") == "casino-war" else "n"
    rows = duckdb.sql(
        f"select s.variant, s.{n_col}, sum(l.count) from '{d}/summary.parquet' s "
        f"join '{d}/lengths.parquet' l using (variant) group by all"
    ).fetchall()
    check(len(rows) == len(manifest["variants"]), "DuckDB joins every variant")
    for variant, n, counted in rows:
        check(n == counted, f"DuckDB: {variant}: {n} against {counted}")
    print(f"ok: {d}: DuckDB: the summary and lengths.parquet agree")


def missing(*modules: str) -> list:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def main() -> None:
    dirs = [Path(a) for a in sys.argv[1:]] or [Path("data/classic")]
    for d in dirs:
        manifest_path = d / "manifest.json"
        check(manifest_path.is_file(), f"{d} is not a finished run (no manifest.json)")
        manifest = json.loads(manifest_path.read_text())
        summary = with_stdlib(d, manifest)
        if lacking := missing("pandas", "pyarrow"):
            print(f"skipped: {d}: the Parquet checks need {' and '.join(lacking)} (pip install pandas pyarrow)")
        else:
            with_pandas(d, manifest, summary)
        if missing("duckdb"):
            print(f"skipped: {d}: the DuckDB check needs duckdb (pip install duckdb)")
        else:
            with_duckdb(d, manifest)


if __name__ == "__main__":
    main()
