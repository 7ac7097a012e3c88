"""The measurement scripts (scripts/, docs/performance.md) run at their smallest useful size
and print what their docstrings promise: each JSON line with the keys it documents, each
table with its columns, the same decisions where a script runs two builds or engines of one
thing; and each takes every --flag that the docs' commands and its docstring give it. A
library change that breaks a script's call (a renamed method, option or function)
fails here. Each runs in a fresh process on this checkout, as a user runs it; OpenMP waits
passively, so that a second thread on a busy machine does not spin for seconds.

scripts/device_scaling.sh builds every kernel variant twice for a many-core machine: only
its syntax and its --help are checked here. compare_builds.py, bench_hdrf.py --old and
profile_flat_tree.py --old take this checkout as the old build too (old = new: the same
bits, the same schedules). Not run: bench_drfh_sim.py --million (a million tasks) and
stream_rows.py --checkout (another checkout; its default, this one, is run).
"""
import importlib
import json
import os
import re
import subprocess
import sys

import pytest

import drfbench
from conftest import ROOT

SCRIPTS = ROOT / "scripts"
ENV = {**os.environ, "OMP_WAIT_POLICY": "passive",
       "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
TESTED_ELSEWHERE = {"screenshots.py", "regenerate_reference.py"}
RUN_HERE = {"bench_drfh_exact.py", "bench_drfh_sim.py", "bench_drfq.py", "bench_hdrf.py",
            "bench_packer.py", "bench_production.py", "bench_sim.py", "bench_workloads.py",
            "compare_builds.py", "month_trace.py", "profile_edrf_event.py",
            "profile_flat_tree.py", "rename_columns.py", "stream_rows.py"}


def script(name, *args, status=0, stream="stdout"):
    """The script's `stream` (stdout, or stderr where it exits with an error), run with
    `args`; its exit status must be `status`."""
    done = subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == status, \
        f"{name} {args}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return getattr(done, stream if status == 0 else "stderr")


def json_lines(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_every_script_is_run_here_or_by_its_own_test():
    python = {p.name for p in SCRIPTS.glob("*.py")}
    assert python - TESTED_ELSEWHERE == RUN_HERE


def documented_flags():
    """{(script, flag): where} of each --flag in a command of a script in the docs (a code
    span, lines included) or in a script's docstring (its line)."""
    found = {}
    pages = [ROOT / "README.md", ROOT / "REPRODUCTION.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        for span in re.findall(r"`[^`]*`", page.read_text()):
            for name, command in re.findall(r"scripts/(\w+\.py)([^`]*)", span):
                for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command):
                    found.setdefault((name, flag), str(page.relative_to(ROOT)))
    for name in RUN_HERE:
        for command in re.findall(rf"scripts/{name}(.*)", (SCRIPTS / name).read_text()):
            for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command.split("#")[0]):
                found.setdefault((name, flag), f"scripts/{name}")
    return found


DOCUMENTED = documented_flags()


def test_the_docs_commands_are_read():
    assert DOCUMENTED[("bench_packer.py", "--apps")] == "docs/performance.md"
    assert DOCUMENTED[("bench_sim.py", "--workload")] == "scripts/bench_sim.py"


@pytest.mark.parametrize("name", sorted(RUN_HERE))
def test_help_and_the_documented_flags(name):
    """Every script imports what it uses (a renamed module fails here), says its usage, and
    takes every --flag the docs or its docstring give its command."""
    out = script(name, "--help")
    assert out.startswith("usage:") or name == "profile_edrf_event.py" and "phases" in out
    missing = {flag: where for (script_name, flag), where in DOCUMENTED.items()
               if script_name == name and not re.search(rf"(?<![\w-]){flag}(?![\w-])", out)}
    assert not missing


def test_device_scaling_syntax_help_and_no_arguments():
    path = SCRIPTS / "device_scaling.sh"
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    done = subprocess.run(["bash", str(path), "--help"], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "OUT"})
    assert done.returncode == 0 and "OUT=/some/folder scripts/device_scaling.sh" in done.stdout
    assert "set -euo" not in done.stdout                  # the comment only, not the code
    done = subprocess.run(["bash", str(path), "now"], capture_output=True, text=True)
    assert done.returncode == 2 and "(now)" in done.stderr


def test_bench_packer():
    line, = json_lines(script("bench_packer.py", "--apps", 60, "--repeats", 1))
    methods = drfbench.methods(takes="applications")
    assert set(line) == {"date", "cpu", "apps", "rate", "threads", "servers", "scoring", *methods}
    assert line["apps"] == 60 and line["servers"] == 1200
    for method in methods:
        timing = line[method]
        assert set(timing) == {"median_ms", "p90_ms", "mean_ms", "run_s", "accepted_tasks",
                               "submitted_tasks"}
        assert 0 < timing["accepted_tasks"] <= timing["submitted_tasks"]
        assert timing["submitted_tasks"] == line["packer"]["submitted_tasks"]
    assert set(line["scoring"]) == {"node_dependencies", "duration", "kernel_ms", "literal_ms",
                                    "speedup"}
    assert line["scoring"]["node_dependencies"] > 0


@pytest.mark.slow
def test_bench_drfh_exact_agrees_with_the_lp():
    head, row = json_lines(script("bench_drfh_exact.py", "--sizes", "10x12", "--repeats", 1,
                                  "--lp-repeats", 1, "--lp-timeout", 120, "--finite"))
    assert set(head) == {"date", "cpu", "finite"} and head["finite"] is True
    assert set(row) == {"users", "servers", "aggregate", "lp", "max_rel_diff_tasks", "speedup"}
    assert (row["users"], row["servers"]) == (10, 12)
    for solver in ("aggregate", "lp"):
        assert set(row[solver]) == {"median_s", "runs", "lps"} and row[solver]["runs"] == 1
    assert row["max_rel_diff_tasks"] < 1e-6
    refused = script("bench_drfh_exact.py", "--sizes", "10by12", status=2)
    assert "argument --sizes: '10by12': expected USERSxSERVERS" in refused


def test_bench_drfq():
    line, = json_lines(script("bench_drfq.py", "--flows", 2, 10, "--methods", "drfq", "fifo",
                              "--packets", 1000, "--literal-packets", 100, "--repeats", 1))
    assert set(line) == {"date", "cpu", "isa", "resources", "repeats", "runs"}
    assert [(r["flows"], r["method"]) for r in line["runs"]] == \
        [(2, "drfq"), (2, "fifo"), (10, "drfq"), (10, "fifo")]
    for run in line["runs"]:
        assert set(run) == {"flows", "method", "packets", "kernel_packets_per_s",
                            "literal_packets", "literal_packets_per_s", "speedup"}
        assert run["packets"] > 0 and run["literal_packets"] > 0


HDRF_RATES = {"fill_window_incremental", "fill_all_incremental", "fill_launches",
              "fill_window_recompute", "churn_incremental", "churn_incremental_launches",
              "open_sets_built", "open_sets_reused", "open_sets_kept", "open_sets_max",
              "open_set_bytes", "open_sets_memory_mib", "churn_recompute",
              "churn_recompute_launches"}
SMALL_TREE = ("--fanout", 3, "--machines", 10, "--steps", 50, "--window", 20, "--repeats", 1)


def test_bench_hdrf_and_old_equals_new():
    line, = json_lines(script("bench_hdrf.py", *SMALL_TREE))
    head = {"date", "cpu", "variant", "load", "leaves", "nodes", "machines", "window", "steps",
            "repeats", "median", "runs"}
    assert set(line) == head | {"speedup_fill", "speedup_churn"}
    assert line["leaves"] == 3 ** 4 and set(line["median"]) == HDRF_RATES
    both, = json_lines(script("bench_hdrf.py", *SMALL_TREE, "--old", ROOT / "drfbench"))
    assert set(both) == head | {"ratio_new_over_old"}
    old, new = both["runs"]["old"][0], both["runs"]["new"][0]
    assert set(old) == set(new) == HDRF_RATES
    assert old["fill_launches"] == new["fill_launches"] == line["median"]["fill_launches"]
    assert old["open_sets_built"] == new["open_sets_built"]


def test_bench_production():
    lines = json_lines(script("bench_production.py", "--jobs", 50, "--nodes", 20))
    assert [l["method"] for l in lines] == \
        [*drfbench.methods(takes="scenario"), "hdrf (simulator)"]
    for line in lines:
        assert set(line) == {"method", "jobs", "nodes", "tasks", "seconds", "makespan", "cpu",
                             "date"}
        assert line["tasks"] == lines[0]["tasks"] > 50 and line["makespan"] > 0
    refused = script("bench_production.py", "--jobs", 50, "--nodes", 8, status=2)
    assert "--nodes 8: the top queues' guarantees of 'cpu' sum to" in refused


def test_bench_sim_kernel_and_literal_agree():
    args = ("--tasks", 300, "--machines", 20, "--users", 5, "--horizon", 600, "--repeats", 1)
    kernel = json_lines(script("bench_sim.py", *args))
    literal = json_lines(script("bench_sim.py", *args, "--engine", "literal"))
    assert [l["workload"] for l in kernel] == ["trace", "backlog"]
    for k, l in zip(kernel, literal):
        assert set(k) == {"workload", "engine", "events", "seconds_median", "events_per_second",
                          "simulator_seconds_median", "simulator_events_per_second", "runs",
                          "tasks", "machines", "users", "samples", "simulated_seconds",
                          "cpu_model", "date"}
        assert (k["engine"], l["engine"]) == ("kernel", "literal")
        same = ("events", "tasks", "samples", "simulated_seconds")
        assert [k[f] for f in same] == [l[f] for f in same]
    assert kernel[0]["events"] == 3 * 300                # each task arrives, launches, ends
    profile = script("bench_sim.py", *args, "--workload", "backlog", "--profile", "--top", 3,
                     stream="stderr")                   # stdout: its JSON lines only
    assert "--- backlog:" in profile and "Ordered by: internal time" in profile


def test_bench_workloads_fresh_process_and_in_process():
    args = ("--tenants", 1000, "--resources", 100, "--threads", 1)
    outs = [script("bench_workloads.py", *args, "--repeats", 1),
            script("bench_workloads.py", *args, "--repeats", 2, "--in-process")]
    nnz = set()
    for out, mode, runs in zip(outs, ("fresh-process", "in-process"), (1, 2)):
        head, times, rss = out.splitlines()
        fields = dict(f.split("=", 1) for f in head.split(" ") if "=" in f)
        assert fields["demand_profile"] == "G0" and fields["mode"] == mode
        assert (fields["tenants"], fields["resources"], fields["threads"]) == ("1000", "100", "1")
        nnz.add(int(fields["nnz"]))
        assert re.fullmatch(rf"time_s median=[\d.]+ runs=[\d.]+(,[\d.]+){{{runs - 1}}}", times)
        assert re.fullmatch(r"peak_rss_mib max=[\d.]+", rss)
    assert len(nnz) == 1                                  # the same seeded workload


def test_compare_builds_old_equals_new(tmp_path):
    rows = tmp_path / "rows.csv"
    out = script("compare_builds.py", ROOT / "drfbench", "--quick", "--repeats", 1,
                 "--threads", 1, "--kernels", "edrf-event,dcdrf:1e-3", "--bincount",
                 "--csv", rows)
    table = [l for l in out.splitlines() if l.startswith(("edrf-event", "dcdrf"))]
    assert [l.split()[0] for l in table] == ["edrf-event", "dcdrf"]
    assert all(l.endswith("yes") for l in table)          # the same build: the same bits
    assert out.count("np.bincount median") == 2
    header, *body = rows.read_text().splitlines()
    assert header.split(",")[:3] == ["build", "kernel", "epsilon"]
    assert header.endswith("seconds,same_bits") and len(body) == 2 * (2 + 1)   # old, new, bincount


def test_month_trace_and_its_files(tmp_path):
    out = script("month_trace.py", "--tasks", 300, "--servers", 10, "--days", 1)
    assert re.match(r"300 tasks over 1 days on 10 servers, 200 users: [\d.]+ s wall, "
                    r"[\d.]+ s CPU, peak RSS [\d,]+ MiB; 900 events, 300 tasks done, end ", out)
    folder = tmp_path / "new" / "trace"
    script("month_trace.py", "--tasks", 100, "--servers", 5, "--files", folder)
    from drfbench.drfh.trace import read_inputs
    servers, tasks = read_inputs(folder / "servers.csv", folder / "tasks.csv")
    assert (len(servers), len(tasks)) == (5, 100)


PHASES_HEAD = re.compile(r"G0 1000 x 100, nnz \d+, 1 thread\(s\), variant \w+")


def test_profile_edrf_event_phases_paper_compare():
    phases = script("profile_edrf_event.py", "phases", 1000, 100, 1, 2).splitlines()
    assert PHASES_HEAD.fullmatch(phases[0])
    assert phases[1].split() == ["transposition", "sums", "heaps", "events", "allocation",
                                 "total", "rounds", "bincount"]
    assert phases[4].endswith("(medians)") and len(phases[2].split()) == 8
    paper = script("profile_edrf_event.py", "paper", "G1", 1, 1000, 100)
    assert paper.startswith("G1 1000 x 100, nnz ") and "median elapsed" in paper
    assert "peak RSS of the process" in paper
    compare = script("profile_edrf_event.py", "compare", 1000, 100, 1)
    differences = re.search(r"from edrf \(float64\): float64 (\S+), float32 (\S+)", compare)
    assert float(differences[1]) < 1e-9 and float(differences[2]) < 1e-5
    assert script("profile_edrf_event.py", "nothing", status=1).startswith("Measure edrf-event")


@pytest.mark.slow
def test_profile_edrf_event_profiles():
    from drfbench.dcdrf.workloads import DEMAND_PROFILES
    out = script("profile_edrf_event.py", "profiles", 1, 1000, 100)
    assert re.findall(r"^(\w+) 1000 x 100, nnz", out, re.M) == list(DEMAND_PROFILES)


def test_profile_flat_tree_and_old_equals_new():
    methods = ("hdrf", "capacity")
    args = ("--leaves", 20, "--repeats", 1, "--methods", *methods)
    lines = json_lines(script("profile_flat_tree.py", *args))
    assert [(l["shape"], l["method"]) for l in lines] == \
        [(s, m) for s in ("flat", "two-level") for m in methods]
    for line in lines:
        assert set(line) == {"date", "cpu", "variant", "load", "shape", "leaves", "machines",
                             "method", "tree_build_s", "new"}
        assert set(line["new"]) == {"median_s", "runs_s", "decisions"}
    both = json_lines(script("profile_flat_tree.py", *args, "--old", ROOT / "drfbench"))
    for line, alone in zip(both, lines):               # the script asserts the same schedules
        assert line["old"]["decisions"] == line["new"]["decisions"] == alone["new"]["decisions"]


def test_rename_columns(tmp_path):
    path = tmp_path / "a.csv"
    body = "packer,1.50,\"x, y\"\r\ntetris,2,z\r\n"
    path.write_bytes(b"policy,value,note\r\n" + body.encode())
    said = script("rename_columns.py", "--rename", "policy=method", path, stream="stderr")
    assert said == f"renamed {path}\n"
    assert path.read_bytes() == b"method,value,note\r\n" + body.encode()   # the rest, byte for byte
    refused = script("rename_columns.py", "--rename", "value=method", path, status=1)
    assert f"{path}: already has column 'method'" in refused


@pytest.mark.slow
def test_stream_rows(tmp_path):
    out = script("stream_rows.py", "--days", 1, "--out", "rows.csv.gz")
    ran, measured = out.strip().splitlines()[-2:]
    rows = int(re.search(r"ran drfh-best-fit in [\d.]+ s, wrote (\d+) rows", ran)[1])
    assert rows > 0
    assert re.fullmatch(rf"{re.escape(str(ROOT))}: 1 days, [\d.]+ MB rows\.csv\.gz, wall [\d.]+ s, "
                        r"CPU [\d.]+ s, peak RSS \d+ MiB", measured)


@pytest.mark.slow
def test_bench_drfh_sim():
    out = script("bench_drfh_sim.py", "--servers", 20, 40, "--repeats", 1, "--cycles", 100,
                 "--scan-cycles", 10)
    head, *rows = out.strip().splitlines()
    assert [c.strip() for c in head.split("|")] == [
        "servers", "index placements/s", "scan placements/s (1 thread)", "scan (2 threads)",
        "index / best scan"]
    assert [r.split(" | ")[0] for r in rows] == ["20", "40"]
    assert all(re.fullmatch(r"\d+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| \d+x", r) for r in rows)


@pytest.mark.parametrize("name", sorted(RUN_HERE))
def test_what_a_script_cites_exists(name):
    """Each drfbench/... file and drfbench.x.y name in a script (its docstring included)
    exists: a renamed module, function or kernel source fails here."""
    text = (SCRIPTS / name).read_text()
    missing = [path for path in re.findall(r"drfbench/[\w/]+\.\w+", text)
               if not (ROOT / path).exists()]
    for dotted in set(re.findall(r"(?<![\w/])drfbench(?:\.\w+)+", text)):
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):          # the longest module, then its attributes
            try:
                value = importlib.import_module(".".join(parts[:i]))
                break
            except ModuleNotFoundError:
                continue
        for attribute in parts[i:]:
            if not hasattr(value, attribute):
                missing.append(dotted)
                break
            value = getattr(value, attribute)
    assert not missing
