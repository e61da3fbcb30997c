"""Text that came from the input, made safe to show on a terminal.

A plan, a configuration source or a config file can hold any character in an
address, a name, a policy string, a waiver reason or a path. Shown raw, ESC
sequences move the cursor, erase lines and set the window title, a newline
starts a line that looks like ours (a fake summary), U+202E reverses what
follows, BEL rings. :func:`escape` writes every such character as a visible
escape (``\\x1b``, ``\\n``, ``\\u202e``), so one line of input stays one line of
output and reads as what it is. Used by the text report and every line on
standard error (the JSON and SARIF encoders escape on their own).
"""
from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls and DEL; line and paragraph separators; the Unicode "format"
# characters (bidirectional embeddings, overrides and isolates, marks, zero-width
# characters) and lone surrogates, found by category so that none is missed.
_PLAIN = re.compile(r"[\x20-\x7e]*\Z")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _escape_char(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    n = ord(ch)
    if n <= 0xFF:
        return f"\\x{n:02x}"
    if n <= 0xFFFF:
        return f"\\u{n:04x}"
    return f"\\U{n:08x}"


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in _CATEGORIES


def escape(text: str) -> str:
    """``text`` with every control, format (bidi), separator, surrogate, private-use or
    unassigned character written as a visible escape; printable text is unchanged."""
    if _PLAIN.match(text):
        return text
    return "".join(_escape_char(c) if _unsafe(c) else c for c in text)


def line(text: str) -> str:
    """One line of output from ``text`` that may quote the input: escaped (:func:`escape`,
    so no line break is left in it) and with no CI runner command in it (ci_commands.py)."""
    from .ci_commands import neutralize_line

    return neutralize_line(escape(text), "text")
