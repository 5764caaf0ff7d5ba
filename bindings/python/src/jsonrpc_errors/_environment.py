"""The environment whose secret-looking values the component redacts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Union

from . import _runtime
from ._args import _text
from ._errors import ArgumentTypeError


def set_environment(env: Union[Mapping[str, str], Iterable[tuple[str, str]]]) -> int:
    """Hands the component candidate environment variables; it keeps the secret-looking ones (by name) and
    scrubs their values from all output. Replaces any earlier environment (also the default `os.environ`).
    Returns how many were kept."""
    items = env.items() if isinstance(env, Mapping) else env
    pairs: list[tuple[str, str]] = []
    for item in items:
        try:
            k, v = item
        except (TypeError, ValueError):
            raise ArgumentTypeError("environment entries must be (name, value) pairs") from None
        _text(k, "environment name")
        _text(v, "environment value")
        pairs.append((k, v))
    return _runtime.set_environment(pairs)
