"""The readers CI puts sqs-policy's reports in front of, each asked what it makes of a report:

- the GitHub runner's workflow-command grammar (tooling.runner_commands), for every output
  that can reach a job log (any format on standard output, standard error);
- cmark-gfm (the ``cmarkgfm`` package: GitHub's own fork of cmark, with the GFM extensions
  GitHub enables: table, autolink, strikethrough, tagfilter, tasklist), for the Markdown
  report in a job summary or a PR comment; rendered with raw HTML allowed (GitHub renders so,
  then sanitizes), and every element checked against the ones the report means to produce;
- lxml and the standard library's ElementTree for JUnit XML; ``json`` for JSON, SARIF and
  GitLab Code Quality (and strict UTF-8: no unpaired surrogate in a string).

Each ``check_*`` returns a list of problems (empty: the consumer reads the report as meant).
"""
from __future__ import annotations

import json
import re

from tooling import runner_commands

# what the markdown format produces: headings of its own, the findings table, <br>, <code>,
# the folded <details>, bold verdict, the note quotes, the Mermaid block
MARKDOWN_TAGS = {"h3", "h4", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "details",
                 "summary", "blockquote", "pre"}
TABLE_COLUMNS = 5
_MENTION = re.compile(r"(?:^|[^A-Za-z0-9_`])@[A-Za-z0-9]")


def own_annotation(line: str) -> bool:
    """A line of the ``github`` format: one of the tool's own annotations."""
    cmd = runner_commands.parse_v2(line, None)
    return (cmd is not None and cmd.name in ("error", "warning", "notice")
            and set(cmd.properties) <= {"file", "line", "title"} and line.startswith(f"::{cmd.name} "))


def check_runner(output: bytes | str, fmt: str) -> list[str]:
    """No line the runner would act on, but the tool's own annotations in the github format
    (``fmt`` "log": a job log, where they are among the other outputs' lines)."""
    problems = []
    allowed = own_annotation if fmt in ("github", "log") else (lambda line: False)
    for n, line in runner_commands.hazards(output, allowed):
        problems.append(f"{fmt}: line {n} is a runner command: {line[:160]!r}")
    for cmd in runner_commands.commands(output):
        if fmt not in ("github", "log") or cmd.version != "v2" or not own_annotation(cmd.text):
            problems.append(f"{fmt}: line {cmd.line} parses as ##[{cmd.name}] ({cmd.version}): {cmd.text[:160]!r}")
    if fmt == "github":
        lines = runner_commands.lines(output)
        if len(runner_commands.commands(output)) != len(lines):
            problems.append(f"github: {len(lines)} lines but {len(runner_commands.commands(output))} commands")
    return problems


def markdown_html(md: str) -> str:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)


def _tree(html: str):
    import lxml.html

    return lxml.html.fragment_fromstring(html, create_parent="div")


def markdown_rows(md: str) -> list[list[str]]:
    """The findings tables' rows as cmark-gfm renders them: each cell's text."""
    root = _tree(markdown_html(md))
    return [[td.text_content() for td in tr.findall("td")] for tr in root.iter("tr") if tr.findall("td")]


def check_markdown(md: str, expect_rows: int | None = None) -> list[str]:
    """The rendered report has only the report's own elements: no link, image, raw HTML or
    heading from a value, every table row has its five cells (nothing left a cell), no
    ``@mention`` or e-mail autolink outside code; ``expect_rows``: the rows there must be."""
    problems = []
    html = markdown_html(md)
    root = _tree(html)
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag == "div":
            continue
        if el.tag not in MARKDOWN_TAGS:
            problems.append(f"markdown: renders a <{el.tag}> element: {_snippet(el)}")
    for tag in ("h3", "h4"):
        n = len(root.findall(f".//{tag}"))
        if n > 1:
            problems.append(f"markdown: {n} <{tag}> headings (one is the report's)")
    rows = [tr for tr in root.iter("tr") if tr.findall("td")]
    for tr in rows:
        cells = tr.findall("td")
        if len(cells) != TABLE_COLUMNS:
            problems.append(f"markdown: a table row has {len(cells)} cells, not {TABLE_COLUMNS}: {_snippet(tr)}")
    if expect_rows is not None and len(rows) != expect_rows:
        problems.append(f"markdown: {len(rows)} table rows, {expect_rows} expected")
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag in ("code", "pre"):
            continue
        for text in (el.text, *(c.tail for c in el)):
            if text and _MENTION.search(text):
                problems.append(f"markdown: an @mention or e-mail outside code: {text[:120]!r}")
    return problems


def check_markdown_cells(md: str, findings: list[tuple[str, str]]) -> list[str]:
    """Each value stayed in its cell: every rendered row holds one finding's address (Resource
    cell) and message (Problem cell) exactly, as the text report shows them (terminal.escape);
    ``findings``: (address, message) of the report's findings (the JSON report's)."""
    from resilient_sqs.policy.terminal import escape

    def norm(s: str) -> str:  # the JSON reports write an unpaired surrogate as U+FFFD, the others escape it
        return re.sub(r"\\ud[89a-f][0-9a-f]{2}", "\ufffd", escape(s))

    by_message: dict[str, list[str]] = {}
    for address, message in findings:
        by_message.setdefault(norm(message), []).append(norm(address))
    problems = []
    for i, row in enumerate(r for r in markdown_rows(md) if r[0]):
        cell = norm(row[2])
        if not any(cell.startswith(a) for a in by_message.get(norm(row[3]), ())):
            problems.append(f"markdown: row {i} does not hold a finding's address and message as text: "
                            f"{row[2][:80]!r} / {row[3][:80]!r}")
            break
    return problems


def _snippet(el) -> str:
    import lxml.html

    return lxml.html.tostring(el, encoding="unicode")[:160]


def mermaid_blocks(md: str) -> list[str]:
    return [b.split("```", 1)[0] for b in md.split("```mermaid\n")[1:]]


def check_mermaid_text(md: str) -> list[str]:
    """What Mermaid reads besides the graph: a directive (%%{...}%%, read anywhere in the
    text), a comment line, a click/href statement; and the size limit (maxTextSize)."""
    problems = []
    for block in mermaid_blocks(md):
        if len(block) > 50_000:
            problems.append(f"mermaid: the diagram has {len(block)} characters, over maxTextSize 50,000")
        if "%%" in block:
            problems.append("mermaid: %% (a directive or comment) in the diagram")
        for line in block.splitlines():
            if re.match(r"\s*(click|href|call|style|classDef|class|linkStyle|subgraph|end|flowchart|graph)\b",
                        line) and not re.match(
                    r'(flowchart LR|  subgraph g\d+\[|  end$|  classDef fail |  class [n0-9,]+ fail$|  linkStyle [0-9,]+ )',
                    line):
                problems.append(f"mermaid: a statement that is not the diagram's own: {line[:120]!r}")
    return problems


def check_xml(text: str) -> list[str]:
    import xml.etree.ElementTree as ET

    import lxml.etree

    problems = []
    data = text.encode("utf-8", "surrogatepass")
    try:
        lxml.etree.fromstring(data)
    except lxml.etree.XMLSyntaxError as e:
        problems.append(f"junit: lxml cannot parse it: {e}")
    try:
        ET.fromstring(data)
    except ET.ParseError as e:
        problems.append(f"junit: ElementTree cannot parse it: {e}")
    return problems


def _strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)


def check_json(text: str, fmt: str) -> list[str]:
    try:
        doc = json.loads(text)
    except ValueError as e:
        return [f"{fmt}: not JSON: {e}"]
    for s in _strings(doc):
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return [f"{fmt}: a string holds an unpaired surrogate: {s[:80]!r}"]
    return []


def check_report(fmt: str, text: str) -> list[str]:
    """Every consumer of a report in ``fmt``."""
    problems = check_runner(text, fmt)
    if fmt == "junit":
        problems += check_xml(text)
    elif fmt in ("json", "sarif", "gitlab", "spacelift", "hcp-run-task"):
        problems += check_json(text, fmt)
    elif fmt == "markdown":
        problems += check_markdown(text) + check_mermaid_text(text)
    return problems


# Atlantis' reading of a custom policy check's output (runatlantis/atlantis at 078d0a8,
# server/events/project_command_runner.go, the custom_policy_check branch, and
# server/events/models/models.go, PolicyCheckResults.Summary): it fails the policy set when the
# output matches the failure expression or starts with FAIL (after trimming), an empty output
# included; the PR comment's summary is the first match of the conftest-form expression.
_ATLANTIS_FAILURE = re.compile(r"([1-9][0-9]* failure|failures\": \[)")
_ATLANTIS_SUMMARY = re.compile(r"\d+ tests?, \d+ passed, \d+ warnings?, \d+ failures?, \d+ exceptions?(, \d skipped)?")


def atlantis_policy_set(output: str) -> tuple[bool, str]:
    """(passed, summary line) as Atlantis reads a custom policy tool's output (Go's regexp and
    Python's agree on these expressions: no backtracking-only syntax in them)."""
    if output == "":
        return False, ""
    passed = not _ATLANTIS_FAILURE.search(output) and not output.strip().startswith("FAIL")
    m = _ATLANTIS_SUMMARY.search(output)
    return passed, m.group(0) if m else ""
