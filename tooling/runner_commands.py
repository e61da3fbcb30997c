"""The GitHub runner's workflow-command grammar, as the runner parses a step's output.

Ported from actions/runner (src/Runner.Common/ActionCommand.cs: ``TryParseV2``, ``TryParse``;
src/Runner.Worker/Handlers/OutputManager.cs and ActionCommandManager.TryProcessCommand: V2
first, then V1, on each line; src/Runner.Sdk/ProcessInvoker.cs: lines as .NET's
``StreamReader.ReadLine`` gives them), so that a test can ask "which lines of this output
would the runner act on?" of the real grammar rather than of the checker's own idea of it:

- the output is decoded as UTF-8 (invalid bytes become U+FFFD) and split at ``\\r\\n``,
  ``\\r`` and ``\\n`` (a final line break ends the last line, it does not start an empty one);
- **V2**: the line, after ``TrimStart()`` (.NET white space), starts with ``::``; the command
  info runs to the next ``::`` (none: not a command); its name is up to the first space;
  properties ``k=v`` split at ``,`` (values unescaped ``%0D %0A %3A %2C %25``); the data
  follows (``%0D %0A %25``);
- **V1**: ``##[`` anywhere in the line, the command info up to the first ``]`` after it (none:
  not a command), name up to the first space, properties split at ``;``, data after ``]``;
- a name counts when the runner knows it (case-insensitive, :data:`KNOWN`); ``::stop-commands::TOKEN``
  makes any token a name until it is seen again, so :func:`commands` with ``registered=None``
  (the default) counts a command of any name: text the tool does not mean must hold none.

Also ``##vso[`` (Azure Pipelines' logging commands, also read anywhere in a line) is reported,
as version ``"vso"``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# every IActionCommandExtension.Command of src/Runner.Worker, and the stop command
KNOWN = frozenset({"add-mask", "add-matcher", "add-path", "debug", "echo", "endgroup", "error", "group",
                   "internal-set-repo-path", "notice", "remove-matcher", "save-state", "set-env", "set-output",
                   "warning", "stop-commands"})
# System.Char.IsWhiteSpace: Unicode Zs, Zl, Zp, and U+0009..U+000D, U+0085
NET_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                  "\u200a\u2028\u2029\u202f\u205f\u3000")


@dataclass
class Command:
    version: str  # "v2", "v1" or "vso"
    name: str
    properties: dict = field(default_factory=dict)
    data: str = ""
    line: int = 0  # 1-based line number in the output
    text: str = ""  # the whole line


def lines(output: bytes | str) -> list[str]:
    """The lines of a step's output as the runner reads them."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    out = re.split(r"\r\n|\r|\n", text)
    if out and out[-1] == "" and text:
        out.pop()
    return out


def _unescape(s: str, table: tuple) -> str:
    for token, rep in table:
        s = s.replace(rep, token)
    return s


_V1_ESC = ((";", "%3B"), ("\r", "%0D"), ("\n", "%0A"), ("]", "%5D"), ("%", "%25"))
_V2_DATA = (("\r", "%0D"), ("\n", "%0A"), ("%", "%25"))
_V2_PROP = (("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C"), ("%", "%25"))


def _known(name: str, registered) -> bool:
    return registered is None or name.lower() in registered


def parse_v2(line: str, registered=KNOWN) -> Command | None:
    message = line.lstrip(NET_WHITESPACE)
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    info = message[2:end]
    sp = info.find(" ")
    name = info if sp < 0 else info[:sp]
    if not _known(name, registered):
        return None
    cmd = Command("v2", name)
    if sp > 0:
        for prop in [p for p in info[sp + 1:].strip().split(",") if p]:
            pair = [x for x in prop.split("=", 1) if x]
            if len(pair) == 2:
                cmd.properties[pair[0]] = _unescape(pair[1], _V2_PROP)
    cmd.data = _unescape(message[end + 2:], _V2_DATA)
    return cmd


def parse_v1(line: str, registered=KNOWN, prefix: str = "##[") -> Command | None:
    i = line.find(prefix)
    if i < 0:
        return None
    rb = line.find("]", i)
    if rb < 0:
        return None
    info = line[i + len(prefix):rb]
    sp = info.find(" ")
    name = info if sp < 0 else info[:sp]
    if not _known(name, registered):
        return None
    cmd = Command("v1" if prefix == "##[" else "vso", name)
    if sp > 0:
        for prop in [p for p in info[sp + 1:].split(";") if p]:
            pair = [x for x in prop.split("=", 1) if x]
            if len(pair) == 2:
                cmd.properties[pair[0]] = _unescape(pair[1], _V1_ESC)
    cmd.data = _unescape(line[rb + 1:], _V1_ESC)
    return cmd


def commands(output: bytes | str, registered=None) -> list[Command]:
    """Every line of ``output`` the runner would take as a command (V2 first, then V1), and
    every Azure ``##vso[`` command. ``registered=None``: any name counts (see the docstring);
    pass :data:`KNOWN` for the names a fresh runner knows."""
    out = []
    for n, line in enumerate(lines(output), 1):
        if "::" not in line and "##" not in line.lower():
            continue
        cmd = parse_v2(line, registered) or parse_v1(line, registered)
        if cmd is None:
            low = line.lower()
            j = low.find("##vso[")
            if j >= 0:
                cmd = parse_v1(line[:j] + "##vso[" + line[j + 6:], None, "##vso[")
        if cmd is not None:
            cmd.line, cmd.text = n, line
            out.append(cmd)
    return out


def hazards(output: bytes | str, allowed=lambda line: False) -> list[tuple[int, str]]:
    """(line number, line) of every line that carries what the runner (or Azure's agent) looks
    for, whether or not it parses as a command today: ``##[`` or ``##vso[`` anywhere, ``::``
    at the start after white space. ``allowed(line)``: the tool's own command lines."""
    out = []
    for n, line in enumerate(lines(output), 1):
        low = line.lower()
        if ("##[" in low or "##vso[" in low or line.lstrip(NET_WHITESPACE).startswith("::")) and not allowed(line):
            out.append((n, line))
    return out
