"""An A2A agent on the official SDK (servers/a2a_agent.py, PyPI `a2a-sdk` 1.3) driven by both official SDK
clients (PyPI `a2a-sdk` 1.3, npm `@a2a-js/sdk` 1.3) over A2A 1.0's JSON-RPC binding: the baseline that the
guarded runs (issue 35's A2A half) are compared with. Both clients see the same tasks, artifacts, streamed
events and codes; the agent's failed task carries a credential in its status message (what the guard must
redact), and its errors are the SDK's own (-32001 TaskNotFound, -32002 TaskNotCancelable, -32009
VersionNotSupported).
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from a2a_peers import SECRET, Agent, codes, run_client
from harness import HANG


@pytest.fixture
def agent():
    a = Agent()
    yield a
    a.stop()


def test_both_sdk_clients_see_the_same_tasks_artifacts_and_codes_directly(agent):
    py, js = run_client("py", agent.base), run_client("js", agent.base)
    assert codes(py) == codes(js)
    assert js["card"]["interfaces"] == [agent.rpc]
    assert js["echo"] == {"ok": {"state": "TASK_STATE_COMPLETED", "status": [], "artifacts": ["echo: hi"]}}
    assert js["stream"]["ok"] == [["task", "TASK_STATE_SUBMITTED"], ["status", "TASK_STATE_WORKING"],
                                  ["artifact", "chunk 0"], ["artifact", "chunk 1"], ["artifact", "chunk 2"],
                                  ["status", "TASK_STATE_COMPLETED"]]
    assert js["fail"]["ok"]["state"] == "TASK_STATE_FAILED"
    # The agent itself leaks its credential: the guard is what keeps it from a client.
    assert SECRET in js["fail"]["ok"]["status"][0]
    assert js["unknown"]["error"]["code"] == -32001
    assert js["unknown"]["error"]["data"][0]["reason"] == "TASK_NOT_FOUND"
    assert js["cancel"]["error"]["code"] == -32002


def test_a_request_without_a2a_version_is_the_sdks_version_not_supported(agent):
    # What a relay that dropped the client's `A2A-Version` header would get back from an A2A 1.0 agent.
    req = urllib.request.Request(agent.rpc, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                                        "params": {"id": "x"}}).encode(),
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=HANG) as r:
        answer = json.loads(r.read())
    assert answer["error"]["code"] == -32009, answer
