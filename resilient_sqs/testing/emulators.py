"""The emulators ``sqs-behave`` can start itself, by name: a module without the testing
extra's imports, so that the command line is read (and a wrong name refused) before the run
says which packages of the extra are missing."""
from __future__ import annotations

import difflib

EMBEDDED = "embedded"  # LocalStack, or "embedded:ministack"
EMBEDDED_KINDS = ("localstack", "ministack")
REAL_AWS = "aws"


def unknown_emulator(name: str, flag: str) -> str:
    """The message for an embedded emulator name that is not one: ``flag`` is how the user gave it
    (``--embedded=``, ``--emulator ``, ``--sqs-localstack=embedded:``)."""
    close = difflib.get_close_matches(name.lower(), EMBEDDED_KINDS, n=1, cutoff=0.6)
    return (f"{flag}{name}: not an embedded emulator; choose one of {', '.join(EMBEDDED_KINDS)}"
            + (f" (did you mean {close[0]}?)" if close else ""))
