"""Wildcard matching without backtracking blow-ups (waiver addresses, IAM resource patterns).

A regular expression built from a pattern with many ``*`` (``a*****b``, ``*.*.*.*``)
backtracks exponentially on a near miss. This matcher is the classic greedy
two-pointer algorithm: it remembers only the last ``*`` and so runs in
O(len(pattern) x len(text)) at worst, whatever the pattern.
"""
from __future__ import annotations


def match(pattern: str, text: str, any_char: bool = False) -> bool:
    """Whether ``text`` matches ``pattern`` in full: ``*`` matches any run of characters;
    with ``any_char``, ``?`` matches one character (IAM); everything else is literal."""
    p = t = 0
    star = -1
    mark = 0
    np, nt = len(pattern), len(text)
    while t < nt:
        if p < np and (pattern[p] == text[t] and pattern[p] != "*" or (any_char and pattern[p] == "?")):
            p += 1
            t += 1
        elif p < np and pattern[p] == "*":
            while p < np and pattern[p] == "*":
                p += 1
            star, mark = p, t
        elif star >= 0:
            mark += 1
            t = mark
            p = star
        else:
            return False
    while p < np and pattern[p] == "*":
        p += 1
    return p == np
