"""Speed goals as ratios, checked against a results file (tools/bench/gates.txt).

A gate pairs a project benchmark with its baseline measured in the same run and names the
lowest acceptable ratio, baseline time / project time (above 1: the project is faster):

    op_bench:softmax_256x1000/forward/float32 | mxnet:softmax_256x1000/forward/float32 | 1.0 | gate | smoke

The ratio is that of the medians of the repetitions. Its 95% interval comes from a
bootstrap over the repetitions of both sides. A gate is MISSED only when the whole interval
lies below the goal: a ratio below its goal but within the noise is reported, not failed.
Mode `gate` fails CI on a miss; `watch` reports it (a goal not yet met, with its issue).
The last field is the suite that must measure the gate: smoke (CI's, so also full) or full.
Absolute times are never gated.
"""
import random
import statistics

import results

MODES = ("gate", "watch")
SUITES = ("smoke", "full")


class GateError(ValueError):
    pass


def parse_gates(text, source="gates"):
    gates = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        where = f"{source}:{number}"
        if len(fields) != 5:
            raise GateError(f"{where}: expected 'project benchmark | baseline benchmark | goal | "
                            f"mode | suite', got {len(fields)} fields")
        project, baseline, goal_text, mode, suite = fields
        try:
            goal = float(goal_text)
        except ValueError:
            raise GateError(f"{where}: goal '{goal_text}' is not a number") from None
        if not goal > 0:
            raise GateError(f"{where}: goal {goal_text} must be above 0")
        if mode not in MODES:
            raise GateError(f"{where}: mode '{mode}' is not one of: {', '.join(MODES)}")
        if suite not in SUITES:
            raise GateError(f"{where}: suite '{suite}' is not one of: {', '.join(SUITES)}")
        for name in (project, baseline):
            if ":" not in name:
                raise GateError(f"{where}: '{name}' does not name its binary ('binary:benchmark')")
        gates.append({"project": project, "baseline": baseline, "goal": goal, "mode": mode,
                      "suite": suite})
    return gates


def load_gates(path):
    with open(path) as f:
        return parse_gates(f.read(), path)


def bootstrap_interval(baseline, project, rounds=2000, seed=1):
    """95% interval of median(baseline) / median(project) over resampled repetitions."""
    rng = random.Random(seed)
    ratios = sorted(
        statistics.median(rng.choices(baseline, k=len(baseline))) /
        statistics.median(rng.choices(project, k=len(project)))
        for _ in range(rounds))
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def evaluate(gates, measured):
    """One row per gate: its ratio, interval and status (met, within noise, MISSED,
    not measured)."""
    mxnet_error = measured["context"].get("mxnet", {}).get("error")
    rows = []
    for gate in gates:
        row = dict(gate, ratio=None, low=None, high=None)
        project = results.samples_ns(measured, gate["project"])
        baseline = results.samples_ns(measured, gate["baseline"])
        if not project or not baseline:
            missing = [n for n, s in ((gate["project"], project), (gate["baseline"], baseline))
                       if not s]
            row["status"] = "not measured"
            row["why"] = "no samples of " + ", ".join(missing)
            # MXNet is an outside dependency: when it could not run, its gates wait.
            row["fails"] = gate["mode"] == "gate" and not (
                mxnet_error and all(n.startswith("mxnet:") for n in missing))
            if not row["fails"] and mxnet_error:
                row["why"] += f" ({mxnet_error})"
        else:
            row["ratio"] = statistics.median(baseline) / statistics.median(project)
            row["low"], row["high"] = bootstrap_interval(baseline, project)
            if row["ratio"] >= gate["goal"]:
                row["status"] = "met"
            elif row["high"] >= gate["goal"]:
                row["status"] = "below, within noise"
            else:
                row["status"] = "MISSED"
            row["fails"] = row["status"] == "MISSED" and gate["mode"] == "gate"
        rows.append(row)
    return rows


def failing(rows):
    return [row for row in rows if row["fails"]]


def markdown(rows):
    lines = ["| project | baseline | goal | ratio (95% interval) | status | mode |",
             "| --- | --- | ---: | --- | --- | --- |"]
    for row in rows:
        ratio = "-" if row["ratio"] is None else \
            f"{row['ratio']:.2f} ({row['low']:.2f}-{row['high']:.2f})"
        status = row["status"] + (f": {row['why']}" if row.get("why") else "")
        if row["fails"]:
            status = f"**{status}**"
        lines.append(f"| `{row['project']}` | `{row['baseline']}` | >= {row['goal']:g} | {ratio} "
                     f"| {status} | {row['mode']} |")
    return "\n".join(lines)
