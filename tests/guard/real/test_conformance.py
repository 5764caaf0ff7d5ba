"""The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, `server --suite all`), run
twice in parallel against the same stdio server through the same bridge:

    direct:  conformance -> supergateway 4.0.0 (stdio -> Streamable HTTP, --stateful) -> conformance_server.mjs
    guarded: conformance -> supergateway 4.0.0 -> jsonrpc-errors guard -> conformance_server.mjs

The guard must change no scenario's outcome: per scenario, the guarded column's checks (id and status, in order)
equal the direct column's. What the direct column fails is the chain's own business (supergateway does not
check Host headers: dns-rebinding-protection), and it must fail the same way guarded.
"""

from __future__ import annotations

import pytest

import conformance


def expect(condition, message) -> None:
    if not condition:
        pytest.fail(str(message))


@pytest.fixture(scope="module")
def columns(campaign):
    direct = campaign.get(campaign.conformance("direct"))
    guarded = campaign.get(campaign.conformance("guarded"))
    conformance.SUMMARY.append(conformance.table(direct, guarded))  # conftest.py prints it at the end of the run
    return direct, guarded


def test_the_suite_ran_in_both_columns(columns):
    for col in columns:
        expect(len(col.scenarios) >= 30, f"{col.name}: only {sorted(col.scenarios)}; log: {col.output[-2000:]}")
        expect(col.counts()["SUCCESS"] >= 40, f"{col.name}: {dict(col.counts())}\n{col.output[-3000:]}")
        expect(col.leftover == [], f"{col.name}: processes left behind: {col.leftover}")
    direct, guarded = columns
    expect(set(guarded.scenarios) == set(direct.scenarios), 'assertion failed')


def test_every_scenario_has_the_same_outcome_guarded(columns):
    direct, guarded = columns
    differ = {n: (direct.scenarios.get(n), guarded.scenarios.get(n))
              for n in direct.scenarios if direct.scenarios.get(n) != guarded.scenarios.get(n)}
    expect(not differ, "scenarios whose checks differ through the guard:\n" + "\n".join(
        f"  {n}: direct {d} / guarded {g}" for n, (d, g) in differ.items()) + "\n" + conformance.table(direct, guarded))


def test_the_guard_ran_in_the_guarded_chain(columns):
    _, guarded = columns
    log = (guarded.log_dir / "stdio-child.stderr.log").read_text(errors="replace")
    expect(log.count('"event":"started"') >= len(guarded.scenarios), log[-2000:])
