"""What each source can ever provide: the left half of the completeness rule (ARCHITECTURE.md).

A check declares the capabilities it requires; a session has the capabilities of its sources,
narrowed by what its events actually contain (``scorers`` computes that). Each harness declares
its sources' capabilities in its descriptor (``trace_ingest.harnesses``); docs/sources.md shows
the matrix. Hot-path safe.
"""

from __future__ import annotations

# In the order docs/sources.md lists them.
CAPABILITY_ORDER: tuple[str, ...] = (
    "tool_names",  # which tool was called
    "tool_args",  # the tool's input
    "tool_results",  # the tool's output
    "success_flags",  # whether each call succeeded
    "call_ids",  # ids pairing a call with its result
    "timestamps",  # when each event happened (not just when trail saw it)
    "durations",  # how long each tool call took
    "prompts",  # user prompts
    "session_bounds",  # explicit session start and end events
    "guides",  # which rule files were loaded into context
    "skills",  # which skills were loaded
    "subagents",  # subagent start/stop and linkage
    "tokens",  # token usage
    "task_outcome",  # whether the task was delivered
    "protocol_audit",  # a CLEO audit log for the session
)
CAPABILITY_NAMES: frozenset[str] = frozenset(CAPABILITY_ORDER)

# Sources that are not a harness: seed 001's trace files, graded directly (scorers.traces_input).
# A harness's own sources are declared in its descriptor (trace_ingest/harnesses/<id>.py).
FILE_SOURCES: dict[tuple[str, str], frozenset[str]] = {
    # seed 001 canonical traces.json: steps {step, tool, args, observation, ok} + run ok.
    ("trace-grader", "traces"): frozenset(
        {"tool_names", "tool_args", "tool_results", "success_flags", "task_outcome"}
    ),
    # seed 001 audit jsonl: tool names and args only (RULE-04: no per-step ok/observation).
    ("trace-grader", "audit"): frozenset({"tool_names", "tool_args", "timestamps"}),
}


def capabilities_of(harness: str, source: str) -> frozenset[str]:
    """Declared capabilities of a source (empty when trail does not know the source)."""
    from trace_ingest.harnesses.table import HARNESSES, get

    if harness in HARNESSES:
        return get(harness).capabilities_of(source)
    return FILE_SOURCES.get((harness, source), frozenset())
