"""The course on a real JupyterHub (``make test-hub``): real Unix users, the exchange's permissions enforced.

``hub.py`` makes the users (an instructor, three students, a course group), a root-owned
exchange, the course in the home of a shared grader account and a JupyterHub (DummyAuthenticator,
LocalProcessSpawner, the pip configurable-http-proxy) with the formgrader as a service that runs as
the grader account and that only the instructor's hub group may open; everything is removed at the end.
The steps, in Chromium where a person clicks:

1. everyone logs in on the hub's login page; their own server starts, as their own Unix user;
2. the instructor opens the formgrader service (``/services/kpcourse/formgrader``, through the hub's
   OAuth) and releases assignment 02 with its *Release* button; the exchange folders have
   nbgrader's modes; the instructor's own server has no formgrader;
3. each student fetches it in their *Assignments* tab; ``kph-alice``'s solution is written into the
   fetched notebook (as her), she clicks *Validate* in its toolbar (a kernel of hers) and submits;
   ``kph-bob`` submits it blank; ``kph-carol`` with a common mistake (``tests/golden``: ``repeats-strict``);
4. as ``kph-alice`` (her Unix user, her Python): every try to list, read, overwrite or delete
   ``kph-bob``'s submission and work, the course's source, grader file and gradebook, to move the
   released assignment or the course folder, fails; the hub refuses her the formgrader service (403);
   a non-member cannot enter the exchange; her submission in bob's name is written but not
   collected as bob's;
5. the instructor clicks *Collect*; the project's sandboxed autograde runs as the grader account, the
   course's own Unix user (what a terminal of the formgrader service runs as; nothing of it left to
   root), each submission isolated and run as that user, never root; the instructor exports the
   grades for Canvas; alice has full marks, bob none, carol the golden case's score;
6. in the formgrader's manual grading page the instructor types a score and a comment for alice's
   written answer; the gradebook holds them and her total includes the score;
7. the instructor clicks *Generate Feedback* and *Release Feedback*; alice and bob fetch theirs in the
   *Assignments* tab, alice's shows the comment and her total; alice can neither list the exchange's
   feedback folder nor read bob's fetched feedback.

Runs only with ``KPCOURSE_HUB=1`` (``make test-hub``; ``make test-browser`` leaves it out) and as root;
not root is a skip, except under ``CI=true`` where it fails. Screenshots: ``screenshots/hub__*.png``.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import subprocess
from types import SimpleNamespace

import pytest
from exchange import (
    ASSIGNMENT,
    NOTEBOOK,
    AssignmentsTab,
    Formgrader,
    feedback_header,
    golden_case,
    mode,
    page_text,
    points,
    solutions,
)
from hub import COURSE, GRADER, INSTRUCTOR, SERVICE, STUDENTS, Hub
from labpage import KERNEL_IDLE_S, SCREENSHOTS, VIEWPORT, LabPage

ENABLED = os.environ.get("KPCOURSE_HUB") == "1"
ON_CI = os.environ.get("CI") == "true"
pytestmark = pytest.mark.skipif(not ENABLED, reason="hub test: set KPCOURSE_HUB=1 (make test-hub)")

ALICE, BOB, CAROL = STUDENTS
MISTAKE = "repeats-strict"  # tests/golden/02-perceptron-by-hand.py: carol's common mistake
STATE = {"done": set()}
PAGE_S = 180
WRITTEN = "ex5-bias-answer"  # the written answer, graded by hand
ALICE_MANUAL = (1.5, "Right examples; say what a frequency-based bias costs the convergence guarantee.")


def require(*steps):
    missing = [s for s in steps if s not in STATE["done"]]
    if missing:
        pytest.skip(f"an earlier step did not finish: {', '.join(missing)}")


def shot(page, name):
    SCREENSHOTS.mkdir(exist_ok=True)
    try:
        page.screenshot(path=SCREENSHOTS / f"hub__{name}.png", full_page=False)
    except Exception as exc:
        print(f"no screenshot hub__{name}.png: {exc}")


class UserServer:
    """What ``LabPage`` and ``Formgrader`` need of a server: its URL (behind the hub) and a log."""

    def __init__(self, hub, user):
        self.url, self.token, self.hub = f"{hub.url}/user/{user}", "", hub

    def log_tail(self, n=2000):
        return self.hub.log.read_text(errors="replace")[-n:]


class HubFormgrader(Formgrader):
    """The formgrader service, opened by the instructor: the hub's login cookie (and its OAuth for the
    service), no token. The gradebook's links hold the service's base URL
    (``/services/<service>/formgrader/...``): ``server.url`` is the hub's."""

    def __init__(self, page, hub):
        super().__init__(page, SimpleNamespace(url=hub.url, token=""))
        self.prefix = f"{hub.url}/services/{SERVICE}"

    def goto(self, path):
        self.page.goto(f"{self.prefix}/formgrader/{path}")


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def hub(browser):
    if os.geteuid() != 0:
        message = "the hub test makes Unix users and runs JupyterHub as root: run it as root"
        if ON_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    h = Hub()
    try:
        try:
            h.setup()
        except AssertionError as exc:
            pytest.fail(str(exc), pytrace=False)
        yield h
    finally:
        h.close(keep_logs_in=SCREENSHOTS)


@pytest.fixture(scope="module")
def pages(browser, hub):
    contexts, out = [], {}
    for user in (INSTRUCTOR, *STUDENTS):
        ctx = browser.new_context(viewport=VIEWPORT)
        contexts.append(ctx)
        out[user] = ctx.new_page()
        out[user].set_default_timeout(60_000)
    yield out
    for ctx in contexts:
        ctx.close()


def wait_lab(page):
    page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).wait_for(
        timeout=PAGE_S * 1000)


# --------------------------------------------------------------------- steps
def test_01_everyone_logs_in(hub, pages):
    for user, page in pages.items():
        page.goto(f"{hub.url}/hub/login")
        page.locator("#username_input").fill(user)
        page.locator("#password_input").fill("not the password")
        page.locator("#login_submit").click()
        page.locator("p.login_error", has_text="Invalid username or password").wait_for()  # refused
        page.locator("#username_input").fill(user)
        page.locator("#password_input").fill(hub.password)
        page.locator("#login_submit").click()  # the four servers start side by side
    for user, page in pages.items():
        wait_lab(page)
        shot(page, f"01_{user}_lab")
        assert page.url.startswith(f"{hub.url}/user/{user}/lab"), page.url
    # each server runs as its own Unix user
    owners = subprocess.run(["ps", "-ww", "-eo", "user:32,args"], capture_output=True, text=True).stdout
    for user in (*pages, GRADER):  # the grader account: the formgrader service, started by the hub
        assert re.search(rf"^{re.escape(user)}\s+.*jupyterhub\.singleuser", owners, re.M), \
            f"no single-user server running as {user}:\n{owners[-3000:]}"
    STATE["done"].add("login")


def test_02_instructor_releases(hub, pages):
    require("login")
    fg = HubFormgrader(pages[INSTRUCTOR], hub)
    ok, text = fg.action("release")
    shot(fg.page, "02_release")
    assert ok, f"the formgrader's Release failed:\n{text[-3000:]}"
    assert fg.page.url.startswith(f"{hub.url}/services/{SERVICE}/formgrader/"), fg.page.url
    fg.close_modal()
    STATE["done"].add("release")  # released: the steps after it run even when a mode below is wrong
    course = hub.exchange / COURSE
    perms = {"srv": mode(hub.srv), "exchange": mode(hub.exchange), "course": mode(course),
             "outbound": mode(course / "outbound"), "inbound": mode(course / "inbound"),
             "home": mode(hub.home(GRADER))}
    assert perms == {"srv": "750", "exchange": "1777", "course": "755", "outbound": "755", "inbound": "3733",
                     "home": "700"}, perms
    assert not (course / "outbound" / ASSIGNMENT / "grader.py").exists(), "the grader file was released"
    own = fg.page.goto(f"{hub.url}/user/{INSTRUCTOR}/formgrader")  # grading happens in the service only
    assert own is not None and own.status == 404, (own and own.status, fg.page.url)


def _write_solution(hub, user, cells):
    """The student's work, saved into the fetched notebook as that user (what typing it would save)."""
    path = hub.home(user) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    code = ("import json, sys\n"
            "path, cells = sys.argv[1], json.loads(sys.argv[2])\n"
            "nb = json.load(open(path))\n"
            "for c in nb['cells']:\n"
            "    gid = c['metadata'].get('nbgrader', {}).get('grade_id')\n"
            "    if gid in cells: c['source'] = cells[gid]\n"
            "json.dump(nb, open(path, 'w'), indent=1)\n")
    hub.as_user(user, None, cmd=["-c", code, str(path), json.dumps(cells)])


@pytest.mark.parametrize("student", ["kph-alice", "kph-bob", "kph-carol"])
def test_03_student_fetches_submits(hub, pages, student):
    require("release")
    page = pages[student]
    page.goto(f"{hub.url}/user/{student}/lab?reset")
    wait_lab(page)
    tab = AssignmentsTab(LabPage(page, UserServer(hub, student), f"hub_{student}"))
    tab.open()
    tab.fetch()
    shot(page, f"03_{student}_fetched")
    fetched = hub.home(student) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert fetched.is_file() and fetched.stat().st_uid == hub.uid(student), f"no notebook of {student} at {fetched}"
    if student == ALICE:  # the solution, then Validate in the notebook's toolbar (a kernel of alice's)
        _write_solution(hub, student, solutions())
        tab.open_notebook()
        tab.lab.wait_kernel("Idle", KERNEL_IDLE_S)
        _, classes, text = tab.lab.validate()
        shot(page, f"03_{student}_validate")
        assert "validation-success" in classes.split(), f"Validate on the solution: {text[-3000:]}"
        tab.close_dialog()
        tab.show()
    elif student == CAROL:
        _write_solution(hub, student, {**solutions(), **golden_case(MISTAKE)["replace"]})
    subs = tab.submit()
    shot(page, f"03_{student}_submitted")
    assert len(subs) == 1, subs
    mine = [p for p in hub.inbound() if p.name.startswith(f"{student}+")]
    assert len(mine) == 1 and mine[0].stat().st_uid == hub.uid(student), mine
    STATE["done"].add(f"submit-{student}")


# run as a student: each attempt, and what refused it
TRY = r"""
import glob, json, os, shutil, sys
p = json.loads(sys.argv[1])
out = {}
def attempt(name, fn):
    try:
        result = fn()
    except PermissionError:  # EACCES or EPERM: the file system said no; any other error proves nothing
        out[name] = "denied"
    except OSError as exc:
        out[name] = f"UNPROVEN: {type(exc).__name__}: {exc}"[:200]
    else:
        out[name] = "ALLOWED: " + repr(result)[:200]
def must_be_empty(x):
    if x:
        return x
    raise PermissionError("nothing visible")
"""
ATTEMPTS = TRY + r"""
attempt("list inbound", lambda: os.listdir(p["inbound"]))
attempt("find bob's submission by name", lambda: must_be_empty(glob.glob(p["inbound"] + "/kph-bob+*")))
# from here on with the real name of bob's submission folder, random suffix included, as if it leaked
attempt("list bob's submission", lambda: os.listdir(p["bob_sub"]))
attempt("read bob's submitted notebook", lambda: open(p["bob_sub_nb"]).read(10))
attempt("read bob's submission secret (it names his feedback)", lambda: open(p["bob_secret"]).read(10))
attempt("write into bob's submission", lambda: open(p["bob_sub"] + "/extra.py", "w").write("x"))
attempt("overwrite bob's submitted notebook", lambda: open(p["bob_sub_nb"], "r+").write("{}"))
attempt("delete bob's submitted notebook", lambda: os.remove(p["bob_sub_nb"]))
attempt("remove bob's submission", lambda: shutil.rmtree(p["bob_sub"]))
attempt("rename bob's submission as alice's", lambda: os.rename(p["bob_sub"], p["as_alice"]))
attempt("change the mode of bob's submission", lambda: os.chmod(p["bob_sub"], 0o777))
attempt("list bob's home", lambda: os.listdir(p["bob_home"]))
attempt("read bob's work", lambda: open(p["bob_work"]).read(10))
attempt("list the course's home (the grader account's)", lambda: os.listdir(p["course_home"]))
attempt("read the course's source notebook", lambda: open(p["source_nb"]).read(10))
attempt("read the grader file", lambda: open(p["grader"]).read(10))
attempt("read the gradebook", lambda: open(p["gradebook"], "rb").read(10))
attempt("write the gradebook", lambda: open(p["gradebook"], "ab").write(b"x"))
attempt("overwrite the released notebook", lambda: open(p["released_nb"], "r+").write("{}"))
attempt("delete the released notebook", lambda: os.remove(p["released_nb"]))
attempt("add a file to the release", lambda: open(p["released_dir"] + "/extra.py", "w").write("x"))
attempt("release an assignment of one's own (write outbound/)", lambda: os.mkdir(p["outbound"] + "/99-extra"))
attempt("rename the course folder", lambda: os.rename(p["course_x"], p["course_x"] + "-moved"))
attempt("rename the outbound folder", lambda: os.rename(p["outbound"], p["outbound"] + "-moved"))
attempt("rename the inbound folder", lambda: os.rename(p["inbound"], p["inbound"] + "-moved"))
print(json.dumps(out))
"""


def test_04_permissions(hub, pages):
    require("submit-kph-alice", "submit-kph-bob")
    # the formgrader service: only the instructor's hub group may open it
    denied = pages[ALICE].goto(f"{hub.url}/services/{SERVICE}/formgrader")
    shot(pages[ALICE], "04_kph-alice_formgrader_denied")
    assert denied is not None and denied.status == 403, (denied and denied.status, pages[ALICE].url)
    bob_sub = next(p for p in hub.inbound() if p.name.startswith(f"{BOB}+"))
    course_x = hub.exchange / COURSE
    paths = {"inbound": str(course_x / "inbound"), "bob_sub": str(bob_sub),
             "bob_sub_nb": str(bob_sub / f"{NOTEBOOK}.ipynb"), "bob_secret": str(bob_sub / "submission_secret.txt"),
             "as_alice": str(bob_sub.parent / bob_sub.name.replace(BOB, ALICE, 1)), "bob_home": str(hub.home(BOB)),
             "bob_work": str(hub.home(BOB) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
             "course_home": str(hub.home(GRADER)),
             "source_nb": str(hub.course() / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
             "grader": str(hub.course() / "source" / ASSIGNMENT / "grader.py"),
             "gradebook": str(hub.course() / "gradebook.db"),
             "released_dir": str(course_x / "outbound" / ASSIGNMENT),
             "released_nb": str(course_x / "outbound" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
             "course_x": str(course_x), "outbound": str(course_x / "outbound")}
    for key in ("bob_work", "source_nb", "grader", "gradebook", "released_nb"):
        assert os.path.isfile(paths[key]), f"{key}: {paths[key]} is missing before the attempts"
    bob_nb = (bob_sub / f"{NOTEBOOK}.ipynb").read_bytes()
    results = json.loads(hub.as_user(ALICE, None, cmd=["-c", ATTEMPTS, json.dumps(paths)]).stdout)
    allowed = {k: v for k, v in results.items() if v != "denied"}
    assert not allowed, f"{ALICE} could, or was not refused by permissions: {json.dumps(allowed, indent=1)}"
    assert len(results) == 25, results
    for key in ("bob_work", "source_nb", "grader", "gradebook", "released_nb"):
        assert os.path.isfile(paths[key]), f"{key}: {paths[key]} went missing"
    assert (bob_sub / f"{NOTEBOOK}.ipynb").read_bytes() == bob_nb, "bob's submission changed"
    assert mode(bob_sub) == "770" and mode(course_x / "inbound") == "3733", (mode(bob_sub), mode(course_x / "inbound"))
    assert bob_sub.stat().st_gid == pwd.getpwnam(GRADER).pw_gid, "bob's submission is not in the grader's group"
    assert sorted(p.name for p in bob_sub.iterdir()) == sorted(
        [f"{NOTEBOOK}.ipynb", "timestamp.txt", "submission_secret.txt"]), list(bob_sub.iterdir())
    # someone outside the course group cannot even enter the exchange
    outsider = subprocess.run(["runuser", "-u", "nobody", "--", "ls", str(hub.srv)], capture_output=True,
                              text=True)
    assert outsider.returncode != 0 and "Permission denied" in outsider.stderr, outsider
    # a submission in bob's name: nbgrader writes it (the name is only a claim) ...
    forged = hub.as_user(ALICE, None, cmd=["-m", "nbgrader", "submit", ASSIGNMENT,
                                           f"--CourseDirectory.student_id={BOB}"], check=False)
    claims = [p for p in hub.inbound() if p.name.startswith(f"{BOB}+") and p.stat().st_uid == hub.uid(ALICE)]
    assert forged.returncode != 0 or len(claims) == 1, forged.stderr[-2000:]
    STATE["forged"] = claims
    # the exchange folder of a course not yet released, made by a student first: the release refuses it
    early = hub.exchange / f"{COURSE}-next"
    hub.as_user(ALICE, None, cmd=["-c", f"import os; os.mkdir({str(early)!r}, 0o777); os.chmod({str(early)!r}, 0o777)"])
    release = hub.as_user(GRADER, None, cmd=["-m", "nbgrader", "release_assignment", ASSIGNMENT,
                                            f"--course={COURSE}-next"], cwd=hub.course(), check=False)
    assert release.returncode != 0 and "don't own the directory" in release.stderr + release.stdout, release
    assert not (early / "outbound").exists(), "the release wrote into a folder a student made"
    STATE["done"].add("permissions")


def test_05_instructor_collects_and_grades(hub, pages):
    require("submit-kph-alice", "submit-kph-bob")
    fg = HubFormgrader(pages[INSTRUCTOR], hub)
    ok, text = fg.action("collect")
    shot(fg.page, "05_collect")
    assert ok, f"Collect failed:\n{text[-3000:]}"
    fg.close_modal()
    submitted = hub.course() / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == [ALICE, BOB, CAROL]
    # ... but collect takes bob's own submission, not the newer one alice made in his name
    bob_nb = json.loads((submitted / BOB / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    bob_src = "".join("".join(c["source"]) for c in bob_nb["cells"])
    assert "NotImplementedError" in bob_src and solutions()[next(iter(solutions()))] not in bob_src, \
        "the collected notebook of kph-bob is not his own"
    for claim in STATE.get("forged", []):
        assert claim.is_dir(), "the submission in bob's name should stay in inbound"

    # The sandboxed autograde (`make autograde`), run by the course's own Unix user (the grader account,
    # as a terminal of the formgrader service is) with its Python: no root
    graded = hub.as_user(GRADER, None, cmd=["-m", "kpcourse.grading", "autograde"], cwd=hub.course(),
                         timeout=500, check=False)
    (SCREENSHOTS / "hub__05_autograde.log").write_text(graded.stdout + graded.stderr)
    assert graded.returncode == 0, f"autograde: {graded.stdout[-2000:]}\n{graded.stderr[-4000:]}"
    assert "NOT ISOLATED" not in graded.stdout, graded.stdout[-3000:]
    for student in (ALICE, BOB, CAROL):  # each in the sandbox, as the grader account (never root)
        summary = json.loads((hub.course() / "autograded" / student / ASSIGNMENT / "kpcourse-grading.json").read_text())
        assert summary["isolated"] and summary["uid"] == hub.uid(GRADER), (student, summary)
    foreign = [str(p) for p in hub.course().rglob("*") if p.lstat().st_uid != hub.uid(GRADER)]
    assert not foreign, f"files in the course that are not the grader account's: {foreign[:10]}"
    code = ("import json, sys\nfrom nbgrader.api import Gradebook\n"
            "with Gradebook('sqlite:///gradebook.db') as gb:\n"
            f"    print(json.dumps({{s: gb.find_submission({ASSIGNMENT!r}, s).code_score\n"
            f"                      for s in {[ALICE, BOB, CAROL]!r}}}))\n")
    scores = json.loads(hub.as_user(GRADER, code, cwd=hub.course()).stdout)
    auto, _ = points()
    mistake = {g: golden_case(MISTAKE)["expect"].get(g, p) for g, p in auto.items()}
    assert scores == {ALICE: pytest.approx(sum(auto.values())), BOB: 0.0,
                      CAROL: pytest.approx(sum(mistake.values()))}, scores
    out = hub.as_user(GRADER, None, cmd=["-m", "kpcourse.grading.course.export", "canvas", "--out", "canvas.csv"],
                      cwd=hub.course())
    assert "2 student(s)" in out.stdout or "student(s)" in out.stdout, out.stdout
    with open(hub.course() / "canvas.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT], rows[0]
    fg.goto(f"gradebook/{ASSIGNMENT}")
    shot(fg.page, "05_gradebook")
    STATE["done"].add("graded")


GRADES = f"""
import json
from nbgrader.api import Gradebook
with Gradebook("sqlite:///gradebook.db") as gb:
    grade = gb.find_grade({WRITTEN!r}, {NOTEBOOK!r}, {ASSIGNMENT!r}, {ALICE!r})
    comment = gb.find_comment({WRITTEN!r}, {NOTEBOOK!r}, {ASSIGNMENT!r}, {ALICE!r})
    sub = gb.find_submission({ASSIGNMENT!r}, {ALICE!r})
    print(json.dumps({{"manual": grade.manual_score, "needs": grade.needs_manual_grade, "score": grade.score,
                      "comment": comment.manual_comment, "total": sub.score, "code": sub.code_score,
                      "written": sub.written_score}}))
"""


def test_06_instructor_grades_written_answer(hub, pages):
    """The formgrader's manual grading page: a score and a comment for alice's written answer."""
    require("graded")
    before = json.loads(hub.as_user(GRADER, GRADES, cwd=hub.course()).stdout)
    assert before["needs"] and before["manual"] is None, f"alice's written answer before grading: {before}"
    fg = HubFormgrader(pages[INSTRUCTOR], hub)
    fg.open_submission(ALICE)
    assert f"/services/{SERVICE}/formgrader/submissions/" in fg.page.url, fg.page.url
    score, comment = ALICE_MANUAL
    fg.grade(WRITTEN, score, comment)
    fg.page.locator(f"textarea#{WRITTEN}-comment").scroll_into_view_if_needed()
    shot(fg.page, "06_formgrade_alice")
    after = json.loads(hub.as_user(GRADER, GRADES, cwd=hub.course()).stdout)
    auto, _ = points()
    assert after["manual"] == pytest.approx(score) and not after["needs"] and after["comment"] == comment, after
    assert after["written"] == pytest.approx(score), after
    assert after["total"] == pytest.approx(sum(auto.values()) + score), after
    STATE["done"].add("formgrade")


def test_07_feedback(hub, pages):
    """The instructor generates and releases feedback; each student fetches their own (alice's with the
    instructor's comment); alice cannot list or guess bob's."""
    require("graded")
    fg = HubFormgrader(pages[INSTRUCTOR], hub)
    for column in ("generate-feedback", "release-feedback"):  # again: it now holds the manual grade
        ok, text = fg.action(column)
        shot(fg.page, f"07_{column}")
        assert ok, f"the formgrader's {column} failed:\n{text[-3000:]}"
        fg.close_modal()
    released = hub.exchange / COURSE / "feedback"
    assert mode(released) == "711", mode(released)
    assert len(list(released.glob("*.html"))) == 3, list(released.iterdir())
    for student in (ALICE, BOB):
        page = pages[student]
        page.goto(f"{hub.url}/user/{student}/lab?reset")
        wait_lab(page)
        tab = AssignmentsTab(LabPage(page, UserServer(hub, student), f"hub_{student}_feedback"))
        tab.open()
        tab.fetch_feedback()
        shot(page, f"07_{student}_feedback")
        files = sorted((hub.home(student) / ASSIGNMENT / "feedback").glob(f"*/{NOTEBOOK}.html"))
        assert len(files) == 1 and files[0].stat().st_uid == hub.uid(student), files
        if student == ALICE and "formgrade" in STATE["done"]:  # her fetched feedback, in her browser
            rel = files[0].relative_to(hub.home(student)).as_posix()
            text = page_text(page.context, f"{hub.url}/user/{student}/files/{rel}",
                             lambda view, who=student: shot(view, f"07_{who}_feedback_page"))
            header = feedback_header(sum(points()[0].values()) + ALICE_MANUAL[0])
            assert header in text, f"alice's feedback should say {header!r}; it starts:\n{text[:600]}"
            assert ALICE_MANUAL[1] in text, f"alice's feedback lacks the instructor's comment:\n{text[-2000:]}"
    bob_file = sorted((hub.home(BOB) / ASSIGNMENT / "feedback").glob(f"*/{NOTEBOOK}.html"))[0]
    course = hub.course()
    paths = {"released": str(released), "bob_fetched": str(bob_file),
             "autograded": str(course / "autograded"),
             "bob_autograded": str(course / "autograded" / BOB / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
             "feedback": str(course / "feedback"),
             "bob_feedback": str(course / "feedback" / BOB / ASSIGNMENT / f"{NOTEBOOK}.html")}
    for key in ("bob_autograded", "bob_feedback"):
        assert os.path.isfile(paths[key]), f"{key}: {paths[key]} is missing before the attempts"
    tries = json.loads(hub.as_user(ALICE, None, cmd=["-c", FEEDBACK_ATTEMPTS, json.dumps(paths)]).stdout)
    assert tries == dict.fromkeys(tries, "denied") and len(tries) == 7, json.dumps(tries, indent=1)


FEEDBACK_ATTEMPTS = TRY + r"""
attempt("list the released feedback", lambda: os.listdir(p["released"]))
attempt("find released feedback by name", lambda: must_be_empty(glob.glob(p["released"] + "/*.html")))
attempt("read bob's fetched feedback", lambda: open(p["bob_fetched"]).read(10))
attempt("list the course's autograded/", lambda: os.listdir(p["autograded"]))
attempt("read bob's autograded notebook", lambda: open(p["bob_autograded"]).read(10))
attempt("list the course's feedback/", lambda: os.listdir(p["feedback"]))
attempt("read bob's feedback in the course", lambda: open(p["bob_feedback"]).read(10))
print(json.dumps(out))
"""

