"""A progress line for a long grading run: submissions done / total, the rate, the time left."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress", "format_progress", "clock"]


def clock(seconds):
    """``M:SS`` or ``H:MM:SS``."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def format_progress(done, total, elapsed, width=24):
    """One progress line: ``[#####-------]  12/200   6%  3.4/min  ETA 55:17``.

    Parameters
    ----------
    done, total : int
        Submissions graded so far, and in all.
    elapsed : float
        Seconds since grading started.
    width : int, default=24
        Characters of the bar; 0 leaves the bar out.

    Returns
    -------
    str
        The rate is ``done / elapsed`` in submissions per minute; the ETA is the
        submissions left at that rate (``?`` before the first one is done).
    """
    share = done / total if total else 1.0
    bar = f"[{'#' * int(width * share):-<{width}}] " if width else ""
    rate = 60 * done / elapsed if done and elapsed > 0 else 0.0
    eta = clock((total - done) * 60 / rate) if rate else "?"
    return (f"{bar}{done:>{len(str(total))}}/{total} {100 * share:3.0f}%  "
            f"{rate:.1f}/min  ETA {eta}")


class Progress:
    """Submissions done / total, rate and ETA, written to ``stream`` (default stderr).

    On a terminal the line is redrawn in place; anywhere else (a log file, CI) one
    line is written per submission. :meth:`clear` removes the terminal line so that
    another message can be printed above it.
    """

    def __init__(self, total, stream=None, clock=time.monotonic, tty=None):
        self.total, self.done, self.clock = total, 0, clock
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.start = clock()

    def step(self, label=""):
        """One more submission done; show the new state."""
        self.done += 1
        sys.stdout.flush()  # the messages printed before this line come first in a shared log
        line = format_progress(self.done, self.total, self.clock() - self.start, width=24 if self.tty else 0)
        if self.tty:
            self.stream.write(f"\r\x1b[K{line}" + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(f"progress {line}  ({label})\n" if label else f"progress {line}\n")
        self.stream.flush()

    def clear(self):
        """Erase the terminal line (nothing to do elsewhere)."""
        if self.tty and self.done < self.total:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
