"""``python -m kpcourse.grading``: see :func:`kpcourse.grading.commands.main`."""

import sys

from kpcourse.grading.commands import main

sys.exit(main())
