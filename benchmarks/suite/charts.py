"""PNG charts of the results: per group, each Ember implementation's time over
the fastest peer's, with the 1.0 line (matplotlib, Agg backend)."""
from pathlib import Path


def write(results, out_dir):
    """Returns the chart paths written, or the reason there are none."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:
        return f"matplotlib is not importable ({e}); no charts"
    groups = {}
    for r in results["cases"]:
        for row in r.get("ember_vs_peers", []):
            if "ratio_vs_best_peer" in row:
                groups.setdefault(r["group"], []).append(
                    (f"{r['name']}\n{row['impl']} vs {row['best_peer']}", row["ratio_vs_best_peer"]))
    paths = []
    for group, bars in groups.items():
        fig, ax = plt.subplots(figsize=(max(6, 0.75 * len(bars) + 2), 4.8))
        labels, ratios = zip(*bars)
        colors = ["tab:green" if v <= 1 else "tab:red" for v in ratios]
        # Bars grow from the 1.0 line, up when Ember is slower, down when faster.
        ax.bar(range(len(ratios)), [v - 1 for v in ratios], bottom=1, color=colors)
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_yscale("log")  # 0.5x and 2x sit the same distance from the line
        ax.set_ylim(min(0.5, min(ratios) / 1.3), max(2.0, max(ratios) * 1.3))
        low, high = ax.get_ylim()
        ax.set_yticks([t for t in (0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64) if low <= t <= high])
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("Ember time / fastest peer's (log; < 1 is faster)")
        ax.set_title(f"{group}: Ember vs the fastest peer (best of rounds)")
        for i, v in enumerate(ratios):
            ax.annotate(f"{v:.2f}", (i, v), ha="center", va="bottom", fontsize=7)
        fig.tight_layout()
        path = Path(out_dir) / f"{group}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(str(path))
    return paths
