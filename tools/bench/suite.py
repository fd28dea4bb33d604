"""Runs a named benchmark suite (tools/bench/suites.json) into one results file.

Every binary is built with ./tools/bazel, run from the repository root with Google
Benchmark's JSON output, repetitions in random interleaving, and its entries merged under the
binary's name (results.py). MXNet's times of the suite's mxnet cases are added when the suite
lists them and MXNet can be installed; when it cannot, the results say why.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import mxnet_compare
import openblas_core
import results

SUITES = os.path.join(results.ROOT, "tools", "bench", "suites.json")


def load_suites(path=SUITES):
    with open(path) as f:
        suites = json.load(f)
    return {name: suite for name, suite in suites.items() if not name.startswith("_")}


def suite_named(name, path=SUITES):
    suites = load_suites(path)
    if name not in suites:
        raise SystemExit(f"bench: unknown suite '{name}'; valid: {', '.join(sorted(suites))}")
    return suites[name]


def binary_path(target):
    package, _, name = target.lstrip("/").partition(":")
    return os.path.join(results.ROOT, "bazel-bin", package, name)


def binary_name(target):
    """"op_bench" for //ops/bench:op_bench: the prefix of its benchmarks in a results file."""
    return target.partition(":")[2]


def exact_filter(names):
    """--benchmark_filter for exactly these benchmarks (UseRealTime's suffix allowed)."""
    escaped = "|".join("".join("\\" + c if c in r".^$*+?()[]{}|\\" else c for c in name)
                       for name in names)
    return f"--benchmark_filter=^({escaped})(/real_time)?$"


def build(targets):
    subprocess.run([os.path.join(results.ROOT, "tools", "bazel"), "build", *targets],
                   cwd=results.ROOT, check=True)


def run_binary(target, args, repetitions, min_time):
    """One binary's Google Benchmark JSON (its context and entries, names prefixed)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [binary_path(target), *args, f"--benchmark_out={out.name}",
                   "--benchmark_out_format=json", f"--benchmark_repetitions={repetitions}",
                   f"--benchmark_min_time={min_time}",
                   "--benchmark_enable_random_interleaving=true",
                   "--benchmark_display_aggregates_only=true"]
        print("bench: " + " ".join([command[0], *args]), file=sys.stderr, flush=True)
        subprocess.run(command, cwd=results.ROOT, check=True, stdout=sys.stderr)
        report = json.load(out)
    binary = binary_name(target)
    return binary, report.get("context", {}), results.prefixed(report["benchmarks"], binary)


def run_suite(name, repetitions=None, min_time=None, only=None):
    """The suite's results. `only`: run just these benchmark names (a retry)."""
    suite = suite_named(name)
    repetitions = repetitions or suite["repetitions"]
    min_time = min_time or suite["min_time"]
    targets = [run["target"] for run in suite["runs"] if "target" in run]
    build(targets)
    openblas_core.use_cpu_kernels()
    context = {"suite": name, "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               "repetitions": repetitions, "min_time": min_time,
               "machine": results.machine_description(), "binaries": {},
               "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", "")}
    benchmarks = []
    for run in suite["runs"]:
        if "target" in run:
            args = run.get("args", [])
            if only is not None:  # a retry: the named benchmarks alone
                wanted = retried_in_binary(only, binary_name(run["target"]))
                if not wanted:
                    continue
                args = [a for a in args if not a.startswith("--benchmark_filter")]
                args.append(exact_filter(wanted))
            binary, binary_context, entries = run_binary(run["target"], args, repetitions,
                                                         min_time)
            context["binaries"][binary] = binary_context
            benchmarks += entries
        elif "mxnet" in run:
            if only is not None and not any(n.startswith("mxnet:") for n in only):
                continue
            try:
                context["mxnet"], entries = run_paired_with_mxnet(run["mxnet"], repetitions,
                                                                  min_time)
            except (subprocess.CalledProcessError, OSError) as e:
                context["mxnet"] = {"error": f"MXNet could not run: {e}"}
                print(f"bench: MXNet could not run ({e}); its comparisons are left out",
                      file=sys.stderr)
                continue
            if only is not None:
                entries = [e for e in entries if e["name"] in only or
                           "mxnet:" + e["name"].partition(":")[2] in only]
            # These op_bench samples, paired with MXNet's, replace any of the op_bench run.
            benchmarks = results.replace({"context": {}, "benchmarks": benchmarks},
                                         {"benchmarks": entries})["benchmarks"]
    return {"context": context, "benchmarks": benchmarks}


def retried_in_binary(only, binary):
    """The names in `only` that `binary` measures, less the op_bench samples of an MXNet
    pair: the paired run measures those again."""
    return [name.partition(":")[2] for name in only if name.startswith(binary + ":")
            and "mxnet:" + name.partition(":")[2] not in only]


def run_paired_with_mxnet(suite_name, repetitions, min_time):
    """The suite's mxnet cases, timed by op_bench and by MXNet in alternating rounds of one
    repetition each (the order switching every round), so that a slow spell of a shared
    machine falls on both sides. Returns MXNet's context and both sides' entries."""
    keys = [c["key"] + "/float32" for c in mxnet_compare.read_cases(mxnet_compare.DEFAULT_CASES,
                                                                     suite_name)]
    project_filter = exact_filter(keys)
    python = mxnet_compare.ensure_venv(mxnet_compare.DEFAULT_VENV)
    context, entries = {}, []
    for index in range(repetitions):
        sides = ["project", "mxnet"] if index % 2 == 0 else ["mxnet", "project"]
        for side in sides:
            if side == "project":
                _, _, round_entries = run_binary("//ops/bench:op_bench",
                                                 ["--suite=mxnet", project_filter], 1, min_time)
            else:
                context, round_entries = mxnet_compare.mxnet_entries(suite_name, 1, min_time,
                                                                     python)
            for entry in round_entries:
                entry.update(repetitions=repetitions, repetition_index=index)
            entries += [e for e in round_entries if e.get("run_type") == "iteration"]
    return context, entries

