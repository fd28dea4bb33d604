"""Two results files -> the change of every benchmark they share, with its significance.

For each benchmark: the medians of its repetitions in both files, their ratio (new / base:
above 1 is slower), the noise band of each side (the spread of its repetitions around the
median, as a percentage), and the p-value of Google Benchmark's own U-test
(gbench.report, from Debian's libbenchmark-tools: the Mann-Whitney U test over the
repetitions' real times). A change is a regression when it is significant (p below alpha)
and larger than the threshold both as measured and relative to how much slower the machine
itself is in this run: a shared machine that is 30% slower today slows every benchmark
alike, which is not a regression of any one of them.

How much slower the machine is: the drift of the whole run (the geometric mean of all
ratios), or, where the run measured baselines (probes of the machine, not of the project:
MXNet's timings and the hand loops, Eigen and BLAS calls named Baseline), the largest
slowdown among them. This VM's memory bandwidth swings by up to 2x over hours while its
arithmetic does not (the committed history: memcpy 11.3-20.2 ms on the same buffers), so a
memory-bound operator can slow 1.9x beside a run drift of 1.24; the worst-hit probe tells
that apart from a slowdown of the project's own code. Probes are never regressions.
"""
import math
import statistics
import sys

import results

sys.path.insert(0, "/usr/share/benchmark")  # Debian's libbenchmark-tools
from gbench import report as gbench_report  # noqa: E402

DEFAULT_ALPHA = 0.05
DEFAULT_THRESHOLD = 1.25  # a regression is at least 25% slower


def noise_percent(samples):
    """Half the spread of the middle of the samples, relative to their median."""
    if len(samples) < 2:
        return None
    ordered = sorted(samples)
    trim = len(ordered) // 5  # drop the outer fifths, as an interquintile range
    middle = ordered[trim:len(ordered) - trim] or ordered
    return 50.0 * (middle[-1] - middle[0]) / statistics.median(ordered)


def utest_pvalue(base_samples, new_samples):
    """Google Benchmark's U-test p-value over real times (None with too few repetitions)."""
    _, _, time_pvalue = gbench_report.calc_utest([base_samples, new_samples],
                                                 [base_samples, new_samples])
    return time_pvalue


def drift(rows):
    """The geometric mean of the ratios: how much slower the whole run is."""
    if not rows:
        return 1.0
    return math.exp(sum(math.log(row["ratio"]) for row in rows) / len(rows))


def is_probe(name):
    """Whether a benchmark measures the machine (a baseline), not the project."""
    return name.startswith("mxnet:") or "_Baseline" in name


def machine_slowdown(rows):
    """How much slower the machine is in this run (see the module's docstring)."""
    probes = [row["ratio"] for row in rows if is_probe(row["name"])]
    return max([drift(rows)] + probes)


def compare(base, new, alpha=DEFAULT_ALPHA, threshold=DEFAULT_THRESHOLD):
    """One row per benchmark in both files, in the new file's order."""
    base_names = set(results.names(base))
    rows = []
    for name in results.names(new):
        if name not in base_names:
            continue
        base_samples, new_samples = results.samples_ns(base, name), results.samples_ns(new, name)
        rows.append({"name": name, "base_ns": statistics.median(base_samples),
                     "new_ns": statistics.median(new_samples),
                     "ratio": statistics.median(new_samples) / statistics.median(base_samples),
                     "base_noise": noise_percent(base_samples),
                     "new_noise": noise_percent(new_samples),
                     "pvalue": utest_pvalue(base_samples, new_samples)})
    slowdown = machine_slowdown(rows)
    for row in rows:
        row["relative"] = row["ratio"] / slowdown
        significant = row["pvalue"] is not None and row["pvalue"] < alpha
        if is_probe(row["name"]):
            row["verdict"] = ""
        elif significant and min(row["ratio"], row["relative"]) >= threshold:
            row["verdict"] = "REGRESSION"
        elif significant and max(row["ratio"], row["relative"]) <= 1 / threshold:
            row["verdict"] = "faster"
        else:
            row["verdict"] = ""
    return rows


def regressions(rows):
    return [row for row in rows if row["verdict"] == "REGRESSION"]


def format_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _percent(value):
    return "-" if value is None else f"±{value:.0f}%"


def markdown(rows, base_label="base", new_label="new"):
    lines = [f"Run drift (geometric mean of all ratios): {drift(rows):.2f}; the machine's "
             f"slowdown (the larger of the drift and the worst-hit baseline): "
             f"{machine_slowdown(rows):.2f}; relative: a ratio divided by the slowdown.", "",
             f"| benchmark | {base_label} | {new_label} | {new_label} / {base_label} | relative "
             "| noise (base, new) | U-test p | |",
             "| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
    for row in rows:
        pvalue = "-" if row["pvalue"] is None else f"{row['pvalue']:.3f}"
        verdict = f"**{row['verdict']}**" if row["verdict"] == "REGRESSION" else row["verdict"]
        lines.append(f"| `{row['name']}` | {format_time(row['base_ns'])} | "
                     f"{format_time(row['new_ns'])} | {row['ratio']:.2f} | "
                     f"{row['relative']:.2f} | "
                     f"{_percent(row['base_noise'])}, {_percent(row['new_noise'])} | {pvalue} | "
                     f"{verdict} |")
    return "\n".join(lines)
