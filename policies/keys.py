"""Stable identity of a finding, for baselines and report fingerprints.

A finding is identified by its rule, the address of the resource it is about (``for_each``
and ``count`` instances as Terraform writes them), and *what* is wrong: whether the rule
failed or could not decide, and the other resources the finding is about (the mapping whose
consumer outlasts the visibility timeout, the alarm's topic, ...). The message text is not part
of it, nor are the numbers in it: rewording a message, or changing a value that is still wrong,
keeps the key; fixing the link to another resource, or the resource's address, changes it.
"""
from __future__ import annotations

import hashlib
import re

# a resource address inside a message: module path, optional data., an AWS resource type, a name, an index
_ADDRESS = re.compile(
    r'(?:module\.[A-Za-z0-9_-]+(?:\[(?:"[^"]*"|[0-9]+)\])?\.)*(?:data\.)?aws_[a-z0-9_]+\.[A-Za-z_][A-Za-z0-9_-]*'
    r'(?:\[(?:"[^"]*"|[0-9]+)\])?')


def related_addresses(message: str, subject: str) -> list[str]:
    """Resource addresses a message names besides its subject, sorted, without repeats."""
    return sorted({a for a in _ADDRESS.findall(message or "") if a != subject})


def kind(finding) -> str:
    return "unknown" if getattr(finding, "undecided", False) else "fail"


def finding_key(finding) -> tuple[str, str, str, tuple[str, ...]]:
    """(rule, address, kind, related addresses)."""
    return (finding.rule_id, finding.address, kind(finding), tuple(related_addresses(finding.message, finding.address)))


def fingerprint(key: tuple, occurrence: int = 0) -> str:
    """A hex digest of a key (and of its occurrence, for two findings with the same key)."""
    rule, address, k, related = key
    text = "\x1f".join([rule, address, k, *related]) + (f"\x1e{occurrence}" if occurrence else "")
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
