"""Reading the package's and a user's YAML files with bounds: one loader for every YAML file the package reads.

A configuration file is small and its values are plain data. :func:`load_yaml_file` refuses, with one
paragraph naming the file and what is allowed (:class:`repro.errors.ConfigError`):

- a file larger than ``MAX_BYTES`` (it is not read past that);
- a document whose values, with every alias (``*name``) written out, would hold more than ``MAX_NODES``
  values: an "alias bomb" (billion laughs) of a few hundred bytes stands for billions of values and would
  hang whatever walks it (schema validation, hashing a run's parameters). Aliases within the bound are
  allowed (the package's own schema files use them);
- an alias that refers to itself (a recursive structure), nesting deeper than Python can walk, and text
  that is not UTF-8 or not YAML.

The YAML is parsed with PyYAML's safe loader (plain data only, no Python objects); the size with aliases
written out is counted on the parsed node graph, once per distinct node, before anything is constructed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from repro.errors import ConfigError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "check_loaded_data", "load_yaml_file", "load_yaml_text"]

#: the largest YAML file read (bytes); the package's largest is a few KiB
MAX_BYTES = 1 << 20
#: the most values (scalars, lists, mappings) a document may hold with its aliases written out
MAX_NODES = 100_000
#: the deepest nesting of lists and mappings in data loaded by someone else (the workflow's config)
MAX_DEPTH = 100


def load_yaml_file(path: Path | str, what: str = "configuration file") -> Any:
    """The data of the YAML file ``path`` (``None`` for an empty file), within the bounds above."""
    path = Path(path)
    with open(path, "rb") as f:
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{what} {path} is larger than {MAX_BYTES} bytes; allowed: a YAML file of at most "
                          f"{MAX_BYTES} bytes (1 MiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{what} {path} is not UTF-8 text ({e}); allowed: a UTF-8 YAML file") from None
    return load_yaml_text(text, f"{what} {path}")


def load_yaml_text(text: str, origin: str = "YAML text") -> Any:
    """The data of the YAML document ``text``; ``origin`` names it in errors."""
    if len(text) > MAX_BYTES:
        raise ConfigError(f"{origin} is longer than {MAX_BYTES} characters; allowed: at most {MAX_BYTES}")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expanded_size(node, origin)
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        raise ConfigError(f"{origin} is not valid YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{origin} is nested too deeply to be read; allowed: plain nested values "
                          f"(lists and mappings a few hundred levels deep at most)") from None
    finally:
        loader.dispose()


def _check_expanded_size(root: yaml.Node, origin: str) -> None:
    """Refuse a node graph whose size with aliases written out exceeds MAX_NODES, or that contains itself."""
    size: dict[int, int] = {}
    active: set[int] = set()

    def visit(node: yaml.Node) -> int:
        key = id(node)
        if key in size:
            return size[key]
        if key in active:
            raise ConfigError(f"{origin} has an alias that refers to the value containing it (a recursive "
                              f"structure, line {node.start_mark.line + 1}); allowed: plain data, aliases only to "
                              f"values defined before them and outside them")
        active.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            total += visit(child)
            if total > MAX_NODES:
                break
        active.discard(key)
        size[key] = total
        if total > MAX_NODES:
            raise ConfigError(f"{origin}: its aliases (*name) expand to more than {MAX_NODES} values (an alias "
                              f"bomb?; the value at line {node.start_mark.line + 1}); allowed: at most {MAX_NODES} "
                              f"values with every alias written out")
        return total

    visit(root)


def check_loaded_data(data: Any, origin: str) -> None:
    """Refuse data that another reader (Snakemake: ``--configfile``, ``--config``) already loaded from YAML when it
    is larger than the bounds above: more than MAX_NODES values with shared values (YAML aliases) written out,
    more than MAX_BYTES characters of text so counted, nesting deeper than MAX_DEPTH, or a value containing
    itself. The data are walked once per distinct object, so a billion-laughs graph is refused at once. The
    error is one line naming ``origin``, the top-level key that holds the offending value and the limit."""
    seen: dict[int, tuple[int, int]] = {}  # id -> (values, characters), with shared values written out
    active: set[int] = set()

    def refuse(key: Any, what: str) -> ConfigError:
        where = f"{origin}, key {key!r}" if key is not None else origin
        return ConfigError(f"{where}: {what}")

    def visit(value: Any, depth: int, key: Any) -> tuple[int, int]:
        if isinstance(value, (str, bytes)):
            return 1, len(value)
        if not isinstance(value, (dict, list, tuple, set, frozenset)):
            return 1, 1  # a number, a boolean, None
        ident = id(value)
        if ident in seen:
            return seen[ident]
        if ident in active:
            raise refuse(key, "a value contains itself (a recursive YAML alias); allowed: plain data")
        if depth > MAX_DEPTH:
            raise refuse(key, f"nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH}")
        active.add(ident)
        items = [x for pair in value.items() for x in pair] if isinstance(value, dict) else list(value)
        nodes, chars = 1, 0
        for item in items:
            n, c = visit(item, depth + 1, key)
            nodes, chars = nodes + n, chars + c
            if nodes > MAX_NODES:
                raise refuse(key, f"with its YAML aliases (*name) written out it holds more than {MAX_NODES} values "
                                  f"(an alias bomb?); allowed: at most {MAX_NODES} values")
            if chars > MAX_BYTES:
                raise refuse(key, f"with its YAML aliases (*name) written out it holds more than {MAX_BYTES} "
                                  f"characters of text; allowed: at most {MAX_BYTES}")
        active.discard(ident)
        seen[ident] = nodes, chars
        return nodes, chars

    if isinstance(data, dict):
        nodes, chars = 1, 0
        for key, value in data.items():
            n, c = visit(value, 1, key)
            nodes, chars = nodes + n + 1, chars + c + len(str(key))
            if nodes > MAX_NODES or chars > MAX_BYTES:
                raise refuse(key, f"the data up to this key hold more than {MAX_NODES} values or {MAX_BYTES} "
                                  f"characters; allowed: at most {MAX_NODES} values and {MAX_BYTES} characters")
    else:
        visit(data, 0, None)
