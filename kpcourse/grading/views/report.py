"""The class report of one assignment: how the class did, exercise by exercise.

``python -m kpcourse.grading report [assignment ...]`` (``make report``, after
``make autograde``) writes ``reports/<assignment>.html``, its figures (PNG, drawn with
matplotlib) and its numbers (``reports/<assignment>.json``) from

- the gradebook (``gradebook.db``, read with :class:`nbgrader.api.Gradebook`): the
  score of every graded cell of every submission, as ``grades.csv`` has them;
- each graded folder's ``kpcourse-grading.json`` (written by
  :class:`kpcourse.grading.judge.trusted.TrustedExecute`): the verdicts (the hints the
  feedback shows), the grading time, isolation, cells that timed out, kernel restarts
  and locked cells put back.

Per exercise and per test cell it shows the score distribution, the share of full /
partial / zero scores and the most frequent failing hints; then the time each
submission took to grade and the submissions the grader flagged. :func:`collect`
returns all of it as plain data; :func:`write_report` renders it.
"""

from __future__ import annotations

import glob
import html
import json
import re
import statistics
from collections import Counter
from pathlib import Path

from kpcourse.grading.judge.spec import SUMMARY
from kpcourse.grading.judge.summary import Summary
from kpcourse.grading.paths import course_path

__all__ = ["collect", "write_report", "graded_assignments", "exercises_of", "band", "hints", "flags"]

TOP_HINTS = 5
_EXERCISE = re.compile(r"^#+\s*(Exercise\b.*?)\s*$", re.M)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?")


# ------------------------------------------------------------------ facts, one small rule each
def band(score, max_score):
    """``"full"``, ``"partial"`` or ``"zero"``: where a score lies in ``[0, max_score]``.

    A cell worth 0 points counts as full. Scores within 1e-9 of a bound count as that bound.
    """
    if score >= max_score - 1e-9:
        return "full"
    return "zero" if score <= 1e-9 else "partial"


def hints(verdict):
    """The hints in one failing verdict: its ``  - `` lines, else the whole message.

    A verdict such as ``"predict: 2 problems found\\n  - a\\n  - b"`` holds the hints
    ``["a", "b"]``; its first line only counts them. ``None`` (passed) holds none.
    """
    if not verdict:
        return []
    lines = [ln.strip()[2:].strip() for ln in str(verdict).splitlines() if ln.strip().startswith("- ")]
    return lines or [" ".join(str(verdict).split())]


def flags(summary):
    """Why the grader flags a submission (``[]`` when it does not), from its grading summary.

    ``summary`` is a :class:`~kpcourse.grading.judge.summary.Summary` (or its JSON dict), or
    ``None`` when the graded folder has none (graded by another tool, or autograde failed).
    """
    if summary is None:
        return ["no grading summary (autograde failed, or graded without kpcourse)"]
    return (summary if isinstance(summary, Summary) else Summary.from_dict(summary)).flags()


def exercises_of(notebook_path):
    """``{grade_id: exercise heading}`` of a notebook's graded cells, in notebook order.

    A graded cell belongs to the last markdown heading ``## Exercise …`` above it
    (``"Exercise 1 (3 points)"``); cells above the first one to ``"(no exercise)"``.
    """
    import nbformat

    nb = nbformat.read(notebook_path, as_version=4)
    found, current = {}, "(no exercise)"
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            headings = _EXERCISE.findall(cell.source)
            current = headings[-1] if headings else current
        md = cell.metadata.get("nbgrader", {})
        if md.get("grade") and md.get("grade_id"):
            found[md["grade_id"]] = current
    return found


def graded_assignments(root):
    """Assignments with at least one submission in ``<root>/gradebook.db``, by name."""
    from nbgrader.api import Gradebook

    db = Path(root) / "gradebook.db"
    if not db.is_file():
        return []
    with Gradebook(f"sqlite:///{db}") as gb:
        return sorted(a.name for a in gb.assignments if gb.assignment_submissions(a.name))


def _stats(scores, max_score):
    """Mean, median, extremes, full / partial / zero counts and ``{score: count}``."""
    bands = Counter(band(s, max_score) for s in scores)
    return {"n": len(scores), "max_score": max_score,
            "mean": statistics.fmean(scores) if scores else 0.0,
            "median": statistics.median(scores) if scores else 0.0,
            "min": min(scores, default=0.0), "max": max(scores, default=0.0),
            "full": bands["full"], "partial": bands["partial"], "zero": bands["zero"],
            "counts": {_num(s): c for s, c in sorted(Counter(scores).items())}}


def _top_hints(verdicts, n=TOP_HINTS):
    """The ``n`` most frequent hints: ``[[hint, submissions], ...]``.

    ``verdicts`` holds, per submission, the verdicts to count (``None`` for a pass); a
    hint counts once per submission. Hints that differ only in their numbers (an
    observed value) count as one; the text shown is the first one met.
    """
    counts, example = Counter(), {}
    for theirs in verdicts:
        keys = {}
        for h in (h for v in theirs for h in hints(v)):
            keys.setdefault(_NUMBER.sub("#", h), h)
        for key, h in keys.items():
            counts[key] += 1
            example.setdefault(key, h)
    return [[example[k], c] for k, c in counts.most_common(n)]


# ------------------------------------------------------------------ reading the course
def _gradebook(root, assignment):
    """Graded cells ``[(notebook, grade_id, max_score, kind)]`` and ``{student: {grade_id: (score, waiting)}}``."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gb:
        try:
            a = gb.find_assignment(assignment)
        except MissingEntry:
            raise ValueError(f"assignment {assignment!r} is not in {Path(root) / 'gradebook.db'}: "
                             "run `make autograde` first") from None
        cells = [(nb.name, gc.name, float(gc.max_score), "autograded" if gc.cell_type == "code" else "manual")
                 for nb in a.notebooks for gc in nb.grade_cells]
        scores = {sub.student.id: {g.name: (float(g.score), bool(g.needs_manual_grade))
                                   for nb in sub.notebooks for g in nb.grades}
                  for sub in gb.assignment_submissions(assignment)}
    return cells, scores


def _summary(root, student, assignment):
    return Summary.read(course_path(root, "autograded", student, assignment) / SUMMARY)


def _order(root, assignment, cells):
    """``{grade_id: exercise}`` for ``cells``, in the source notebook's order when it is there."""
    found = {}
    for notebook in dict.fromkeys(nb for nb, *_ in cells):
        for folder in ("source", "release"):
            path = Path(root) / folder / assignment / f"{notebook}.ipynb"
            if path.is_file():
                found.update(exercises_of(path))
                break
    ids = [gid for _, gid, *_ in cells]
    return {gid: found.get(gid, gid) for gid in [g for g in found if g in ids] + [g for g in ids if g not in found]}


def collect(root, assignment):
    """Everything the report shows, as plain data (see the module docstring).

    Parameters
    ----------
    root : str or pathlib.Path
        Course root: ``gradebook.db``, ``autograded/``, ``submitted/``, ``source/``.
    assignment : str
        Assignment name, e.g. ``"02-perceptron-by-hand"``.

    Returns
    -------
    dict
        ``assignment``, ``submissions`` (count), ``max_total``, ``totals`` (statistics of
        the total score), ``exercises`` (list: ``name``, ``max``, ``cells``, ``stats``),
        ``cells`` (list: ``grade_id``, ``exercise``, ``max``, ``kind``, ``stats``,
        ``waiting`` (awaiting a manual grade), ``hints``), ``hints`` (the ten most frequent
        failing hints of the whole assignment, ``[[hint, submissions], ...]``),
        ``per_submission`` (list: ``student``,
        ``total``, ``exercises``, ``cells``, ``seconds``, ``wall_seconds``, ``flags``) and
        ``not_graded`` (students with a submission in ``submitted/`` but none in the
        gradebook). Statistics: ``n``, ``mean``, ``median``, ``min``, ``max``, ``full``,
        ``partial``, ``zero`` (counts) and ``counts`` (``{score: submissions}``).
    """
    root = Path(root)
    cells, scores = _gradebook(root, assignment)
    if not scores:
        raise ValueError(f"no submission of {assignment!r} in {root / 'gradebook.db'}: run `make autograde` first")
    exercise = _order(root, assignment, cells)
    max_of = {gid: m for _, gid, m, _ in cells}
    kind_of = {gid: k for _, gid, _, k in cells}
    students = sorted(scores)
    summaries = {s: _summary(root, s, assignment) for s in students}
    verdicts = {s: summaries[s].verdicts if summaries[s] else {} for s in students}

    def score(s, gid):
        return scores[s].get(gid, (0.0, False))[0]

    cell_rows = [{"grade_id": gid, "exercise": exercise[gid], "max": max_of[gid], "kind": kind_of[gid],
                  "stats": _stats([score(s, gid) for s in students], max_of[gid]),
                  "waiting": sum(scores[s].get(gid, (0, False))[1] for s in students),
                  "hints": _top_hints([verdicts[s].get(gid)] for s in students)} for gid in exercise]
    groups = {}
    for gid, name in exercise.items():
        groups.setdefault(name, []).append(gid)
    exercises = [{"name": name, "cells": gids, "max": sum(max_of[g] for g in gids),
                  "stats": _stats([sum(score(s, g) for g in gids) for s in students], sum(max_of[g] for g in gids))}
                 for name, gids in groups.items()]
    max_total = sum(max_of.values())
    per_submission = [{"student": s, "total": sum(score(s, g) for g in exercise),
                       "cells": {g: score(s, g) for g in exercise},
                       "exercises": {e["name"]: sum(score(s, g) for g in e["cells"]) for e in exercises},
                       "seconds": summaries[s].seconds if summaries[s] else None,
                       "wall_seconds": summaries[s].wall_seconds if summaries[s] else None,
                       "flags": flags(summaries[s])} for s in students]
    pattern = course_path(root, "submitted", "*", assignment) / "*.ipynb"
    handed_in = {Path(p).parent.parent.name for p in glob.glob(str(pattern))}
    return {"assignment": assignment, "submissions": len(students), "max_total": max_total,
            "totals": _stats([r["total"] for r in per_submission], max_total), "exercises": exercises,
            "cells": cell_rows, "hints": _top_hints([verdicts[s].values() for s in students], 10),
            "per_submission": per_submission, "not_graded": sorted(handed_in - set(students))}


# ------------------------------------------------------------------ figures
def _histogram(ax, scores, max_score, title):
    """Bars of how many submissions got each score: one bar per point (or half point), else 10 bins."""
    from matplotlib.ticker import MaxNLocator

    step = 1.0 if all(float(s).is_integer() for s in scores) else 0.5
    if max_score / step <= 40 and all(float(s / step).is_integer() for s in scores):
        values = [k * step for k in range(int(round(max_score / step)) + 1)]
        counts = Counter(scores)
        bars = ax.bar(values, [counts.get(v, 0) for v in values], width=0.8 * step, color="#4c72b0")
        ax.set_xlim(-0.6 * step, max_score + 0.6 * step)
    else:
        bars = ax.hist(scores, bins=10, range=(0, max_score or 1), color="#4c72b0", edgecolor="white")[2]
    ax.set(title=title, xlabel="points", ylabel="submissions")
    ax.xaxis.set_major_locator(MaxNLocator(integer=step == 1.0))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return bars


def _bands(stats):
    n = max(stats["n"], 1)
    return f"full {100 * stats['full'] / n:.0f}% · partial {100 * stats['partial'] / n:.0f}% · " \
           f"zero {100 * stats['zero'] / n:.0f}%"


def _save(fig, path):
    fig.savefig(path, dpi=90)
    return path.name


def _figures(data, out, scores_of):
    """Draw the totals, one figure per exercise and the grading times; return their file names."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    a, names = data["assignment"], {}
    fig = Figure(figsize=(5, 3), layout="constrained")
    _histogram(fig.add_subplot(), scores_of("total"), data["max_total"], f"Total score\n{_bands(data['totals'])}")
    names["totals"] = _save(fig, out / f"{a}-totals.png")
    cells = {c["grade_id"]: c for c in data["cells"]}
    for i, ex in enumerate(data["exercises"], start=1):
        panels = [(ex["name"], ex["max"], ex["stats"], scores_of(ex["name"]))]
        panels += [(g, cells[g]["max"], cells[g]["stats"], scores_of(g)) for g in ex["cells"]]
        cols = min(len(panels), 4)
        rows = -(-len(panels) // cols)
        fig = Figure(figsize=(3.3 * cols, 2.8 * rows), layout="constrained")
        for k, (title, top, stats, values) in enumerate(panels, start=1):
            _histogram(fig.add_subplot(rows, cols, k), values, top, f"{title}\n{_bands(stats)}")
        names[ex["name"]] = _save(fig, out / f"{a}-ex{i}.png")
    times = [r["wall_seconds"] or r["seconds"] for r in data["per_submission"]
             if (r["wall_seconds"] or r["seconds"]) is not None]
    if times:
        fig = Figure(figsize=(5, 3), layout="constrained")
        ax = fig.add_subplot()
        ax.hist(times, bins=min(20, max(5, len(times) // 5)), color="#dd8452", edgecolor="white")
        ax.set(title="Time to grade one submission", xlabel="seconds", ylabel="submissions")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        names["times"] = _save(fig, out / f"{a}-times.png")
    return names


# ------------------------------------------------------------------ HTML
_CSS = """body{font-family:sans-serif;max-width:70em;margin:1em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}
td.text,th.text{text-align:left}tr.exercise{font-weight:bold;background:#f3f3f3}.flag{color:#a00}
img{max-width:100%}"""


def _num(x, digits=2):
    """``2`` for 2.0, ``2.5``, ``2.33``: a score or mean as the report writes it."""
    return "–" if x is None else f"{round(float(x), digits):g}"


def _pct(k, n):
    return f"{100 * k / n:.0f}%" if n else "–"


def _row(cells, cls="", attrs=""):
    tds = "".join(f'<td class="text">{html.escape(str(c))}</td>' if isinstance(c, str) and i == 0
                  else f"<td>{html.escape(str(c))}</td>" for i, c in enumerate(cells))
    return f"<tr{f' class={chr(34)}{cls}{chr(34)}' if cls else ''}{attrs}>{tds}</tr>"


def _stat_cells(s):
    n = s["n"]
    return [_num(s["max_score"]), _num(s["mean"]), _num(s["median"]), _pct(s["full"], n), _pct(s["partial"], n),
            _pct(s["zero"], n)]


def _html(data, figures):
    """The report page: summary, exercises, grading time, flagged submissions, all submissions."""
    e = html.escape
    a, t, n = data["assignment"], data["totals"], data["submissions"]
    head = ("<tr><th class=text>{}</th><th>points</th><th>mean</th><th>median</th><th>full</th><th>partial</th>"
            "<th>zero</th>{}</tr>")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Class report: {e(a)}</title>"
             f"<style>{_CSS}</style></head><body><h1>Class report: {e(a)}</h1>",
             f"<p id='summary'>{n} submission(s) graded; total score out of {_num(data['max_total'])}: "
             f"mean <b>{_num(t['mean'])}</b>, median {_num(t['median'])}, lowest {_num(t['min'])}, "
             f"highest {_num(t['max'])}. Full marks {_pct(t['full'], n)}, partial {_pct(t['partial'], n)}, "
             f"zero {_pct(t['zero'], n)}.</p>",
             f"<img src='{e(figures['totals'])}' alt='histogram of the total scores'>",
             "<h2>Exercises</h2><p>Per exercise (bold) and per graded cell: the score distribution over the "
             "submissions, the share of full, partial and zero scores, then the hints of the failing tests that "
             "came up most often (counted once per submission, the same hints the feedback shows).</p>"]
    if data["hints"]:
        items = "".join(f"<li data-count='{c}'><b>{c}</b> ({_pct(c, n)}): {e(h)}</li>" for h, c in data["hints"])
        parts.append(f"<p>The failing hints met by the most submissions, all exercises together:</p>"
                     f"<ul id='hints'>{items}</ul>")
    cells = {c["grade_id"]: c for c in data["cells"]}
    for ex in data["exercises"]:
        rows = [head.format("cell", "<th>awaiting manual grade</th>"),
                _row([ex["name"], *_stat_cells(ex["stats"]), ""], "exercise", f' data-exercise="{e(ex["name"])}"')]
        rows += [_row([g, *_stat_cells(cells[g]["stats"]), cells[g]["waiting"]], attrs=f' data-cell="{e(g)}"')
                 for g in ex["cells"]]
        parts += [f"<h3>{e(ex['name'])}</h3>", f"<img src='{e(figures[ex['name']])}' alt='score histograms'>",
                  f"<table>{''.join(rows)}</table>"]
        for g in ex["cells"]:
            if cells[g]["hints"]:
                items = "".join(f"<li data-count='{c}'><b>{c}</b> ({_pct(c, n)}): {e(h)}</li>"
                                for h, c in cells[g]["hints"])
                parts.append(f"<p>Most frequent failing hints of <code>{e(g)}</code>:</p><ul>{items}</ul>")
    times = [r["wall_seconds"] or r["seconds"] for r in data["per_submission"]
             if (r["wall_seconds"] or r["seconds"]) is not None]
    parts.append("<h2>Grading time</h2>")
    if times:
        parts += [f"<p>Per submission (the whole nbgrader process; the sandbox and judging alone in the table "
                  f"below): median {_num(statistics.median(times), 1)} s, longest {_num(max(times), 1)} s, "
                  f"{_num(sum(times), 1)} s in all (one job).</p>",
                  f"<img src='{e(figures['times'])}' alt='histogram of grading times'>"]
    flagged = [r for r in data["per_submission"] if r["flags"]]
    parts.append(f"<h2>Flagged by the grader</h2><p>{len(flagged)} submission(s): not isolated, timed out, "
                 "kernel restarted, locked cells restored, a resource limit reached or no grading summary.</p>")
    if flagged or data["not_graded"]:
        rows = ["<tr><th class=text>student</th><th class=text>why</th></tr>"]
        rows += [f"<tr data-flagged='{e(r['student'])}'><td class=text>{e(r['student'])}</td>"
                 f"<td class='text flag'>{e('; '.join(r['flags']))}</td></tr>" for r in flagged]
        rows += [f"<tr data-flagged='{e(s)}'><td class=text>{e(s)}</td><td class='text flag'>handed in but "
                 "not in the gradebook: autograde failed</td></tr>" for s in data["not_graded"]]
        parts.append(f"<table>{''.join(rows)}</table>")
    names = [ex["name"] for ex in data["exercises"]]
    rows = ["<tr><th class=text>student</th><th>total</th>" + "".join(f"<th>{e(x)}</th>" for x in names) +
            "<th>grading s</th><th>sandbox s</th><th class=text>flags</th></tr>"]
    rows += [f"<tr data-student='{e(r['student'])}'><td class=text>{e(r['student'])}</td><td>{_num(r['total'])}</td>"
             + "".join(f"<td>{_num(r['exercises'][x])}</td>" for x in names)
             + f"<td>{_num(r['wall_seconds'], 1)}</td><td>{_num(r['seconds'], 1)}</td>"
             f"<td class='text flag'>{e('; '.join(r['flags']))}</td></tr>" for r in data["per_submission"]]
    parts += ["<h2>All submissions</h2>", f"<table>{''.join(rows)}</table>", "</body></html>"]
    return "\n".join(parts)


def write_report(root, assignment, out=None):
    """Write ``<out>/<assignment>.html``, its PNG figures and ``<out>/<assignment>.json``.

    Parameters
    ----------
    root : str or pathlib.Path
        Course root (see :func:`collect`).
    assignment : str
        Assignment name.
    out : str or pathlib.Path, optional
        Folder of the report; default ``<root>/reports`` (git-ignored).

    Returns
    -------
    pathlib.Path
        The HTML file.
    """
    data = collect(root, assignment)
    out = Path(out) if out is not None else Path(root) / "reports"
    out.mkdir(parents=True, exist_ok=True)

    def scores_of(key):
        rows = data["per_submission"]
        if key == "total":
            return [r["total"] for r in rows]
        return [r["exercises"][key] if key in r["exercises"] else r["cells"][key] for r in rows]

    figures = _figures(data, out, scores_of)
    (out / f"{assignment}.json").write_text(json.dumps(data, indent=1) + "\n")
    page = out / f"{assignment}.html"
    page.write_text(_html(data, figures))
    return page
