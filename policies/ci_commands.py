"""Text from the input never becomes a CI runner's command.

A CI runner reads every line a step prints and acts on some of them. GitHub's runner
(actions/runner: ``ActionCommand.TryParseV2`` then ``TryParse``, on each line of standard
output and standard error as .NET's ``StreamReader.ReadLine`` splits them: at ``\\r``,
``\\n`` and ``\\r\\n``) takes:

- **V2**, ``::name key=value,...::data``: when the line, with its leading white space
  removed (``String.TrimStart``: .NET's ``Char.IsWhiteSpace``, which includes U+00A0,
  U+2000..U+200A, U+3000 and more), starts with ``::``;
- **V1**, ``##[name key=value;...]data``: ``##[`` *anywhere* in the line.

A command name the runner knows (``error``, ``add-mask``, ``set-output``, ``stop-commands``
...) acts; ``stop-commands`` registers any token as a name, so any name is dangerous, and
the log viewer formats ``##[group]``, ``##[error]`` lines on its own. Azure Pipelines reads
``##vso[`` anywhere in a line too. A resource address, a ``for_each`` key, a tag value, a
waiver reason or a ``.tf`` file name is the pull request author's text, and each report
quotes such text; so every report is passed through :func:`neutralize` for its syntax
before it is written, and no line carries ``##[``, ``##vso[`` or a leading ``::`` that the
tool did not mean (its own annotations, the ``github`` format, are the only commands).

Each syntax writes the characters in a way its readers decode back to the same text where
the syntax allows it:

- ``json``: ``#`` as ``\\u0023`` (the same string once parsed);
- ``xml``: ``#`` as ``&#35;``, a leading ``:`` as ``&#58;``, a carriage return in text as
  ``&#13;`` (an XML reader would turn a raw one into a line feed);
- ``markdown``: ``#`` as ``\\#`` and a leading ``:`` as ``\\:`` (rendered as themselves);
- ``text`` (the text report, standard error): ``#`` as ``\\x23`` and a leading ``:`` as
  ``\\x3a``, the visible escapes terminal.escape uses for control characters.
"""
from __future__ import annotations

import re

# .NET Char.IsWhiteSpace: what String.TrimStart() removes before the runner looks for "::"
NET_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
             "\u200a\u2028\u2029\u202f\u205f\u3000")
# the runner's line breaks (StreamReader.ReadLine)
_LINES = re.compile(r"\r\n|\r|\n")
# "##" before "[" (GitHub V1, the log viewer) or "vso[" (Azure Pipelines): the second "#" is written escaped
_V1 = re.compile(r"(?<=#)#(?=\[|vso\[)", re.I)
_V2 = re.compile("^([%s]*):(?=:)" % re.escape(NET_SPACE))

_HASH = {"text": "\\x23", "json": "\\u0023", "xml": "&#35;", "markdown": "\\#"}
_COLON = {"text": "\\x3a", "json": "\\u003a", "xml": "&#58;", "markdown": "\\:"}


def neutralize_line(line: str, syntax: str = "text") -> str:
    """One line (no line break in it) with no runner command in it, in ``syntax``."""
    if "##" in line:
        line = _V1.sub(_HASH[syntax].replace("\\", "\\\\"), line)
    if "::" in line:
        m = _V2.match(line)
        if m:
            line = m.group(1) + _COLON[syntax] + line[m.end():]
    return line


def neutralize(text: str, syntax: str) -> str:
    """``text`` (a whole report) with every line neutralized (see the module's docstring).
    ``xml`` also writes a carriage return as ``&#13;``; the line breaks are kept as they are."""
    if syntax == "xml" and "\r" in text:
        text = text.replace("\r", "&#13;")
    if "#" not in text and ":" not in text:
        return text
    out = []
    pos = 0
    for m in _LINES.finditer(text):
        out.append(neutralize_line(text[pos:m.start()], syntax))
        out.append(m.group())
        pos = m.end()
    out.append(neutralize_line(text[pos:], syntax))
    return "".join(out)
