"""Former home of the plan checker's pytest plugin, kept so that imports of
``resilient_sqs.testing.plan_plugin`` (``pytest_plugins = [...]``, ``-p`` with plugin autoloading
off) keep working: this name is the plugin module itself, ``resilient_sqs.policy.pytest_plugin``,
not a copy (pytest registering both would add every ``--sqs-*`` option twice). The pytest11 entry
point ``sqs_policy_plan`` names the new module. Importing this needs none of the ``[testing]``
extra, as the plugin does not.
"""
import sys

from resilient_sqs.policy import pytest_plugin

sys.modules[__name__] = pytest_plugin
