"""Guard sessions: a JSON-RPC proxy's per-message decisions, run by the component (interface `guard` in
wit/world.wit). A proxy hands a session every line it reads and carries out the steps it gets back; the
policy (what is forwarded, answered, sanitized, redacted; what every pending request is owed when the
upstream fails) is the component's, identical in every runtime.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional, Union, cast

import wasmtime
from wasmtime.component import Record

if TYPE_CHECKING:
    # For the type checker only (annotations are not evaluated at run time): the package depends on wasmtime
    # alone, and typing.Unpack is Python 3.11's.
    from typing_extensions import Unpack

from . import _runtime
from ._args import Context, _context, _dialect, _dialect_name, _pairs, _raw, _text, _u64
from ._errors import ComponentFault, InvalidInput

# Why the upstream failed, generated from wit/world.wit (re-exported: the package's names for them).
from ._failure_schema import HttpRefusal as HttpRefusal
from ._failure_schema import RequestFailure as RequestFailure
from ._failure_schema import UpstreamFailure as UpstreamFailure
from ._failure_schema import _request_failure, _upstream_failure

# The session's options and steps, generated from wit/world.wit (re-exported: the package's names for them).
from ._guard_schema import EventName as EventName
from ._guard_schema import GuardOptions as GuardOptions
from ._guard_schema import LogLevel as LogLevel
from ._guard_schema import Outcome as Outcome
from ._guard_schema import Peer as Peer
from ._guard_schema import Settings as Settings
from ._guard_schema import Step as Step
from ._guard_schema import _options_record
from ._policy_defaults_schema import PolicyDefaults as PolicyDefaults
from ._taxonomy import Dialect

_TRAPS = (wasmtime.WasmtimeError, wasmtime.Trap)


def _loads(text: str) -> Outcome:
    import json

    out: Outcome = json.loads(text)
    return out


class GuardSession:
    """One session between one client and one upstream.

    Every method but :meth:`upstream_stderr`, :meth:`upstream_stderr_end` and :meth:`upstream_log` (which return
    the redacted text) returns the :class:`Outcome` (``*_json`` variants: its JSON text).
    A session owns a component instance of its own; methods may be called from any thread, one at a time
    (a lock serializes them). A fault inside the component ends the session: later calls raise
    :class:`ComponentFault`. Close it (or use it as a context manager) to free the instance.
    """

    def __init__(self, dialect: Union[str, Dialect, None] = None, **options: Unpack[GuardOptions]) -> None:
        """``dialect``, then the keyword options of :class:`GuardOptions` (``guard-options`` in wit/world.wit:
        ``max_bytes``, ``batch``, ``timeout_ms``, ``upstream``, ``failed_result_bytes``, ``policy``,
        ``policy_env``, ...); an unknown one raises :class:`ArgumentTypeError`. An option not given (None) is
        the policy file's, else the built-in default: the session resolves it (:meth:`settings`)."""
        name = None if dialect is None else _dialect_name(dialect)
        record = _options_record(name, options)
        rt = _runtime.get()
        if name is not None:
            _dialect(name)  # not a member of the WIT enum: the component's refusal, as for every function
        self._lock = threading.Lock()
        try:
            self._worker: Optional[_runtime._GuardWorker] = rt.guard_worker()
            w = self._worker
            self._handle = w.generic["[constructor]session"](w.worker.store, record)
        except _TRAPS as e:
            raise rt._fault() from e

    # ---------------------------------------------------------------- calls

    def _call(self, name: str, *args: Any) -> Any:
        with self._lock:
            w = self._worker
            if w is None:
                raise ComponentFault(-32603, "Internal error")
            try:
                return w.fast[name](self._handle, *args)
            except _TRAPS as e:
                self._worker = None
                raise _runtime.get()._fault() from e

    def client_line_json(self, line: Union[bytes, str], *, context: Optional[Context] = None) -> str:
        """A line from the client (its newline removed)."""
        return str(self._call("[method]session.client-line", _raw(line, "line"), _context(context)))

    def set_policy(self, policy: str, env: Optional[Mapping[str, str]] = None) -> None:
        """Replaces the policy file for the requests from now on (a reload). A refused document raises
        :class:`InvalidInput` (``data``: ``reason`` "invalid-policy", ``line``, ``column``, ``details``) and
        leaves the policy as it was."""
        _text(policy, "policy")
        with self._lock:
            w = self._worker
            if w is None:
                raise ComponentFault(-32603, "Internal error")
            try:
                result = w.generic["[method]session.set-policy"](w.worker.store, self._handle, policy, _env_pairs(env))
            except _TRAPS as e:
                self._worker = None
                raise _runtime.get()._fault() from e
        _ok_or_raise(result)

    def client_line_on_json(self, stream: int, line: Union[bytes, str], *, context: Optional[Context] = None) -> str:
        """A line from client stream ``stream`` (an HTTP front's request; stream 0: the session's own). Requests
        are renamed upstream and answered on their stream; steps toward the client name it from then on."""
        return str(
            self._call("[method]session.client-line-on", _u64(stream, "stream"), _raw(line, "line"), _context(context))
        )

    def stream_closed_json(self, stream: int, *, context: Optional[Context] = None) -> str:
        """Client stream ``stream`` went away before its answers: its pending requests are cancelled upstream."""
        return str(self._call("[method]session.stream-closed", _u64(stream, "stream"), _context(context)))

    def client_line_on(self, stream: int, line: Union[bytes, str], *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.client_line_on_json(stream, line, context=context))

    def stream_closed(self, stream: int, *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.stream_closed_json(stream, context=context))

    def client_oversize_json(
        self,
        length: int,
        *,
        head: Union[bytes, str] = b"",
        tail: Union[bytes, str] = b"",
        context: Optional[Context] = None,
    ) -> str:
        """A client line longer than ``max_bytes``, discarded unread: its length, and its first and last bytes
        as they passed (up to 4 KiB each; none if none were kept), from which the session reads its id."""
        return str(
            self._call(
                "[method]session.client-oversize",
                _u64(length, "length"),
                _raw(head, "head"),
                _raw(tail, "tail"),
                _context(context),
            )
        )

    def upstream_line_json(self, line: Union[bytes, str], *, context: Optional[Context] = None) -> str:
        """A line from the upstream's output (its newline removed)."""
        return str(self._call("[method]session.upstream-line", _raw(line, "line"), _context(context)))

    def upstream_oversize_json(
        self,
        length: int,
        *,
        head: Union[bytes, str] = b"",
        tail: Union[bytes, str] = b"",
        context: Optional[Context] = None,
    ) -> str:
        """An upstream line longer than the shell takes, discarded unread: as :meth:`client_oversize_json` (a
        response whose id its ends show answers its request at once)."""
        return str(
            self._call(
                "[method]session.upstream-oversize",
                _u64(length, "length"),
                _raw(head, "head"),
                _raw(tail, "tail"),
                _context(context),
            )
        )

    def settings_json(self) -> str:
        """The settings the session resolved when it opened (``session-settings``: its options, else the policy
        file's ``[defaults]``, else the built-in defaults), as JSON text."""
        return str(self._call("[method]session.settings"))

    def settings(self) -> Settings:
        """The settings the session resolved when it opened: ``dialect``, ``max_bytes``, ``batch``,
        ``timeout_ms`` (None: no limit), ``failed_result_bytes``, ``max_upstream_bytes``."""
        return cast("Settings", json.loads(self.settings_json()))

    def expire_json(self, *, context: Optional[Context] = None) -> str:
        """Answers (and cancels upstream) every request whose deadline has passed."""
        return str(self._call("[method]session.expire", _context(context)))

    def upstream_failed_json(self, failure: UpstreamFailure, *, context: Optional[Context] = None) -> str:
        """The upstream can no longer answer: every pending request is answered."""
        return self._call_variant("[method]session.upstream-failed", _upstream_failure(failure), context)

    def upstream_request_failed_json(
        self, id: str, failure: RequestFailure, *, context: Optional[Context] = None
    ) -> str:
        """Request ``id`` (its JSON text, as the upstream was sent it) got no answer from an upstream reached
        request by request: it alone is answered, in the dialect. An id that is not pending is answered nothing."""
        _text(id, "id")
        return self._call_variant(
            "[method]session.upstream-request-failed", _request_failure(failure), context, leading=(id,)
        )

    def upstream_exchange_ended_json(self, id: str, *, context: Optional[Context] = None) -> str:
        """The upstream's response to request ``id`` (its JSON text, as the upstream was sent it) ended with
        nothing more to come: a request answered with many responses (A2A's streaming methods) that got some
        is settled (an ``end`` step for its stream); one still owed its answer is answered as a cut exchange
        is. An id that is not pending is answered nothing."""
        return str(self._call("[method]session.upstream-exchange-ended", _text(id, "id"), _context(context)))

    def _call_variant(self, name: str, variant: Any, context: Optional[Context], leading: tuple[Any, ...] = ()) -> str:
        """A session method whose failure argument is a WIT variant, called through wasmtime-py's generic
        interface (the typed one in `_call` takes flat values), its call context as a record."""
        ctx = _context(context)
        record = Record()
        setattr(record, "unix-millis", ctx[0])
        setattr(record, "entropy", ctx[1])
        with self._lock:
            w = self._worker
            if w is None:
                raise ComponentFault(-32603, "Internal error")
            try:
                return str(w.generic[name](w.worker.store, self._handle, *leading, variant, record))
            except _TRAPS as e:
                self._worker = None
                raise _runtime.get()._fault() from e

    def upstream_stderr(self, data: Union[bytes, str]) -> str:
        """Bytes of the upstream's stderr as read, in any pieces, for the operator's log: the redacted text of
        the lines they complete (secrets redacted, traces and paths kept).

        Text is cut only at line ends: an unfinished line is held until its end arrives (or
        :meth:`upstream_stderr_end`); a line over 1 MiB is logged in pieces, cut after a space."""
        return str(self._call("[method]session.upstream-stderr", _raw(data, "data")))

    def upstream_stderr_end(self) -> str:
        """The upstream's stderr has ended: the redacted text of the unfinished line held, if any."""
        return str(self._call("[method]session.upstream-stderr-end"))

    def upstream_log(self, text: str) -> str:
        """Other text about the upstream for the operator's log, whole lines: redacted as its stderr.

        Successive calls (with :meth:`upstream_stderr`'s) are one stream: a private-key block one call's text
        leaves open (BEGIN, no END yet) is redacted in the next call's text up to its END line."""
        return str(self._call("[method]session.upstream-log", _text(text, "text")))

    def client_line(self, line: Union[bytes, str], *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.client_line_json(line, context=context))

    def client_oversize(
        self,
        length: int,
        *,
        head: Union[bytes, str] = b"",
        tail: Union[bytes, str] = b"",
        context: Optional[Context] = None,
    ) -> Outcome:
        return _loads(self.client_oversize_json(length, head=head, tail=tail, context=context))

    def upstream_line(self, line: Union[bytes, str], *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.upstream_line_json(line, context=context))

    def upstream_oversize(
        self,
        length: int,
        *,
        head: Union[bytes, str] = b"",
        tail: Union[bytes, str] = b"",
        context: Optional[Context] = None,
    ) -> Outcome:
        return _loads(self.upstream_oversize_json(length, head=head, tail=tail, context=context))

    def expire(self, *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.expire_json(context=context))

    def upstream_request_failed(
        self, id: str, failure: RequestFailure, *, context: Optional[Context] = None
    ) -> Outcome:
        return _loads(self.upstream_request_failed_json(id, failure, context=context))

    def upstream_exchange_ended(self, id: str, *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.upstream_exchange_ended_json(id, context=context))

    def upstream_failed(self, failure: UpstreamFailure, *, context: Optional[Context] = None) -> Outcome:
        return _loads(self.upstream_failed_json(failure, context=context))

    # ---------------------------------------------------------------- lifetime

    def close(self) -> None:
        """Frees the session's instance (idempotent)."""
        with self._lock:
            w, self._worker = self._worker, None
            if w is not None:
                try:
                    self._handle.drop(w.worker.store)
                except _TRAPS:
                    pass

    def __enter__(self) -> GuardSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _env_pairs(env: Optional[Mapping[str, str]]) -> list[tuple[str, str]]:
    """The environment a policy's ``hash_key_env`` is read from: the process's when none is given."""
    return _pairs(env, "env")


def _ok_or_raise(result: Any) -> str:
    from ._public import _outcome

    ok, value = _outcome(result)
    if ok:
        return str(value)
    raise InvalidInput(value["code"], value["message"], value["data_json"])


def check_policy(policy: str, env: Optional[Mapping[str, str]] = None) -> PolicyDefaults:
    """Checks a guard policy file (TOML): its defaults (:class:`PolicyDefaults`, ``policy-defaults`` in
    wit/world.wit; ``None`` where it says nothing), or :class:`InvalidInput` saying where it is wrong (``data``:
    ``line``, ``column``, ``details``): the same words as ``jsonrpc-errors guard --check-config`` and the npm
    package's ``checkPolicy``."""
    import json

    _text(policy, "policy")
    rt = _runtime.get()
    w = rt.guard_worker()
    try:
        result = w.generic["check-policy"](w.worker.store, policy, _env_pairs(env))
    except _TRAPS as e:
        raise rt._fault() from e
    return cast("PolicyDefaults", json.loads(_ok_or_raise(result)))
