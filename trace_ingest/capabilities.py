"""What each source can ever provide: the left half of the completeness rule (ARCHITECTURE.md).

A check declares the capabilities it requires; a session has the capabilities of its sources,
narrowed by what its events actually contain (``scorers`` computes that). Hot-path safe.
"""

from __future__ import annotations

CAPABILITY_NAMES: frozenset[str] = frozenset(
    {
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
    }
)

# (harness, source) -> capabilities. Claude Code hooks: harnesses.md §1.5-1.6. Hook payloads
# carry no timestamp, but trail stamps each on receipt, which is the event time for a
# synchronous hook and within the hook's scheduling delay for an async one.
SOURCE_CAPABILITIES: dict[tuple[str, str], frozenset[str]] = {
    ("claude-code", "hook"): frozenset(
        {
            "tool_names",
            "tool_args",
            "tool_results",
            "success_flags",
            "call_ids",
            "timestamps",
            "durations",
            "prompts",
            "session_bounds",
            "guides",
            "skills",
            "subagents",
        }
    ),
    # seed 001 canonical traces.json: steps {step, tool, args, observation, ok} + run ok.
    ("trace-grader", "traces"): frozenset(
        {"tool_names", "tool_args", "tool_results", "success_flags", "task_outcome"}
    ),
    # seed 001 audit jsonl: tool names and args only (RULE-04: no per-step ok/observation).
    ("trace-grader", "audit"): frozenset({"tool_names", "tool_args", "timestamps"}),
}


# Claude Code transcripts (harnesses.md §1.7) show what the hooks show, but no explicit
# session bounds; token usage is in the file but not mapped yet (docs/importers.md).
SOURCE_CAPABILITIES[("claude-code", "transcript")] = SOURCE_CAPABILITIES[
    ("claude-code", "hook")
] - {"session_bounds"}


def capabilities_of(harness: str, source: str) -> frozenset[str]:
    """Declared capabilities of a source (empty when trail does not know the source)."""
    return SOURCE_CAPABILITIES.get((harness, source), frozenset())
