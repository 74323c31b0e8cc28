"""``make student-edition`` (kpcourse.grading.course.edition): the folder a course hands to its students holds the
start page, the lectures, the released assignments and the package, and nothing of the instructor's."""

import json
import re
from pathlib import Path

import pytest

from kpcourse.grading.course import edition

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    out = tmp_path_factory.mktemp("edition") / "kpcourse-student"
    edition.write(ROOT, out)
    return out


def test_it_holds_what_a_student_needs(student):
    assert (student / "notebooks" / "00-start-here.ipynb").is_file()
    lectures = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert lectures == {p.name for p in (student / "notebooks").glob("*.ipynb")}
    for folder in (ROOT / "release").iterdir():
        assert (student / "release" / folder.name / f"{folder.name}.ipynb").is_file(), folder.name
    assert (student / "kpcourse" / "checks" / "__init__.py").is_file()
    assert (student / "pyproject.toml").is_file() and (student / "constraints.txt").is_file()
    assert "student edition" in (student / "README.md").read_text()


def test_nothing_of_the_instructors_goes_with_it(student):
    names = {p.relative_to(student).as_posix() for p in student.rglob("*") if p.is_file()}
    assert not any(n.startswith(("source/", "tests/", ".ci/")) for n in names), sorted(names)[:20]
    assert not any(Path(n).name in ("grader.py", "references.py", "gradebook.db", "nbgrader_config.py")
                   for n in names)
    for path in student.rglob("*.ipynb"):  # (the package names the markers: it strips them)
        text = path.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, path


def test_every_link_of_the_lectures_to_a_file_of_the_course_resolves(student):
    """A lecture links to the benchmark results (lesson 05 on): the file is there for a student."""
    links = 0
    for nb_path in (student / "notebooks").glob("*.ipynb"):
        for cell in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for target in re.findall(r"\]\((\.\./[^)#\s]+)", "".join(cell["source"])):
                links += 1
                assert (nb_path.parent / target).resolve().is_file(), (nb_path.name, target)
    assert links > 0


def test_an_edition_is_written_whole_and_outside_the_course(student, tmp_path):
    with pytest.raises(FileExistsError):
        edition.write(ROOT, student)
    with pytest.raises(ValueError, match="outside the course folder"):
        edition.write(ROOT, ROOT / "student-edition")
