"""A submission that tries to run its own script in the browser of whoever opens it.

Every payload sets ``window.kpcourse_ran`` (and most also open a dialog), each by another road:
an HTML output (``<script>``, an ``onerror``), a JavaScript output, an SVG output, a Markdown
output, an image whose data breaks out of its attribute, a TeX link, a Markdown cell with raw HTML,
a ``javascript:`` link and a Mermaid block, a raw cell, and the written answer. The code needs no
import: IPython shows whatever ``_repr_mimebundle_`` returns. Used by the pipeline
(``test_pipeline.py``, the ``hostile-output`` case of every assignment), by the inert-feedback
unit tests and by the browser test of the exchange.
"""

from __future__ import annotations

import html.parser

import nbformat

MARKER = "kpcourse_ran"


def _run(tag):
    return f"window.{MARKER}='{tag}';alert('{MARKER} {tag}')"


CODE = f'''class Shown:
    """Outputs of every kind a notebook front end can show."""

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {{
            "text/html": "<b>bold</b><img src=x onerror=\\"{_run('html')}\\"><script>{_run('script')}</script>",
            "application/javascript": "{_run('js')}",
            "image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' onload=\\"{_run('svg')}\\"></svg>",
            "text/markdown": "<img src=x onerror=\\"{_run('md-output')}\\">",
            "image/png": "AAAA\\" onerror=\\"{_run('png')}",
            "text/latex": "$\\\\href{{javascript:{_run('tex')}}}{{x}}$",
        }}


Shown()'''

MARKDOWN = (f'My notes <img src=x onerror="{_run("markdown")}"> and <script>{_run("md-script")}</script>.\n\n'
            f"[a link](javascript:{_run('link')})\n\n```mermaid\n<img src=x onerror=\"{_run('mermaid')}\">\n```\n")
RAW = f'<script>{_run("raw")}</script><img src=x onerror="{_run("raw-img")}">'
WRITTEN = f'An answer <svg onload="{_run("written")}"></svg> with <b>markup</b>.'


def add_to(nb, written_ids=()):
    """``nb`` with the hostile cells appended and each written answer in ``written_ids`` replaced."""
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in written_ids:
            cell.source = WRITTEN
    raw = nbformat.v4.new_raw_cell(RAW)
    raw.metadata["raw_mimetype"] = "text/html"
    nb.cells += [nbformat.v4.new_code_cell(CODE), nbformat.v4.new_markdown_cell(MARKDOWN), raw]
    return nb


class _Places(html.parser.HTMLParser):
    """Where :data:`MARKER` occurs in a page: inside a tag, a script or a style, or as text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.live, self.text, self._in = [], 0, None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if MARKER in (value or "") or MARKER in name:
                self.live.append(f"<{tag} {name}=...>")
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if MARKER in data:
            if self._in:
                self.live.append(f"<{self._in}> content")
            else:
                self.text += 1

    def handle_comment(self, data):
        if MARKER in data:
            self.live.append("a comment")


def live_payloads(page):
    """The places where a payload could run in the HTML ``page``: a tag's attribute, a script or
    style; ``[]`` when the marker only ever appears as text."""
    parser = _Places()
    parser.feed(page)
    parser.close()
    return parser.live
