"""Plots (matplotlib, PNG): ratios as bars with their 95% intervals, and the history of
benchmarks over stored results files."""
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import results  # noqa: E402


def ratio_bars(rows, path, title):
    """Horizontal bars of ratio rows (gate.evaluate's), whiskers at the interval, a mark at
    each goal. Rows without a ratio are left out."""
    rows = [row for row in rows if row["ratio"] is not None]
    if not rows:
        return None
    labels = [row["project"].split(":", 1)[1] + "  vs " + row["baseline"].split(":", 1)[0]
              for row in rows]
    ratios = [row["ratio"] for row in rows]
    errors = [[r - row["low"] for r, row in zip(ratios, rows)],
              [row["high"] - r for r, row in zip(ratios, rows)]]
    colors = ["tab:red" if row["status"] == "MISSED" else
              "tab:orange" if row["status"] != "met" else "tab:blue" for row in rows]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.4))
    y = range(len(rows))
    ax.barh(y, ratios, xerr=errors, color=colors, capsize=2, height=0.6)
    ax.scatter([row["goal"] for row in rows], y, marker="|", s=200, color="black",
               zorder=3, label="goal")
    ax.set_yticks(list(y), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="gray", linewidth=0.8)
    ax.set_xlabel("baseline time / project time (log scale; above 1: the project is faster)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def history(result_paths, names, path, title="median time over stored results"):
    """One line per benchmark: its median in each results file, in date order, labelled by
    commit. Files that lack a benchmark leave a gap."""
    runs = []
    for p in result_paths:
        try:
            runs.append(results.load(p))
        except (OSError, ValueError):
            continue
    runs.sort(key=lambda r: r["context"].get("date", ""))
    if not runs or not names:
        return None
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = list(range(len(runs)))
    for name in names:
        medians = [results.median_ns(run, name) for run in runs]
        first = next((m for m in medians if m), None)
        if first is None:
            continue
        # Relative to the first stored run, so that benchmarks of any size share an axis.
        ax.plot(x, [m / first if m else None for m in medians], marker="o", label=name)
    labels = [run["context"].get("machine", {}).get("commit", "?")[:8] + "\n" +
              run["context"].get("date", "")[:10] for run in runs]
    ax.set_xticks(x, labels, fontsize=6, rotation=45)
    ax.set_ylabel("median time / first stored median")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

