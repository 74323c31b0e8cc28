"""The instructor's term through nbgrader's exchange, in headless Chromium: release to feedback.

One class on this machine (``exchange.py``: a temporary exchange directory, a course root
built from ``source/`` and ``nbgrader_config.py``, one JupyterLab for the instructor and one
per student, each with its own ``HOME`` and Jupyter config). The steps, in order:

1. the instructor releases assignment 02 with the formgrader's *Release* button;
2. three students fetch it in their *Assignments* tab and open it from the file browser;
   alice fills in the solution (the source's solution cells, written into the open notebook),
   bob makes a common mistake (``tests/golden``: ``repeats-strict``) and writes a weaker
   answer, carol changes nothing; each saves, clicks *Validate* in the notebook's toolbar,
   then *Submit* in the *Assignments* tab;
3. the instructor clicks *Collect* and runs the project's autograde
   (``python -m kpcourse.grading autograde``: every submission in the bubblewrap sandbox;
   ``KPCOURSE_ISOLATION`` as the environment sets it, ``require`` when unset); the
   expected scores are in the gradebook, ``grades.csv`` and the formgrader's gradebook page;
4. the instructor grades the written answer (``ex5-bias-answer``) of alice and bob in the
   formgrader (carol's is unchanged: nbgrader gives it 0 without asking);
5. the instructor generates and releases feedback with the formgrader's buttons; a new
   ``nbgrader export`` has the final totals;
6. each student fetches feedback in the *Assignments* tab; the feedback HTML shows their
   score and no line of the hidden tests (``source/02-.../grader.py``);
7. nothing runs from a hostile submission: a fourth student, mallory, hands in (straight into
   ``submitted/``, beside the three collected ones) the solution with outputs, Markdown, a raw
   cell and a written answer that try to run a script (``tests/hostile.py``); she gets every
   automatic point, and the instructor opens her formgrade page and her feedback file with no
   dialog and no script running (``kpcourse.grading.views.inert``).

A step that needs an earlier one that did not finish is skipped, naming it. Screenshots
(``exchange__NN_...png``) and each server's log go to ``tests/browser/screenshots/``.
"""

from __future__ import annotations

import csv
import html
import json
import re
import sys

import pytest
from exchange import (
    ASSIGNMENT,
    NOTEBOOK,
    AssignmentsTab,
    Classroom,
    Formgrader,
    feedback_header,
    golden_case,
    load_from_tests,
    mode,
    nbgrader_cells,
    open_lab,
    page_text,
    points,
    solutions,
)
from labpage import KERNEL_IDLE_S, REPO, SCREENSHOTS, VIEWPORT

STUDENTS = {"alice": "solution", "bob": "mistake", "carol": "untouched"}
HOSTILE = "mallory"  # handed in beside the class, never through a JupyterLab of her own
MISTAKE = "repeats-strict"  # tests/golden/02-perceptron-by-hand.py: a score of exactly 0 counted as fixed
WRITTEN = "ex5-bias-answer"
BOB_ANSWER = "The bias counts mistakes on +1 minus mistakes on -1, so it depends on the order, not on the classes."
MANUAL = {"alice": (3, "Complete: a verified run, an order that flips b, a proposal and its cost."),
          "bob": (1, "Right idea for 3; the examples of 1 and 2 (points and a run) were asked for.")}

STATE = {"done": set()}  # steps finished, for the steps after them


def require(*steps):
    missing = [s for s in steps if s not in STATE["done"]]
    if missing:
        pytest.skip(f"an earlier step did not finish: {', '.join(missing)}")


def shot(page, name, full_page=True):
    """PNG ``tests/browser/screenshots/exchange__<name>.png``; never raises."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"exchange__{name}.png"
    try:
        page.screenshot(path=path, full_page=full_page)
    except Exception as exc:  # the page may be what broke
        print(f"no screenshot {path.name}: {exc}")


def expected_scores():
    """``{student: {grade_id: score}}`` after autograde (written answers not graded yet)."""
    auto, _ = points()
    mistake = golden_case(MISTAKE)["expect"]
    return {"alice": dict(auto), "bob": {g: mistake.get(g, p) for g, p in auto.items()},
            "carol": {g: 0.0 for g in auto}}


def edits(student):
    """``{grade_id: new cell source}`` the student types into the fetched notebook."""
    if STUDENTS[student] == "untouched":
        return {}
    cells = solutions()
    if STUDENTS[student] == "mistake":
        cells.update(golden_case(MISTAKE)["replace"])
        cells[WRITTEN] = BOB_ANSWER
    return cells


def hostile():
    """``tests/hostile.py``: the payloads, and where a page would run them."""
    return load_from_tests("hostile.py", "hostile_for_exchange")


def hand_in_hostile(classroom):
    """mallory's notebook in ``submitted/``: the released notebook, solved, plus hostile cells."""
    import nbformat

    nb = nbformat.read(REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    solved = solutions()
    for gid, cell in nbgrader_cells(nb).items():
        if gid in solved:
            cell.source = solved[gid]
    hostile().add_to(nb, {WRITTEN})
    folder = classroom.course / "submitted" / HOSTILE / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    (folder / "timestamp.txt").write_text("2026-12-01 09:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text("mallory-0123456789")  # what `nbgrader submit` writes


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def classroom(tmp_path_factory, browser):
    """The exchange, the course (release generated) and everyone's running JupyterLab."""
    room = Classroom(tmp_path_factory.mktemp("term"), list(STUDENTS))
    try:
        try:
            room.generate()
            room.start()
        except (RuntimeError, AssertionError) as exc:
            pytest.fail(str(exc), pytrace=False)
        yield room
    finally:
        room.stop()


@pytest.fixture(scope="module")
def pages(browser, classroom):
    """One browser context (own cookies) and page per person."""
    contexts, out = [], {}
    for person in classroom.people():
        ctx = browser.new_context(viewport=VIEWPORT)
        contexts.append(ctx)
        out[person.name] = ctx.new_page()
        out[person.name].set_default_timeout(60_000)
    yield out
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="module")
def formgrader(pages, classroom):
    return Formgrader(pages["instructor"], classroom.instructor.server)


@pytest.fixture(scope="module")
def tabs():
    return {}  # student -> AssignmentsTab, kept open from fetching to feedback


# --------------------------------------------------------------------- steps
def test_01_instructor_releases(classroom, formgrader):
    ok, text = formgrader.action("release")
    shot(formgrader.page, "01_release")
    assert ok, f"the formgrader's Release failed:\n{text[-3000:]}"
    formgrader.close_modal()
    status = formgrader.assignment_row().locator("td.status").inner_text().strip()
    shot(formgrader.page, "01_released")
    assert status == "released", f"the assignment's status is {status!r} after Release"
    released = classroom.outbound()
    assert (released / f"{NOTEBOOK}.ipynb").is_file(), f"nothing released in {released}"
    assert not (released / "grader.py").exists(), "the grader file was released"
    course = classroom.exchange / "kpcourse"
    # the exchange permissions (README: "The instructor's term"): anyone may write into the exchange,
    # read outbound, and drop into inbound without listing it (setgid), nor touch another's folder (sticky)
    perms = {"exchange": mode(classroom.exchange), "course": mode(course), "outbound": mode(course / "outbound"),
             "inbound": mode(course / "inbound")}
    assert perms == {"exchange": "777", "course": "755", "outbound": "755", "inbound": "3733"}, perms
    STATE["done"].add("release")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_02_student_fetches_validates_submits(classroom, pages, tabs, student):
    require("release")
    person = classroom.students[student]
    lab = open_lab(pages[student], person.server, f"exchange__02_{student}")
    tab = tabs[student] = AssignmentsTab(lab)
    tab.open()
    shot(lab.page, f"02_{student}_1_released", full_page=False)
    tab.fetch()
    fetched = person.home / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert fetched.is_file(), f"Fetch did not put the notebook at {fetched}"
    lab.note(f"{student} fetched {ASSIGNMENT}")

    tab.open_notebook()
    lab.wait_kernel("Idle", KERNEL_IDLE_S)
    wanted = edits(student)
    if wanted:  # the student's work, typed into the open notebook (the front end's model), then saved
        changed = lab.page.evaluate("""sources => {
            const cells = window.jupyterapp.shell.currentWidget.content.model.cells, done = [];
            for (let i = 0; i < cells.length; i++) {
              const id = (cells.get(i).getMetadata('nbgrader') || {}).grade_id;
              if (id !== undefined && id in sources) { cells.get(i).sharedModel.setSource(sources[id]); done.push(id); }
            }
            return done; }""", wanted)
        assert sorted(changed) == sorted(wanted), f"cells not found in the notebook: {set(wanted) - set(changed)}"
        lab.menu("File", "Save Notebook")
        lab.page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
        on_disk = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
                   for c in json.loads(fetched.read_text())["cells"] if "grade_id" in c["metadata"].get("nbgrader", {})}
        assert all(on_disk[g] == src for g, src in wanted.items()), "the saved notebook lacks the student's edits"
    lab.note(f"{student} edited {len(wanted)} cell(s) and saved")
    shot(lab.page, f"02_{student}_2_notebook", full_page=False)

    _, classes, text = lab.validate()  # the notebook toolbar's Validate button
    lab.note(f"Validate: {classes!r} {text[:150]!r}")
    shot(lab.page, f"02_{student}_3_validate", full_page=False)
    if STUDENTS[student] == "solution":
        assert "validation-success" in classes.split(), f"Validate on the solution: {text[-3000:]}"
    else:
        assert "validation-failed" in classes.split(), f"Validate should fail for {student}: {text[-3000:]}"
        expected = golden_case(MISTAKE)["message"] if STUDENTS[student] == "mistake" else "NotImplementedError"
        assert expected in text, f"Validate for {student} should say {expected!r}: {text[-3000:]}"
    tab.close_dialog()

    tab.show()
    submissions = tab.submit()
    shot(lab.page, f"02_{student}_4_submitted", full_page=False)
    assert len(submissions) == 1, f"{student}'s submissions listed: {submissions}"
    mine = [p.name for p in classroom.inbound() if p.name.startswith(f"{student}+")]
    assert len(mine) == 1, f"the exchange's inbound holds {mine} for {student}"
    lab.note(f"{student} submitted at {submissions[0]}")
    STATE["done"].add(f"submit:{student}")


def test_03_instructor_collects_and_autogrades(classroom, formgrader):
    require("release")
    ok, text = formgrader.action("collect")
    shot(formgrader.page, "03_collect")
    assert ok, f"the formgrader's Collect failed:\n{text[-3000:]}"
    formgrader.close_modal()
    submitted = classroom.course / "submitted"
    missing = [s for s in STUDENTS if not (submitted / s / ASSIGNMENT / f"{NOTEBOOK}.ipynb").is_file()]
    assert not missing, (
        f"after Collect, submitted/ has no notebook from {missing}; the exchange's inbound holds "
        f"{[p.name.split('+')[0] for p in classroom.inbound()]}: did their Submit reach the exchange?")
    for student in STUDENTS:  # what the student saved is what the instructor got
        nb = json.loads((submitted / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
        cells = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
                 for c in nb["cells"] if "grade_id" in c["metadata"].get("nbgrader", {})}
        for gid, src in edits(student).items():
            assert cells[gid] == src, f"{student}'s collected {gid} is not what they saved"

    hand_in_hostile(classroom)
    env = classroom.instructor_env()
    env.setdefault("KPCOURSE_ISOLATION", "require")
    proc = classroom.run([sys.executable, "-m", "kpcourse.grading", "autograde"], env=env, check=False)
    (SCREENSHOTS / "exchange__03_autograde.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, (
        f"autograde exited with {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    assert "NOT ISOLATED" not in proc.stdout, proc.stdout[-3000:]

    expected = expected_scores()
    got = gradebook_scores(classroom)
    for student, want in expected.items():
        assert {g: got[student][g][0] for g in want} == pytest.approx(want), (
            f"{student}: gradebook has {got[student]}, expected {want}")
        assert got[student][WRITTEN][1] == (student != "carol"), (
            f"{student}'s written answer: needs_manual_grade={got[student][WRITTEN][1]}")
    rows = {r["student_id"]: r for r in read_csv(classroom.course / "grades.csv")}
    for student, want in expected.items():
        assert float(rows[student]["raw_score"]) == pytest.approx(sum(want.values())), rows[student]
        assert rows[student]["isolated"] == "yes", f"{student} was graded without the sandbox: {rows[student]}"

    page_rows = formgrader.gradebook()
    shot(formgrader.page, "03_gradebook")
    _, written = points()
    total = sum(points()[0].values()) + sum(written.values())
    for student, want in expected.items():
        score = f"{sum(want.values()):g} / {total:g}"
        assert score in page_rows.get(student, ""), f"the formgrader's gradebook row of {student}: {page_rows}"
    STATE["done"].add("autograde")


def test_04_instructor_grades_written_answers(classroom, formgrader):
    require("autograde")
    for student, (score, comment) in MANUAL.items():
        formgrader.open_submission(student)
        formgrader.grade(WRITTEN, score, comment)
        shot(formgrader.page, f"04_formgrade_{student}")
    got = gradebook_scores(classroom)
    for student, (score, _) in MANUAL.items():
        assert got[student][WRITTEN] == (score, False), f"{student}'s {WRITTEN}: {got[student][WRITTEN]}"
    assert got["carol"][WRITTEN] == (0, False), f"carol's unchanged answer: {got['carol'][WRITTEN]}"
    STATE["done"].add("formgrade")


def test_05_instructor_releases_feedback(classroom, formgrader):
    require("formgrade")
    for column in ("generate-feedback", "release-feedback"):
        ok, text = formgrader.action(column)
        shot(formgrader.page, f"05_{column}")
        assert ok, f"the formgrader's {column} failed:\n{text[-3000:]}"
        formgrader.close_modal()
    released = classroom.released_feedback()
    assert len(released) == len(STUDENTS) + 1, f"feedback files in the exchange: {[p.name for p in released]}"
    # students may open a feedback file whose name they know, not list the folder
    assert mode(released[0].parent) == "711", f"the exchange's feedback/ has mode {mode(released[0].parent)}"
    classroom.run([sys.executable, "-m", "nbgrader", "export", "--to", "grades-final.csv"])
    rows = {r["student_id"]: r for r in read_csv(classroom.course / "grades-final.csv")}
    for student, want in final_scores().items():
        assert float(rows[student]["raw_score"]) == pytest.approx(want), rows[student]
    STATE["done"].add("feedback")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_06_student_fetches_feedback(classroom, pages, tabs, student):
    require("feedback", f"submit:{student}")
    tab = tabs[student]
    tab.show()
    tab.refresh()
    listed = tab.submissions()
    assert len(listed) == 1 and "feedback available to fetch" in listed[0], f"{student}'s submissions: {listed}"
    tab.fetch_feedback()
    shot(tab.page, f"06_{student}_1_fetched", full_page=False)
    person = classroom.students[student]
    files = sorted((person.home / ASSIGNMENT / "feedback").glob(f"*/{NOTEBOOK}.html"))
    assert len(files) == 1, f"feedback fetched for {student}: {files}"
    rel = files[0].relative_to(person.home).as_posix()
    text = page_text(pages[student].context, f"{person.server.url}/files/{rel}?token={person.server.token}",
                     lambda page: shot(page, f"06_{student}_2_feedback"))
    header = feedback_header(final_scores()[student])
    assert header in text, f"{student}'s feedback should say {header!r}; it starts:\n{text[:600]}"
    if STUDENTS[student] == "mistake":
        assert golden_case(MISTAKE)["message"] in text, "bob's feedback should say what went wrong"
    assert "HIDDEN TESTS" not in text
    shown = hidden_lines(student, classroom) & {ln.strip() for ln in text.splitlines()}
    assert not shown, f"{student}'s feedback shows lines of the hidden tests: {sorted(shown)[:3]}"


def test_07_nothing_runs_from_a_hostile_submission(classroom, formgrader, pages):
    require("feedback")
    auto, _ = points()
    got = gradebook_scores(classroom, [HOSTILE])[HOSTILE]
    assert {g: got[g][0] for g in auto} == pytest.approx(auto), f"{HOSTILE}'s automatic points: {got}"
    payloads = hostile()
    page, dialogs = formgrader.page, []

    def dismiss(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    try:
        formgrader.open_submission(HOSTILE)
        page.wait_for_timeout(2000)  # time for an onerror, an onload or a script to fire
        shot(page, "07_formgrade_hostile")
        seen = ran(page, payloads.MARKER)
        feedback = classroom.course / "feedback" / HOSTILE / ASSIGNMENT / f"{NOTEBOOK}.html"
        view = pages["instructor"].context.new_page()
        view.on("dialog", dismiss)
        try:
            view.goto(feedback.as_uri())
            view.locator("h4").first.wait_for()
            view.wait_for_timeout(2000)
            shot(view, "07_feedback_hostile")
            seen_feedback = ran(view, payloads.MARKER)
        finally:
            view.close()
    finally:
        page.remove_listener("dialog", dismiss)
    assert dialogs == [], f"dialogs opened by {HOSTILE}'s submission: {dialogs}"
    for where, found in (("formgrader", seen), ("feedback", seen_feedback)):
        assert found["ran"] is None, f"a script of {HOSTILE}'s ran in the {where} page: {found['ran']}"
        assert found["script_links"] == 0, f"the {where} page has javascript: links"
        assert found["shown"], f"the {where} page does not show {HOSTILE}'s cells (as text)"


# ------------------------------------------------------------------ helpers
def ran(page, marker):
    """What a page shows of the hostile payloads: ``ran`` (what set ``window.<marker>``, or None),
    ``script_links`` (``javascript:`` links) and ``shown`` (the marker is in the page's text)."""
    return page.evaluate("""marker => ({
        ran: window[marker] === undefined ? null : String(window[marker]),
        script_links: [...document.querySelectorAll('a[href]')]
            .filter(a => a.href.trim().toLowerCase().startsWith('javascript:')).length,
        shown: document.body.innerText.includes(marker)})""", marker)


def gradebook_scores(classroom, students=STUDENTS):
    """``{student: {grade_id: (score, needs_manual_grade)}}`` from the course's gradebook.db."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{classroom.course / 'gradebook.db'}") as gb:
        for student in students:
            sub = gb.find_submission(ASSIGNMENT, student)
            out[student] = {g.name: (g.score, g.needs_manual_grade)
                            for nb in sub.notebooks for g in nb.grades}
    return out


def final_scores():
    return {s: sum(v.values()) + (MANUAL.get(s, (0, ""))[0]) for s, v in expected_scores().items()}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def hidden_lines(student, classroom):
    """Lines of the grader file (hidden tests, references) that the feedback must not show.

    Lines of the student's own notebook, of the source notebook outside its solutions, and of
    the ``kpcourse`` package (tracebacks may quote them) are not secret.
    """
    grader = (REPO / "source" / ASSIGNMENT / "grader.py").read_text().splitlines()
    public = set()
    for nb_path in (classroom.course / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
                    REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"):
        for cell in json.loads(nb_path.read_text())["cells"]:
            public |= {ln.strip() for ln in "".join(cell["source"]).splitlines()}
    for f in (REPO / "kpcourse").rglob("*.py"):
        public |= {ln.strip() for ln in f.read_text().splitlines()}
    secret = {ln.strip() for ln in grader if len(ln.strip()) >= 12 and not ln.strip().startswith("#")}
    return {html.unescape(s) for s in secret - public if not re.fullmatch(r"[\])}\s,]+", s)}
