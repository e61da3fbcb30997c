"""The one error type the CLI turns into exit code 2 and a single line."""


class InputError(Exception):
    """Bad input or usage: the message says what is wrong and what to do."""
