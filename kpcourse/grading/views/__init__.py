"""What a graded notebook shows, and the reports built from the verdicts.

- :mod:`kpcourse.grading.views.plugins`: ScrubHiddenTests, MakeInert;
- :mod:`kpcourse.grading.views.inert`: outputs, Markdown and raw cells made text;
- :mod:`kpcourse.grading.views.report`: the class report.
"""
