# Generated from plan.schema.json by `python -m resilient_sqs.policy.schema --generate`. Do not edit.
# fmt: off
import re

_MISSING = object()
_C0 = ('managed', 'data')
_C1 = ('managed', 'data')
_C2 = ('no-op', 'create', 'read', 'update', 'delete', 'forget')
_C3 = ('managed', 'data')
_C4 = re.compile('^(?:module\\.[A-Za-z_][A-Za-z0-9_-]*(?:\\[(?:"(?:[^"\\\\\\u0000-\\u001f]|\\\\["\\\\/bfnrt]|\\\\u[0-9A-Fa-f]{4})*"|[0-9]{1,18})\\])?)(?:\\.(?:module\\.[A-Za-z_][A-Za-z0-9_-]*(?:\\[(?:"(?:[^"\\\\\\u0000-\\u001f]|\\\\["\\\\/bfnrt]|\\\\u[0-9A-Fa-f]{4})*"|[0-9]{1,18})\\])?))*$')
_C5 = frozenset(['constant_value', 'references'])
_C6 = re.compile('^(0\\.2|1\\.[0-9]+)$')


def v_index(x0):
    if not (type(x0) is str or (type(x0) is int or (type(x0) is float and x0.is_integer()))): return False
    return True


def v_module_values(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        x1 = x0.get('address', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('resources', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list): return False
            if type(x1) is list:
                for x2 in x1:
                    if not v_resource_values(x2): return False
        x1 = x0.get('child_modules', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list): return False
            if type(x1) is list:
                for x2 in x1:
                    if not v_child_module_values(x2): return False
    return True


def v_resource_values(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        if 'address' not in x0: return False
        if 'mode' not in x0: return False
        if 'type' not in x0: return False
        if 'name' not in x0: return False
        x1 = x0.get('address', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('mode', _MISSING)
        if x1 is not _MISSING:
            if x1 not in _C0: return False
        x1 = x0.get('type', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('name', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('index', _MISSING)
        if x1 is not _MISSING:
            if not v_index(x1): return False
        x1 = x0.get('values', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
    return True


def v_resource_change(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        if 'address' not in x0: return False
        if 'mode' not in x0: return False
        if 'type' not in x0: return False
        if 'name' not in x0: return False
        if 'change' not in x0: return False
        x1 = x0.get('address', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('module_address', _MISSING)
        if x1 is not _MISSING:
            if not v_module_address(x1): return False
        x1 = x0.get('mode', _MISSING)
        if x1 is not _MISSING:
            if x1 not in _C1: return False
        x1 = x0.get('type', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('name', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('index', _MISSING)
        if x1 is not _MISSING:
            if not v_index(x1): return False
        x1 = x0.get('change', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                if 'actions' not in x1: return False
                x2 = x1.get('actions', _MISSING)
                if x2 is not _MISSING:
                    if not (type(x2) is list): return False
                    if type(x2) is list:
                        for x3 in x2:
                            if x3 not in _C2: return False
                x2 = x1.get('after', _MISSING)
                if x2 is not _MISSING:
                    if not (type(x2) is dict or x2 is None): return False
                x2 = x1.get('after_unknown', _MISSING)
                if x2 is not _MISSING:
                    if not (type(x2) is dict or type(x2) is bool): return False
    return True


def v_expression(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        x1 = x0.get('references', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list): return False
            if type(x1) is list:
                for x2 in x1:
                    if not (type(x2) is str): return False
    return True


def v_module_config(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        x1 = x0.get('resources', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list): return False
            if type(x1) is list:
                for x2 in x1:
                    if not v_resource_config(x2): return False
        x1 = x0.get('module_calls', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                for x2 in x1.values():
                    if not v_module_call(x2): return False
        x1 = x0.get('outputs', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                for x2 in x1.values():
                    if not (type(x2) is dict): return False
                    if type(x2) is dict:
                        x3 = x2.get('expression', _MISSING)
                        if x3 is not _MISSING:
                            if not v_expression(x3): return False
        x1 = x0.get('variables', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                for x2 in x1.values():
                    if not (type(x2) is dict): return False
    return True


def v_resource_config(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        if 'address' not in x0: return False
        if 'mode' not in x0: return False
        if 'type' not in x0: return False
        if 'name' not in x0: return False
        x1 = x0.get('address', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('mode', _MISSING)
        if x1 is not _MISSING:
            if x1 not in _C3: return False
        x1 = x0.get('type', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('name', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('expressions', _MISSING)
        if x1 is not _MISSING:
            if not v_expressions(x1): return False
        x1 = x0.get('count_expression', _MISSING)
        if x1 is not _MISSING:
            if not v_expression(x1): return False
        x1 = x0.get('for_each_expression', _MISSING)
        if x1 is not _MISSING:
            if not v_expression(x1): return False
        x1 = x0.get('provider_config_key', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
    return True


def v_module_call(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        x1 = x0.get('source', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('expressions', _MISSING)
        if x1 is not _MISSING:
            if not v_expressions(x1): return False
        x1 = x0.get('count_expression', _MISSING)
        if x1 is not _MISSING:
            if not v_expression(x1): return False
        x1 = x0.get('for_each_expression', _MISSING)
        if x1 is not _MISSING:
            if not v_expression(x1): return False
        x1 = x0.get('module', _MISSING)
        if x1 is not _MISSING:
            if not v_module_config(x1): return False
    return True


def v_module_address(x0):
    if not (type(x0) is str): return False
    if type(x0) is str and not _C4.search(x0): return False
    return True


def v_child_module_values(x0):
    if not v_module_values(x0): return False
    if type(x0) is dict:
        if 'address' not in x0: return False
        x1 = x0.get('address', _MISSING)
        if x1 is not _MISSING:
            if not v_module_address(x1): return False
    return True


def v_expressions(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        for x1 in x0.values():
            if not v_expression_item(x1): return False
    return True


def v_expression_item(x0):
    if not (type(x0) is dict or type(x0) is list): return False
    if type(x0) is dict:
        x1 = x0.get('references', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list or type(x1) is dict): return False
            if type(x1) is list:
                for x2 in x1:
                    if not (type(x2) is str or type(x2) is dict): return False
        for k1, x1 in x0.items():
            if k1 not in _C5:
                if not v_expression_item(x1): return False
    if type(x0) is list:
        for x1 in x0:
            if not v_expression_item(x1): return False
    return True


def v_root(x0):
    if not (type(x0) is dict): return False
    if type(x0) is dict:
        if 'format_version' not in x0: return False
        if 'planned_values' not in x0: return False
        x1 = x0.get('format_version', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
            if type(x1) is str and not _C6.search(x1): return False
        x1 = x0.get('terraform_version', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is str): return False
        x1 = x0.get('variables', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                for x2 in x1.values():
                    if not (type(x2) is dict): return False
        x1 = x0.get('planned_values', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                x2 = x1.get('root_module', _MISSING)
                if x2 is not _MISSING:
                    if not v_module_values(x2): return False
        x1 = x0.get('prior_state', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                x2 = x1.get('values', _MISSING)
                if x2 is not _MISSING:
                    if not (type(x2) is dict): return False
                    if type(x2) is dict:
                        x3 = x2.get('root_module', _MISSING)
                        if x3 is not _MISSING:
                            if not v_module_values(x3): return False
        x1 = x0.get('resource_changes', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is list): return False
            if type(x1) is list:
                for x2 in x1:
                    if not v_resource_change(x2): return False
        x1 = x0.get('configuration', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is dict): return False
            if type(x1) is dict:
                x2 = x1.get('provider_config', _MISSING)
                if x2 is not _MISSING:
                    if not (type(x2) is dict): return False
                    if type(x2) is dict:
                        for x3 in x2.values():
                            if not (type(x3) is dict): return False
                            if type(x3) is dict:
                                x4 = x3.get('name', _MISSING)
                                if x4 is not _MISSING:
                                    if not (type(x4) is str): return False
                                x4 = x3.get('full_name', _MISSING)
                                if x4 is not _MISSING:
                                    if not (type(x4) is str): return False
                                x4 = x3.get('alias', _MISSING)
                                if x4 is not _MISSING:
                                    if not (type(x4) is str): return False
                                x4 = x3.get('module_address', _MISSING)
                                if x4 is not _MISSING:
                                    if not (type(x4) is str): return False
                                x4 = x3.get('expressions', _MISSING)
                                if x4 is not _MISSING:
                                    if not v_expressions(x4): return False
                x2 = x1.get('root_module', _MISSING)
                if x2 is not _MISSING:
                    if not v_module_config(x2): return False
        x1 = x0.get('errored', _MISSING)
        if x1 is not _MISSING:
            if not (type(x1) is bool): return False
    return True


def is_valid(doc):
    return v_root(doc)
