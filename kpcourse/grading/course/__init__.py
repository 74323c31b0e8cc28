"""The course folder, the term and the gradebook: release, autograde, exchange, deadlines, grades.

- :mod:`.folder`: nbgrader's command line, assignments, submissions, release;
- :mod:`kpcourse.grading.course.autograding`: autograde in parallel, one gradebook;
- :mod:`kpcourse.grading.course.progress`: its progress line;
- :mod:`kpcourse.grading.course.exchange`: the collect that refuses forged owners and times;
- :mod:`kpcourse.grading.course.deadlines`: due dates, extensions, the submission time that counts;
- :mod:`kpcourse.grading.course.late`: the late policy;
- :mod:`kpcourse.grading.course.export`: grades for an LMS;
- :mod:`kpcourse.grading.course.edition`: the student edition.
"""
