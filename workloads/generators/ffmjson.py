"""Writes ffm workload files as readable JSON.

A value goes on one line when it fits in WIDTH columns (so a short Einsum
object, a parameter declaration or a layer record stays on one line), and
is spread over several lines otherwise. Key order is kept.
"""

import json

WIDTH = 100


def _compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _format(value, indent, prefix_len):
    compact = _compact(value)
    if not isinstance(value, (dict, list)) or not value:
        return compact
    if indent + prefix_len + len(compact) <= WIDTH:
        return compact
    pad = " " * (indent + 2)
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            key_text = json.dumps(key, ensure_ascii=False) + ": "
            lines.append(pad + key_text + _format(item, indent + 2, len(key_text)))
        open_, close = "{", "}"
    else:
        for item in value:
            lines.append(pad + _format(item, indent + 2, 0))
        open_, close = "[", "]"
    return open_ + "\n" + ",\n".join(lines) + "\n" + " " * indent + close


def dumps(workload):
    """The workload (a dict) as the text of a file, top-level members one per
    line."""
    return _format(workload, 0, WIDTH) + "\n"


def write(path, workload):
    with open(path, "w", encoding="utf-8") as out:
        out.write(dumps(workload))
