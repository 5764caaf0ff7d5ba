"""Which callers the runtime builds from the generated signatures (``_signatures.py``).

``_abi`` writes call arguments straight into wasmtime-py's C structs (``wasmtime._ffi``, not a public API)
and is several times faster per call; it is used only when its feature check passes. Otherwise, or with
``JSONRPC_ERRORS_PUBLIC_API=1``, ``_public`` calls through ``wasmtime.component``'s public API: a
wasmtime-py upgrade can cost speed, never correctness.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

FORCE_PUBLIC_VAR = "JSONRPC_ERRORS_PUBLIC_API"

make_caller: Callable[..., Any]
#: Why the fast path is not used (None when it is).
fallback_reason: Optional[str] = None

if os.environ.get(FORCE_PUBLIC_VAR, "") not in ("", "0"):
    fallback_reason = f"{FORCE_PUBLIC_VAR} is set"
else:
    try:
        from . import _abi

        _abi.check()
    except (ImportError, AttributeError) as e:  # AttributeError: a name the module reads at import is gone
        fallback_reason = f"wasmtime-py internals differ: {e}"

if fallback_reason is None:
    from ._abi import make_caller
else:
    from ._public import make_caller

FAST = fallback_reason is None

__all__ = ["FAST", "FORCE_PUBLIC_VAR", "fallback_reason", "make_caller"]
