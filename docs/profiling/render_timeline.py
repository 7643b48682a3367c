"""Draws a Chrome trace written by ember.profiler as a timeline PNG, one
row per thread, the way chrome://tracing and Perfetto lay it out (the
picture in docs/profiling.md comes from here).

    python docs/profiling/render_timeline.py trace.json timeline.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"dispatch": "#4c72b0", "kernel": "#dd8452", "copy": "#55a868", "user": "#8172b3"}


def main(trace_path, png_path):
    events = json.load(open(trace_path))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    # Annotations get a row of their own above their thread's ops.
    def row_key(e):
        return (e["tid"], e["cat"] == "user")

    keys = sorted({row_key(e) for e in spans}, key=lambda k: (names.get(k[0], str(k[0])), not k[1]))
    rows = {k: i for i, k in enumerate(keys)}
    labels = [names.get(tid, str(tid)) + (" (Trace)" if user else "") for tid, user in keys]
    end = max(e["ts"] + e["dur"] for e in spans)
    fig, ax = plt.subplots(figsize=(12, 1.0 + 0.7 * len(keys)))
    for e in spans:
        row = rows[row_key(e)]
        ax.broken_barh([(e["ts"], e["dur"])], (row - 0.35, 0.7), facecolors=COLORS.get(e["cat"], "grey"),
                       edgecolor="white", linewidth=0.3)
        if e["dur"] > 0.012 * end * max(len(e["name"]), 4):  # room for the label
            ax.text(e["ts"] + e["dur"] / 2, row, e["name"], ha="center", va="center", fontsize=7, color="white",
                    clip_on=True)
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    for e in events:
        if e.get("ph") == "f" and e["id"] in starts:
            s = starts[e["id"]]
            ax.annotate("", xy=(e["ts"], rows[(e["tid"], False)] + 0.35),
                        xytext=(s["ts"], rows[(s["tid"], False)] - 0.35),
                        arrowprops={"arrowstyle": "->", "color": "#888888", "lw": 0.6})
    ax.set_yticks(range(len(keys)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    ax.legend(handles, COLORS.keys(), loc="upper right", fontsize=8, ncol=4)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
