"""A student's notebook made inert for a browser: what it shows is text, never a script.

The autograded notebook is what the formgrader renders for the instructor and what feedback is
made from, so it is made inert once, in the autograde (and again when feedback is generated,
for notebooks autograded before this step existed). By construction, from allow-lists:

- **Outputs** of code cells keep ``text/plain`` and base64 PNG or JPEG images only. HTML,
  JavaScript, SVG, Markdown, LaTeX, widget views and any other type are dropped; when nothing
  printable is left, the first dropped one is shown as text (``text/plain`` is escaped by every
  renderer). Output metadata (image sizes, filenames) is dropped: templates put it in attributes.
- **Markdown cells** stay Markdown only when every element of their syntax tree, parsed with the
  parser nbconvert renders with, is on :data:`SAFE_MARKDOWN` (text, emphasis, lists, tables, code,
  math, headings, quotes), links go to ``http(s)``, ``mailto`` or a relative address, images to
  ``http(s)`` or to a PNG or JPEG attachment, and math names no command of :data:`UNSAFE_TEX`. A cell
  with raw HTML, a Mermaid block, a ``javascript:`` link or anything unknown is shown as a fenced
  block of text with a note saying why: nothing an instructor opens can run it.
- **Raw cells** (which HTML exporters may copy verbatim) become such text blocks too.

Stream text, tracebacks and code are escaped by nbconvert and the formgrader already. This module
imports nbconvert's Markdown parser only when it parses.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

__all__ = ["make_inert", "inert_outputs", "markdown_hazards", "as_text", "SAFE_MARKDOWN", "SAFE_OUTPUTS",
           "UNSAFE_TEX"]

#: Output types kept as they are (images only when their data is valid base64).
SAFE_OUTPUTS = ("text/plain", "image/png", "image/jpeg")
#: Elements of nbconvert's Markdown syntax tree (mistune 3 with its math plugins) rendered as
#: escaped text or as fixed tags; links, images and code blocks are checked further.
SAFE_MARKDOWN = frozenset({
    "paragraph", "text", "blank_line", "softbreak", "linebreak", "heading", "emphasis", "strong",
    "codespan", "strikethrough", "block_text", "block_quote", "thematic_break", "list", "list_item",
    "task_list_item", "table", "table_head", "table_body", "table_row", "table_cell", "def_list",
    "def_list_head", "def_list_item", "inline_math", "block_math", "multiline_math",
    "latex_environment", "block_code", "link", "image"})
#: TeX commands with which MathJax makes links, loads extensions or writes attributes.
UNSAFE_TEX = ("href", "url", "unicode", "require", "class", "cssId", "style", "html", "data")
_TEX = re.compile(r"\\(" + "|".join(UNSAFE_TEX) + r")(?![A-Za-z])")
_URL = re.compile(r"[^\s\"'<>`\\\x00-\x1f\x7f]*")
_SAFE_SCHEME = re.compile(r"(?i)(https?://|mailto:|#)")
NOTE = "*This cell held {what}, which a browser could run; it is shown as text.*"


def _base64(data):
    """Whether ``data`` is base64 text (line breaks allowed): nothing else, no quote, no tag."""
    if not isinstance(data, str):
        return False
    try:
        base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _url_hazard(url, *, image=False, attachments=None):
    if not isinstance(url, str) or not _URL.fullmatch(url):
        return "an address with spaces, quotes or control characters"
    if image and url.startswith("attachment:"):
        bundle = (attachments or {}).get(url[len("attachment:"):])
        if (isinstance(bundle, dict) and bundle and set(bundle) <= {"image/png", "image/jpeg"}
                and all(_base64(v) for v in bundle.values())):
            return None
        return "an attachment that is not a PNG or JPEG image"
    if _SAFE_SCHEME.match(url) and not (image and url.startswith(("#", "mailto:"))):
        return None
    head = url.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if ":" in head:  # a scheme other than the safe ones (javascript:, data:, vbscript:, ...)
        return f"a link to {head.split(':', 1)[0]}:"
    return None


def markdown_hazards(source, attachments=None):
    """Why the Markdown ``source`` is not safe to render as Markdown; ``[]`` when it is.

    Parameters
    ----------
    source : str
        A Markdown cell's source.
    attachments : dict or None, default=None
        The cell's ``attachments`` (name -> {mime type: base64 data}).

    Returns
    -------
    list of str
        One phrase per kind of hazard found, in the order first met.
    """
    from nbconvert.filters.markdown_mistune import MarkdownWithMath

    try:
        tokens, _ = MarkdownWithMath(renderer=None).parse(source)
    except Exception as exc:  # noqa: BLE001 - a parser failure is a hazard: fail closed
        return [f"Markdown that could not be parsed ({type(exc).__name__})"]
    found, stack = [], list(tokens)
    while stack:
        tok = stack.pop()
        kind, attrs = tok.get("type"), tok.get("attrs") or {}
        if kind not in SAFE_MARKDOWN:
            found.append("raw HTML" if kind in ("block_html", "inline_html") else f"Markdown of kind {kind!r}")
        elif kind in ("link", "image"):
            reason = _url_hazard(attrs.get("url"), image=kind == "image", attachments=attachments)
            if reason:
                found.append(reason)
        elif kind == "block_code" and str(attrs.get("info") or "").strip().lower().startswith("mermaid"):
            found.append("a Mermaid diagram (rendered as raw HTML)")
        elif kind in ("inline_math", "block_math", "multiline_math", "latex_environment"):
            tex = " ".join(str(v) for v in (tok.get("raw"), attrs.get("name"), attrs.get("body")) if v)
            if _TEX.search(tex):
                found.append(f"a TeX command MathJax runs ({_TEX.search(tex).group(0)})")
        stack.extend(reversed(tok.get("children") or []))
    return list(dict.fromkeys(found))


def as_text(source, what):
    """Markdown that shows ``source`` verbatim in a fenced block, after a note naming ``what``."""
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", source)), default=0))
    return f"{NOTE.format(what=what)}\n\n{fence}\n{source}\n{fence}"


def inert_outputs(outputs):
    """Keep only :data:`SAFE_OUTPUTS` in ``outputs`` (nbformat output dicts, changed in place).

    Returns the names of the output types dropped (one per output and type).
    """
    dropped = []
    for i, out in enumerate(outputs):
        kind = out.get("output_type")
        if kind in ("stream", "error"):
            continue
        if kind not in ("display_data", "execute_result"):
            outputs[i] = {"output_type": "stream", "name": "stdout",
                          "text": f"[an output of type {str(kind)[:40]!r}, not shown]\n"}
            dropped.append(str(kind))
            continue
        data = out.get("data") or {}
        kept = {}
        for mime, value in data.items():
            if isinstance(value, str) if mime == "text/plain" else mime in SAFE_OUTPUTS and _base64(value):
                kept[mime] = value
            else:
                dropped.append(mime)
        if not kept:
            first = next((m for m in data if m not in kept), None)
            if first is not None:
                value = data[first] if isinstance(data[first], str) else json.dumps(data[first])
                kept["text/plain"] = f"[{first} output, shown as text]\n{value}"
        out["data"] = kept
        out["metadata"] = {}
    return dropped


def make_inert(nb):
    """Make every cell of ``nb`` (an nbformat notebook, changed in place) inert for a browser.

    Returns what changed, one line each (empty when nothing could run).
    """
    changes = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            dropped = inert_outputs(cell.get("outputs", []))
            if dropped:
                changes.append(f"cell {i}: outputs shown as text only (dropped {', '.join(sorted(set(dropped)))})")
        elif cell.cell_type == "markdown":
            hazards = markdown_hazards(cell.source, cell.get("attachments"))
            if hazards:
                cell.source = as_text(cell.source, "; ".join(hazards))
                cell.pop("attachments", None)
                changes.append(f"cell {i}: Markdown shown as text ({'; '.join(hazards)})")
        else:  # raw cells, and any other kind: text
            cell.cell_type = "markdown"
            cell.source = as_text(str(cell.get("source", "")), "raw text that an HTML export copies as it is")
            for key in list(cell):
                if key not in ("cell_type", "id", "metadata", "source"):
                    del cell[key]
            cell.metadata.pop("format", None)
            cell.metadata.pop("raw_mimetype", None)
            changes.append(f"cell {i}: raw cell shown as text")
    return changes
