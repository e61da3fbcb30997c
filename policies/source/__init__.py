"""What the plan leaves unknown, read from the configuration source the plan came from.

A redrive policy written ``jsonencode({deadLetterTargetArn = aws_sqs_queue.dlq.arn,
maxReceiveCount = 5})`` is unknown in the plan of a new queue: the whole string
waits for the DLQ's ARN. The plan's ``configuration`` section only lists what
the expression references. The source has the rest. :class:`Source` parses the
``.tf`` files of the root module and of the module calls (found through
``.terraform/modules/modules.json`` after ``terraform init``, or local paths),
with python-hcl2, only when an unknown attribute asks for it, and evaluates the
expression partially: literals, templates, heredocs, ``jsonencode``, object and
tuple constructors, ``local.*``, ``var.*`` (the plan's variables, module
inputs), ``each``/``count`` per instance, attributes the plan knows, and common
functions. A reference to a value known only after apply becomes a
:class:`Pending` placeholder naming the resource; anything not evaluated an
:class:`Unknown` carrying the reason. Nothing is guessed.

The source is checked against the plan before use: the declarations of each
module directory must be those of the plan's configuration, the references of
each expression those the plan recorded, and the known scalar attributes of
the resource must evaluate to the planned values. When the source is missing or
does not match, :attr:`Source.notes` says so once and the caller keeps the
plan's unknown.

The package, by job (each module imports only those above it):

- ``values``: partial values (``Unknown``, ``Pending``, ``Template``, ``JsonText``) and plain conversions;
- ``tree``: the parsed HCL files of a module directory, ``SourceRef``, evaluation errors and budget;
- ``templates``: strings, escapes, heredocs;
- ``refs``: an expression's references as the plan lists them (the source is used only when they agree);
- ``scope``: what a reference evaluates to (lazy resources, modules, namespaces) and ``Scope``;
- ``functions``: value helpers and the Terraform function library (``yamldecode``: Terraform's
  YAML reading, bounded);
- ``filefns``: the file functions (``file``, ``templatefile``, ``fileexists``, ``fileset``), for
  regular files inside the source directories;
- ``evaluator``: the partial evaluator;
- ``reader``: ``Source``, the facade the model's resolver asks.
"""
from __future__ import annotations

from .reader import Source
from .tree import MAX_STEPS, Evaluated, ModuleSource, SourceRef
from .values import (JsonText, Pending, PendingText, Template, Unknown, decode_json, first_unknown, is_unknown,
                     placeholders, settled, to_plain)

__all__ = ["MAX_STEPS", "Evaluated", "JsonText", "ModuleSource", "Pending", "PendingText", "Source", "SourceRef",
           "Template", "Unknown", "decode_json", "first_unknown", "is_unknown", "placeholders", "settled", "to_plain"]
