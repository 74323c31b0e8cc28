"""kpcourse: helpers for a course on kernel perceptrons.

Modules, one idea each: ``kernels`` (similarity functions), ``gram`` (Gram matrices
at scale), ``perceptron`` (primal and kernel perceptrons), ``datasets`` (course data),
``plotting``, ``widgets``, ``checks`` (student feedback) and ``syllabus`` (the course's rules). Importing the package
loads none of them: ``from kpcourse.perceptron import Perceptron``.
"""

__version__ = "0.1.0"
