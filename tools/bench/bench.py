"""The benchmark command line (run it as tools/bench/bench, which sets up its Python).

    tools/bench/bench run --suite smoke|full [--out FILE]    run a suite into a results file
    tools/bench/bench compare BASE NEW                         changes, with significance
    tools/bench/bench gate RESULTS                             the speed goals (gates.txt)
    tools/bench/bench plot RESULTS [--history DIR]            PNGs: ratios, MXNet, history
    tools/bench/bench report RESULTS [--base FILE]            a markdown report with plots
    tools/bench/bench baseline --suite smoke                  record this machine's baseline
    tools/bench/bench ci [--suite smoke]                      all of it, as CI runs it

`ci` runs the suite, compares it with the committed baseline of this machine kind
(tools/bench/baselines/), applies the gates, reruns whatever failed once with twice the
repetitions, writes the report and plots under bench-out/, stores the results for the
history plot (~/.cache/mshadow_ops/bench-history), and exits 1 when a significant
regression or a missed gate remains.
"""
import argparse
import glob
import os
import sys
import time

import compare
import gate
import plot
import results
import suite

BENCH_DIR = os.path.join(results.ROOT, "tools", "bench")
GATES = os.path.join(BENCH_DIR, "gates.txt")
BASELINES = os.path.join(BENCH_DIR, "baselines")
OUT = os.path.join(results.ROOT, "bench-out")
HISTORY = os.path.join(os.path.expanduser("~"), ".cache", "mshadow_ops", "bench-history")
BASELINE_FIELDS = ("name", "run_name", "run_type", "repetitions", "repetition_index",
                   "iterations", "real_time", "cpu_time", "time_unit")


def baseline_path(machine, suite_name):
    return os.path.join(BASELINES, f"{results.machine_kind(machine)}.{suite_name}.json")


def gates_for(suite_name, path=GATES):
    """The gates a suite must measure: those of the suite, and for full all of them."""
    return [g for g in gate.load_gates(path) if suite_name == "full" or g["suite"] == suite_name]


def suite_of(measured):
    return measured["context"].get("suite", "full")


def mxnet_rows(measured):
    """The project against MXNet on every case both measured, as gate rows (goal 1)."""
    pairs = [{"project": "op_bench:" + name.partition(":")[2], "baseline": name, "goal": 1.0,
              "mode": "", "suite": ""}
             for name in results.names(measured) if name.startswith("mxnet:")]
    return gate.evaluate(pairs, measured)


def compact(measured):
    """The results without aggregates and per-run detail: what a baseline file keeps."""
    kept = [{k: e[k] for k in BASELINE_FIELDS if k in e} for e in measured["benchmarks"]
            if e.get("run_type", "iteration") == "iteration" and not e.get("error_occurred")]
    return {"context": measured["context"], "benchmarks": kept}


def check(measured, base, gates, threshold=compare.DEFAULT_THRESHOLD):
    rows = compare.compare(base, measured, threshold=threshold) if base else []
    gate_rows = gate.evaluate(gates, measured)
    return rows, gate_rows


def suspects(rows, gate_rows):
    names = [row["name"] for row in compare.regressions(rows)]
    for row in gate.failing(gate_rows):
        names += [row["project"], row["baseline"]]
    return sorted(set(names))


def write_report(path, measured, rows, gate_rows, images, base_label):
    machine = measured["context"]["machine"]
    lines = [f"# Benchmark report: suite `{measured['context']['suite']}`", "",
             f"Commit `{machine['commit']}`, {measured['context']['date']}; "
             f"{machine['cpu_model']}, {machine['logical_cpus']} logical CPUs "
             f"({', '.join(machine['simd'])}); threads: OMP {machine['omp_num_threads']}, "
             f"OpenBLAS {machine['openblas_num_threads']}; GPU: "
             f"{', '.join(machine['gpu']) or 'none'} ({machine['cuda_backend']}). "
             f"Medians of {measured['context']['repetitions']} repetitions.", ""]
    errors = results.errors(measured)
    if errors:
        lines += ["## Benchmarks that failed", ""] + \
                 [f"- `{name}`: {message}" for name, message in errors.items()] + [""]
    lines += ["## Gates (tools/bench/gates.txt)", "", gate.markdown(gate_rows), ""]
    mx = mxnet_rows(measured)
    if mx:
        mx_context = measured["context"].get("mxnet", {})
        lines += ["## Against MXNet", "",
                  f"MXNet {mx_context.get('mxnet')} (oneDNN {mx_context.get('onednn')}), "
                  f"{mx_context.get('engine')}, per-call overhead subtracted (us): "
                  f"{mx_context.get('overhead_us_subtracted')}. Ratio: MXNet time / project "
                  "time.", "", gate.markdown(mx), ""]
    if rows:
        lines += [f"## Against the baseline ({base_label})", "",
                  compare.markdown(rows, "baseline", "this run"), ""]
    for image in images:
        lines += [f"![{os.path.basename(image)}]({os.path.basename(image)})", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def make_plots(measured, gate_rows, out_dir, history_dir=None):
    images = [plot.ratio_bars(gate_rows, os.path.join(out_dir, "gates.png"),
                              "Gates: ratio and 95% interval; black mark: the goal"),
              plot.ratio_bars(mxnet_rows(measured), os.path.join(out_dir, "mxnet.png"),
                              "Operators against MXNet 1.9.1 (MXNet time / project time)")]
    if history_dir:
        names = [n for n in results.names(measured) if n.startswith("op_bench:")][:8]
        images.append(plot.history(sorted(glob.glob(os.path.join(history_dir, "*.json"))), names,
                                   os.path.join(out_dir, "history.png")))
    return [image for image in images if image]


def command_ci(args):
    started = time.time()
    measured = suite.run_suite(args.suite)
    machine = measured["context"]["machine"]
    base_file = baseline_path(machine, args.suite)
    base = results.load(base_file) if os.path.exists(base_file) else None
    if base is None:
        print(f"bench: no baseline for this machine kind ({base_file}); regressions are not "
              "checked, gates are", file=sys.stderr)
    gates = gates_for(args.suite)
    rows, gate_rows = check(measured, base, gates, args.threshold)
    retry = suspects(rows, gate_rows)
    if retry:
        print(f"bench: rerunning {len(retry)} benchmark(s) that look slow: {', '.join(retry)}",
              file=sys.stderr)
        again = suite.run_suite(args.suite, repetitions=2 * measured["context"]["repetitions"],
                                only=retry)
        measured = results.replace(measured, again)
        rows, gate_rows = check(measured, base, gates, args.threshold)

    os.makedirs(args.out, exist_ok=True)
    results.save(measured, os.path.join(args.out, f"results-{args.suite}.json"))
    os.makedirs(HISTORY, exist_ok=True)
    stamp = measured["context"]["date"].replace(":", "")
    results.save(compact(measured), os.path.join(
        HISTORY, f"{stamp}-{machine['commit'][:12] or 'nocommit'}-{args.suite}.json"))
    images = make_plots(measured, gate_rows, args.out, HISTORY)
    report = os.path.join(args.out, "report.md")
    write_report(report, measured, rows, gate_rows, images,
                 os.path.relpath(base_file, results.ROOT))

    with open(report) as f:
        print(f.read())
    regressed, missed = compare.regressions(rows), gate.failing(gate_rows)
    errors = results.errors(measured)
    print(f"bench ci: {len(rows)} benchmarks compared with the baseline, "
          f"{len(regressed)} significant regression(s); {len(gate_rows)} gates, "
          f"{len(missed)} missed; {len(errors)} benchmark error(s); "
          f"{time.time() - started:.0f} s; report: {os.path.relpath(report, results.ROOT)}")
    return 1 if regressed or missed or errors else 0


def command_run(args):
    measured = suite.run_suite(args.suite, args.repetitions, args.min_time)
    out = args.out or os.path.join(OUT, f"results-{args.suite}.json")
    results.save(measured, out)
    print(f"bench: {len(results.names(measured))} benchmarks -> {out}")
    return 0


def command_compare(args):
    rows = compare.compare(results.load(args.base), results.load(args.new), args.alpha,
                           args.threshold)
    print(compare.markdown(rows, os.path.basename(args.base), os.path.basename(args.new)))
    found = compare.regressions(rows)
    print(f"\n{len(rows)} benchmarks compared; {len(found)} significant regression(s) "
          f"(U-test p < {args.alpha}, at least {args.threshold:g}x slower)")
    return 1 if found else 0


def command_gate(args):
    measured = results.load(args.results)
    rows = gate.evaluate(gates_for(suite_of(measured), args.gates), measured)
    print(gate.markdown(rows))
    return 1 if gate.failing(rows) else 0


def command_plot(args):
    measured = results.load(args.results)
    rows = gate.evaluate(gates_for(suite_of(measured)), measured)
    for image in make_plots(measured, rows, args.out, args.history):
        print(image)
    return 0


def command_report(args):
    measured = results.load(args.results)
    base = results.load(args.base) if args.base else None
    rows, gate_rows = check(measured, base, gates_for(suite_of(measured)))
    images = make_plots(measured, gate_rows, args.out, args.history)
    report = os.path.join(args.out, "report.md")
    write_report(report, measured, rows, gate_rows, images, args.base or "")
    print(report)
    return 0


def command_baseline(args):
    measured = suite.run_suite(args.suite, args.repetitions)
    path = baseline_path(measured["context"]["machine"], args.suite)
    results.save(compact(measured), path)
    print(f"bench: baseline for {results.machine_kind(measured['context']['machine'])} "
          f"-> {os.path.relpath(path, results.ROOT)}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("run")
    p.add_argument("--suite", default="smoke")
    p.add_argument("--out")
    p.add_argument("--repetitions", type=int)
    p.add_argument("--min-time", type=float)
    p.set_defaults(func=command_run)
    p = commands.add_parser("compare")
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("--alpha", type=float, default=compare.DEFAULT_ALPHA)
    p.add_argument("--threshold", type=float, default=compare.DEFAULT_THRESHOLD)
    p.set_defaults(func=command_compare)
    p = commands.add_parser("gate")
    p.add_argument("results")
    p.add_argument("--gates", default=GATES)
    p.set_defaults(func=command_gate)
    for name, func in (("plot", command_plot), ("report", command_report)):
        p = commands.add_parser(name)
        p.add_argument("results")
        p.add_argument("--out", default=OUT)
        p.add_argument("--history", help="a folder of results files for the history plot")
        if name == "report":
            p.add_argument("--base", help="a results file to compare with")
        p.set_defaults(func=func)
    p = commands.add_parser("baseline")
    p.add_argument("--suite", default="smoke")
    p.add_argument("--repetitions", type=int)
    p.set_defaults(func=command_baseline)
    p = commands.add_parser("ci")
    p.add_argument("--suite", default="smoke")
    p.add_argument("--threshold", type=float, default=compare.DEFAULT_THRESHOLD,
                   help="the slowdown a regression must reach (default %(default)s)")
    p.add_argument("--out", default=OUT)
    p.set_defaults(func=command_ci)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (gate.GateError, ValueError, OSError) as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
