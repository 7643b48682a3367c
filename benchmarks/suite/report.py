"""Turns case records into text: the console lines while the suite runs, and
the Markdown tables of results.md (and of docs/benchmarks.md's results section)."""
import math

from benchmarks.suite import targets


def fmt_time(seconds):
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def fmt_bytes(n):
    return "-" if n is None else f"{n / 2**20:.1f} MiB"


def _status(entry):
    if "error" in entry:
        return "FAILED: " + entry["error"]
    if "skipped" in entry:
        return "skipped: " + entry["skipped"]
    check = entry.get("check")
    if check is None:
        return "not checked"
    if not check["ok"]:
        return f"MISMATCH (max abs diff {check.get('max_abs_diff', '?'):.3g})" if "max_abs_diff" in check \
            else f"MISMATCH ({check.get('error')})"
    return f"ok ({check['max_abs_diff']:.2g})"


def _throughput(entry):
    t = entry.get("throughput")
    return f"{t['best']:.3g} {t['unit']}" if t else ""


def memcpy_gbps(records):
    for r in records:
        if r["group"] == "elementwise" and r["name"] == "memcpy":
            for e in r.get("results", []):
                if "throughput" in e:
                    return e["throughput"]["best"]
    return None


# --- console -----------------------------------------------------------------


def case_lines(record, memcpy=None):
    if record.get("kind") == "memory":
        return memory_lines(record)
    unit = record.get("unit", "call")
    lines = [f"[{record['group']}] {record['name']}  ({record.get('wall_s', '?')} s, load "
             f"{record.get('load_before')} -> {record.get('load_after')})"]
    if "error" in record:
        lines.append(f"  CASE FAILED: {record['error']}")
    for e in record.get("results", []):
        timing = f"best {fmt_time(e.get('best_s')):>9}  median {fmt_time(e.get('median_s')):>9} /{unit}" \
            if "best_s" in e else " " * 40
        extra = _throughput(e)
        if memcpy and e.get("throughput", {}).get("unit") == "GB/s" and record["name"] != "memcpy":
            extra += f" ({e['throughput']['best'] / memcpy:.0%} of memcpy)"
        lines.append(f"  {e['impl']:<18} {timing}  {extra:<28} {_status(e)}")
    for row in record.get("ember_vs_peers", []):
        if "best_peer" in row:
            same = "" if row.get("best_same_kind_peer") in (None, row["best_peer"], "numpy") else \
                f", {fmt_ratio(row['ratio_vs_same_kind'])} of {row['best_same_kind_peer']}"
            lines.append(f"  => {row['impl']}: {fmt_ratio(row['ratio_vs_best_peer'])} the time of {row['best_peer']}"
                         f" (medians: {fmt_ratio(row['ratio_vs_best_peer_median'])} of {row['best_peer_by_median']})"
                         f"{same}, {fmt_ratio(row.get('ratio_vs_numpy'))} of numpy")
    return lines + _problem_lines(record)


def _problem_lines(record):
    """A case's output mismatches and failures, one line each."""
    return ([f"  !! OUTPUT MISMATCH: {m}" for m in record.get("mismatches", [])] +
            [f"  !! FAILED: {f}" for f in record.get("failures", [])])


def _allocator_peak(entry):
    """The allocator's peak and what it added over the tensors held after the build."""
    a = entry.get("allocator")
    if not a:
        return "-"
    if a["peak_since"] != "baseline":
        return f"{fmt_bytes(a['peak'])} (since {a['peak_since']})"
    return f"{fmt_bytes(a['peak'])} (+{fmt_bytes(a['peak'] - a['baseline_in_use'])})"


def _memory_status(entry):
    return "reference for the check" if entry.get("reference") else _status(entry)


def _target(row, ratio, met, peer):
    return f"{fmt_ratio(row[ratio])} of {row[peer]}: {'met' if row[met] else 'NOT met'}"


def memory_lines(record):
    lines = [f"[{record['group']}] {record['name']}  ({record.get('wall_s', '?')} s, load "
             f"{record.get('load_before')} -> {record.get('load_after')})"]
    for e in record.get("results", []):
        if "peak_rss" in e:
            reset = "" if e.get("hwm_reset") else " (high-water mark not reset: build included)"
            text = (f"peak RSS {fmt_bytes(e['peak_rss']):>10}  after build {fmt_bytes(e['baseline_rss']):>10}  "
                    f"increase {fmt_bytes(e['peak_increase']):>10}  allocator peak {_allocator_peak(e)}{reset}  ")
        else:
            text = ""
        lines.append(f"  {e['impl']:<12} {text}{_memory_status(e)}")
    for row in record.get("ember_vs_peers", []):
        lines.append(f"  => {row['impl']} (target: peak <= lowest peer's): peak RSS "
                     f"{_target(row, 'ratio_peak_rss', 'target_met', 'lowest_peer')}; increase "
                     f"{_target(row, 'ratio_peak_increase', 'target_met_increase', 'lowest_peer_by_increase')}")
    return lines + _problem_lines(record)


# --- Markdown ------------------------------------------------------------------


def memory_table(records):
    """The memory cases: one row per framework, then the target row; "" when the run had none."""
    memory = [r for r in records if r.get("kind") == "memory"]
    if not memory:
        return ""
    rows = ["| case | framework | peak RSS | after import | after build | peak increase | allocator peak "
            "| check |",
            "|---|---|---|---|---|---|---|---|"]
    for r in memory:
        for e in r.get("results", []):
            reset = "" if e.get("hwm_reset", True) else " (mark not reset: build included)"
            rows.append(f"| {_cell(r['name'])} | {_cell(e['impl'])} | {fmt_bytes(e.get('peak_rss'))}{reset} | "
                        f"{fmt_bytes(e.get('import_rss'))} | {fmt_bytes(e.get('baseline_rss'))} | "
                        f"{fmt_bytes(e.get('peak_increase'))} | {_allocator_peak(e)} | {_cell(_memory_status(e))} |")
        for row in r.get("ember_vs_peers", []):
            rows.append(f"| {_cell(r['name'])} | **target: {row['impl']} peak <= lowest peer's** | "
                        f"{_target(row, 'ratio_peak_rss', 'target_met', 'lowest_peer')} | - | - | "
                        f"{_target(row, 'ratio_peak_increase', 'target_met_increase', 'lowest_peer_by_increase')}"
                        " | - | - |")
    return "\n".join(rows)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_table(records):
    """One row per Ember implementation per case: its time over the fastest peer's."""
    rows = ["| group | case | ember | best | median | fastest peer (best) | ratio | ratio of medians "
            "| fastest peer of the same kind | ratio | vs numpy | throughput | check |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if r.get("kind") == "memory":  # memory_table's
            continue
        entries = {e["impl"]: e for e in r.get("results", [])}
        if "error" in r and not entries:
            rows.append(f"| {r['group']} | {_cell(r['name'])} |" + " - |" * 10 + f" CASE FAILED: {_cell(r['error'])} |")
            continue
        ember_rows = [e for e in entries.values() if e["ember"]]
        compared = {row["impl"]: row for row in r.get("ember_vs_peers", [])}
        if not ember_rows:  # a baseline such as memcpy
            for e in entries.values():
                rows.append(f"| {r['group']} | {_cell(r['name'])} | ({_cell(e['impl'])}) | "
                            f"{fmt_time(e.get('best_s'))} | {fmt_time(e.get('median_s'))} |" + " - |" * 6
                            + f" {_throughput(e)} | {_cell(_status(e))} |")
            continue
        for e in ember_rows:
            c = compared.get(e["impl"], {})

            def peer(key):
                name = c.get(key)
                return f"{_cell(name)} ({fmt_time(entries[name].get('best_s'))})" if name else "-"
            rows.append(
                f"| {r['group']} | {_cell(r['name'])} | {_cell(e['impl'])} | {fmt_time(e.get('best_s'))} | "
                f"{fmt_time(e.get('median_s'))} | {peer('best_peer')} | {fmt_ratio(c.get('ratio_vs_best_peer'))} | "
                f"{fmt_ratio(c.get('ratio_vs_best_peer_median'))} | {peer('best_same_kind_peer')} | "
                f"{fmt_ratio(c.get('ratio_vs_same_kind'))} | {fmt_ratio(c.get('ratio_vs_numpy'))} | {_throughput(e)} | "
                f"{_cell(_status(e))} |")
    return "\n".join(rows)


def detail_tables(records):
    memcpy = memcpy_gbps(records)
    out = []
    for r in records:
        if r.get("kind") == "memory":  # memory_table's
            continue
        out.append(f"### {r['group']}: {r['name']}\n")
        if r.get("description"):
            out.append(r["description"] + "\n")
        rounds = f"{r.get('rounds')} rounds of {r.get('inner')} call(s) in each of {r['passes']} passes, each " \
            "framework in its own process" if "passes" in r else \
            f"{r.get('rounds')} interleaved rounds of {r.get('inner')} call(s)"
        out.append(f"Per {r.get('unit', 'call')}; {rounds}; load {r.get('load_before')} -> {r.get('load_after')}.\n")
        if "error" in r:
            out.append(f"**CASE FAILED:** `{_cell(r['error'])}`\n")
        out.append("| impl | best | median | throughput | setup | check / status |")
        out.append("|---|---|---|---|---|---|")
        for e in r.get("results", []):
            extra = _throughput(e)
            if memcpy and e.get("throughput", {}).get("unit") == "GB/s" and r["name"] != "memcpy":
                extra += f" ({e['throughput']['best'] / memcpy:.0%} of memcpy)"
            setup = f"{e['setup_s']:.2f} s" if "setup_s" in e else "-"
            note = f"; {e['note']}" if e.get("note") else ""
            out.append(f"| {_cell(e['impl'])} | {fmt_time(e.get('best_s'))} | {fmt_time(e.get('median_s'))} | "
                       f"{extra} | {setup} | {_cell(_status(e) + note)} |")
        for note in r.get("notes", []):
            out.append(f"\n_Note:_ {note}")
        out.append("")
    return "\n".join(out)


def mode_line(results):
    """How the numbers were taken; a results.json from before the modes is interleaved."""
    mode = results.get("mode", {"name": "interleaved"})
    if mode["name"] != "isolated":
        return ("interleaved: every framework in one process, the implementations of a case timed in "
                "alternating rounds (`--interleaved`)")
    orders = " / ".join(", ".join(order) for order in mode["orders"])
    failed = [f"{p['framework']} (pass {p['pass']}): {p['failure'][:160]}" for p in mode.get("processes", [])
              if p.get("failure")]  # the whole text is under "Failures and mismatches"
    return (f"isolated: each framework in a process of its own, {mode['passes']} pass(es) in the order {orders}; "
            "best and median over every pass's samples" + (f"; failed processes: {'; '.join(failed)}"
                                                            if failed else ""))


def _busy(results):
    busy = results.get("options", {}).get("busy", 0)
    return f"; {busy} competing busy process(es) ran for the whole run (`--busy`)" if busy else ""


def header(results):
    m = results["machine"]
    git = m.get("git", {})
    peers = results["peers"]
    used = ", ".join(f"{n} {p['version']}" for n, p in peers.items() if p.get("used"))
    skipped = "; ".join(f"{n}: {p['skipped']}" for n, p in peers.items() if not p.get("used"))
    again = m["ember"].get("reinstalled_during_run_at")
    reinstalled = f"; reinstalled during the run at {again}, the run kept the first" if again else ""
    lines = [
        f"- Run: {results['started']}, {results['duration_s']:.0f} s"
        f"{' (--quick: smoke-test sizes, not for comparison)' if results['options'].get('quick') else ''}"
        f"{', --only ' + repr(results['options']['only']) if results['options'].get('only') else ''}",
        f"- Machine: {m['cpu']}, {m['cpu_count']} CPUs ({', '.join(m.get('cpu_flags', []))}), {m['os']}, "
        f"Python {m['python']}",
        f"- Mode: {_cell(mode_line(results))}",
        f"- Load average (1, 5, 15 min): {results['load_before']} before, {results['load_after']} after"
        f"{_busy(results)}",
        f"- Commit: {git.get('describe')}{' (tracked files modified)' if git.get('tracked_files_modified') else ''};"
        f" ember from {m['ember']['file']} (installed {m['ember']['installed_at']}{reinstalled})",
        f"- Frameworks: {used}" + (f"; skipped: {skipped}" if skipped else ""),
    ]
    return "\n".join(lines)


def problems(results):
    lines = []
    for r in results["cases"]:
        key = f"{r['group']}/{r['name']}"
        if "error" in r:
            lines.append(f"- **{key}**: case failed: `{_cell(r['error'])}`")
        for f in r.get("failures", []):
            lines.append(f"- **{key}**: {'EMBER ' if f.startswith('ember') else ''}FAILED: `{_cell(f)}`")
        for m in r.get("mismatches", []):
            lines.append(f"- **{key}**: OUTPUT MISMATCH: {_cell(m)}")
    return "\n".join(lines) if lines else "None."


def markdown(results):
    records = results["cases"]
    return "\n".join([
        "# Benchmark results",
        "",
        "Generated by `python -m benchmarks` from `results.json`; see `docs/benchmarks.md` for what each "
        "case measures. Ratios are Ember's time over the fastest peer's (best over best; the ratio of "
        "medians uses the peer with the fastest median): below 1.0 Ember is faster. \"Same kind\" compares "
        "eager with eager and compiled functions (ember.function, jax.jit, tf.function, torch.compile) with "
        "compiled ones.",
        "",
        header(results),
        "",
        "## Summary",
        "",
        summary_table(records),
        "",
        "## Targets (issue 24)",
        "",
        targets.table(results),
        "",
        "## Peak memory",
        "",
        memory_table(records) or "No memory case in this run.",
        "",
        "Each framework ran the workload in a fresh process; peak RSS is the process's high-water mark after "
        "the workload, reset after import and build, and the increase is over the resident set then "
        "(Note [Peak memory], benchmarks/suite/cases_memory.py). The target row divides Ember's peak by the "
        "lowest peer's.",
        "",
        "## Failures and mismatches",
        "",
        problems(results),
        "",
        "## Details",
        "",
        detail_tables(records),
    ])
