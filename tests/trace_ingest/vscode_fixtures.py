"""Generated VS Code chat records, in the shapes VS Code writes (no real data, no secrets).

There is no VS Code to drive here (docs/testing.md), and no permissively licensed real file
with tool invocations, transcripts or a chronicle store exists (shared/samples/SOURCES.md,
"vscode" gaps). So these builders write the shapes from VS Code's own source, read through the
code index (all MIT, ``microsoft/vscode``):

- chat session (``ISerializableChatData`` v3, request/response parts,
  ``IChatToolInvocationSerialized``, ``IChatTerminalToolInvocationData``, ``ConfirmedReason``,
  ``IToolResultInputOutputDetails``): ``src/vs/workbench/contrib/chat/common/chatService.ts``,
  ``model/chatModel.ts``, ``tools/languageModelToolsService.ts``; the envelope as in
  shared/samples/vscode/chatSessions-sample-session-1.json;
- mutation log (kinds 0-3, ``k``/``v``/``i``):
  ``src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts``; the late ``kind 1``
  token sets: next-capabilities.md §1.4;
- Copilot Chat transcript: ``extensions/copilot/src/platform/chat/common/
  sessionTranscriptService.ts`` @9d1ec376 (entry union) and its node implementation;
- chronicle store: the DDL of ``extensions/copilot/src/platform/chronicle/node/sessionStore.ts``
  @02d77ce1 (next-capabilities.md §1.4);
- Export Chat: ``IExportableChatData`` (``chatModel.ts`` ``toExport``: requests without
  ``sessionId``);
- hook payload (VS Code Local): the capture quoted in next-capabilities.md §1.3.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SESSION = "c8da2230-f3fd-4a7f-8971-de80e08bd98f"  # the id of the real capture (NC §1.3)
T0 = 1769028599647  # creationDate of the schema doc's example (epoch ms)


def markdown(text: str) -> dict[str, Any]:
    return {"kind": "markdownContent", "content": {"value": text, "supportThemeIcons": False}}


def tool_read(call_id: str, path: str, text: str) -> dict[str, Any]:
    """A completed ``copilot_readFile`` with input/output details."""
    return {
        "kind": "toolInvocationSerialized",
        "presentation": None,
        "invocationMessage": {"value": f"Reading [](file://{path})"},
        "pastTenseMessage": {"value": f"Read [](file://{path})"},
        "originMessage": None,
        "resultDetails": {
            "input": json.dumps({"filePath": path, "startLine": 1, "endLine": 40}),
            "output": [{"type": "embed", "isText": True, "value": text}],
        },
        "isConfirmed": {"type": 1},
        "isComplete": True,
        "toolCallId": call_id,
        "toolId": "copilot_readFile",
        "source": {"type": "internal", "label": "Built-In"},
    }


def tool_terminal(call_id: str, command: str, exit_code: int, output: str) -> dict[str, Any]:
    """A completed ``run_in_terminal`` with the terminal data VS Code stores."""
    return {
        "kind": "toolInvocationSerialized",
        "presentation": None,
        "invocationMessage": {"value": "Running command"},
        "pastTenseMessage": None,
        "originMessage": None,
        "toolSpecificData": {
            "kind": "terminal",
            "language": "sh",
            "commandLine": {"original": command},
            "terminalCommandOutput": {"text": output, "lineCount": output.count("\n") + 1},
            "terminalCommandState": {
                "exitCode": exit_code,
                "timestamp": T0 + 5000,
                "duration": 1200,
            },
        },
        "isConfirmed": {"type": 4, "selectedButton": "allow"},
        "isComplete": True,
        "toolCallId": call_id,
        "toolId": "run_in_terminal",
        "source": {"type": "internal", "label": "Built-In"},
    }


def tool_edit_failed(call_id: str, path: str) -> dict[str, Any]:
    return {
        "kind": "toolInvocationSerialized",
        "invocationMessage": "Editing",
        "pastTenseMessage": None,
        "originMessage": None,
        "resultDetails": {
            "input": json.dumps({"filePath": path, "oldString": "a", "newString": "b"}),
            "output": [{"type": "embed", "isText": True, "value": "Could not find matching text"}],
            "isError": True,
        },
        "isConfirmed": True,  # pre-1.104 boolean
        "isComplete": True,
        "toolCallId": call_id,
        "toolId": "copilot_replaceString",
        "source": {"type": "internal", "label": "Built-In"},
    }


def tool_denied(call_id: str, command: str) -> dict[str, Any]:
    part = tool_terminal(call_id, command, 0, "")
    part["isConfirmed"] = {"type": 0}
    part["isComplete"] = True
    del part["toolSpecificData"]["terminalCommandState"]
    return part


def tool_incomplete(call_id: str) -> dict[str, Any]:
    return {
        "kind": "toolInvocationSerialized",
        "invocationMessage": "Searching",
        "pastTenseMessage": None,
        "originMessage": None,
        "isConfirmed": None,
        "isComplete": False,
        "toolCallId": call_id,
        "toolId": "copilot_findTextInFiles",
        "source": {"type": "internal", "label": "Built-In"},
    }


def tool_mcp(call_id: str) -> dict[str, Any]:
    return {
        "kind": "toolInvocationSerialized",
        "invocationMessage": "Running take_screenshot",
        "pastTenseMessage": None,
        "originMessage": None,
        "toolSpecificData": {"kind": "input", "rawInput": {"fullPage": True}},
        "resultDetails": {
            "input": '{"fullPage": true}',
            "output": [{"type": "embed", "mimeType": "image/png", "value": "iVBORw0KGgo="}],
        },
        "isConfirmed": {"type": 1},
        "isComplete": True,
        "toolCallId": call_id,
        "toolId": "mcp_chrome-devtoo_take_screenshot",
        "source": {"type": "mcp", "label": "chrome-devtools"},
    }


def request(
    rid: str,
    text: str,
    ts: int,
    parts: list[dict[str, Any]],
    done: bool = True,
    error: str | None = None,
) -> dict[str, Any]:
    req: dict[str, Any] = {
        "requestId": rid,
        "timestamp": ts,
        "message": {"text": text, "parts": [{"kind": "text", "text": text}]},
        "variableData": {"variables": []},
        "response": parts,
        "modelId": "copilot/gpt-5",
        "agent": {"id": "github.copilot.editsAgent"},
        "responseId": f"response_{rid}",
    }
    if done:
        result: dict[str, Any] = {"timings": {"firstProgress": 800, "totalElapsed": 9000}}
        result["metadata"] = {"promptTokens": 18561, "outputTokens": 143, "resolvedModel": "gpt-5"}
        if error:
            result["errorDetails"] = {"message": error}
        req["result"] = result
        req["modelState"] = {"value": 3 if error else 1, "completedAt": ts + 9000}
    else:
        req["modelState"] = {"value": 0}
    return req


def rich_requests() -> list[dict[str, Any]]:
    """Three turns: a read, a passing and a failing command, a failed edit, a denied command,
    an unfinished search, an MCP call, a thinking part, and an errored turn."""
    return [
        request(
            "request_1",
            "Read README.md and run the tests",
            T0 + 1000,
            [
                {"kind": "thinking", "value": "I should read first.", "id": "t1"},
                tool_read("call_read_1", "/w/README.md", "# Demo\n"),
                tool_terminal("call_sh_1", "pytest -q", 0, "3 passed"),
                tool_terminal("call_sh_2", "ls /missing", 2, "ls: cannot access '/missing'"),
                markdown("Tests pass."),
            ],
        ),
        request(
            "request_2",
            "Fix the typo",
            T0 + 60000,
            [
                tool_edit_failed("call_edit_1", "/w/README.md"),
                tool_denied("call_sh_3", "rm -rf build"),
                tool_incomplete("call_grep_1"),
                tool_mcp("call_mcp_1__vscode-3"),
                {"kind": "undoStop", "id": "u1"},
                markdown("I could not apply the edit."),
            ],
        ),
        request("request_3", "Try again", T0 + 120000, [markdown("Rate limited.")], error="429"),
    ]


def chat_session(
    session_id: str = SESSION, requests: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``ISerializableChatData`` v3 in the key order VS Code writes (``toExport()`` first)."""
    return {
        "version": 3,
        "requesterUsername": "exampleuser",
        "responderUsername": "GitHub Copilot",
        "initialLocation": "panel",
        "requests": rich_requests() if requests is None else requests,
        "sessionId": session_id,
        "creationDate": T0,
        "lastMessageDate": T0 + 130000,
        "customTitle": "Fix the README",
        "mode": {"id": "agent", "kind": "agent"},
    }


def export_of(session: dict[str, Any]) -> dict[str, Any]:
    """What Chat: Export Chat writes: ``toExport()``, no ``sessionId`` (``IExportableChatData``)."""
    keep = ("requesterUsername", "responderUsername", "initialLocation", "requests")
    return {k: session[k] for k in keep}


def mutation_log(session: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries VS Code's ObjectMutationLog writes as the session grows: an empty Initial,
    each request pushed without its end, the end set later (kind 1, NC §1.4), a title set and
    deleted (kind 3)."""
    head = {k: v for k, v in session.items() if k != "requests"}
    entries: list[dict[str, Any]] = [{"kind": 0, "v": {**head, "requests": []}}]
    for index, req in enumerate(session["requests"]):
        stub = {k: v for k, v in req.items() if k not in ("result", "modelState", "response")}
        stub["response"] = req["response"][:1]
        entries.append({"kind": 2, "k": ["requests"], "v": [stub]})
        if len(req["response"]) > 1:
            entries.append(
                {"kind": 2, "k": ["requests", index, "response"], "v": req["response"][1:]}
            )
        entries.append({"kind": 1, "k": ["requests", index, "promptTokens"], "v": 18561})
        if "result" in req:
            entries.append({"kind": 1, "k": ["requests", index, "result"], "v": req["result"]})
        entries.append({"kind": 1, "k": ["requests", index, "modelState"], "v": req["modelState"]})
    entries.append({"kind": 1, "k": ["customTitle"], "v": "Renamed"})
    entries.append({"kind": 3, "k": ["customTitle"]})
    return entries


def write_jsonl(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def write_json(path: Path, obj: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1), encoding="utf-8")
    return path


def transcript(session_id: str = SESSION) -> list[dict[str, Any]]:
    """A Copilot Chat transcript: one turn with a read and a failing command, usage, a second
    turn with text only."""
    entries: list[dict[str, Any]] = []
    parent: list[str | None] = [None]

    def add(kind: str, data: dict[str, Any], second: int) -> None:
        ident = f"e{len(entries) + 1}"
        entries.append(
            {
                "type": kind,
                "data": data,
                "id": ident,
                "timestamp": f"2026-01-21T21:0{second // 60}:{second % 60:02d}.000Z",
                "parentId": parent[0],
            }
        )
        parent[0] = ident

    add(
        "session.start",
        {
            "sessionId": session_id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": "0.47.0",
            "vscodeVersion": "1.134.0",
            "startTime": "2026-01-21T21:00:00.000Z",
            "context": {"cwd": "/w"},
        },
        0,
    )
    add("user.message", {"content": "Read README.md and run the tests", "attachments": []}, 1)
    add("assistant.turn_start", {"turnId": "0.0"}, 2)
    add(
        "assistant.message",
        {
            "messageId": "m1",
            "content": "",
            "toolRequests": [
                {
                    "toolCallId": "call_read_1",
                    "name": "read_file",
                    "arguments": "{}",
                    "type": "function",
                }
            ],
        },
        3,
    )
    add(
        "tool.execution_start",
        {
            "toolCallId": "call_read_1",
            "toolName": "read_file",
            "arguments": {"filePath": "/w/README.md"},
        },
        4,
    )
    add(
        "tool.execution_complete",
        {"toolCallId": "call_read_1", "success": True, "result": {"content": "# Demo"}},
        5,
    )
    add(
        "tool.execution_start",
        {
            "toolCallId": "call_sh_2",
            "toolName": "run_in_terminal",
            "arguments": '{"command": "ls /missing"}',
        },
        6,
    )
    add(
        "tool.execution_complete",
        {"toolCallId": "call_sh_2", "success": False, "result": {"content": "exit code 2"}},
        7,
    )
    add("assistant.usage", {"model": "gpt-5", "inputTokens": 18561, "outputTokens": 143}, 8)
    add("assistant.message", {"messageId": "m2", "content": "Tests pass.", "toolRequests": []}, 9)
    add("assistant.turn_end", {"turnId": "0.0"}, 10)
    add("user.message", {"content": "Thanks", "attachments": []}, 20)
    add(
        "assistant.message",
        {"messageId": "m3", "content": "You're welcome.", "toolRequests": []},
        21,
    )
    return entries


STORE_DDL = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT,
  branch TEXT, summary TEXT, agent_name TEXT, agent_description TEXT,
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE turns (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL
  REFERENCES sessions(id), turn_index INTEGER NOT NULL, user_message TEXT,
  assistant_response TEXT, timestamp TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE(session_id, turn_index));
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL
  REFERENCES sessions(id), checkpoint_number INTEGER NOT NULL, title TEXT, overview TEXT,
  history TEXT, work_done TEXT, technical_details TEXT, important_files TEXT, next_steps TEXT,
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE(session_id, checkpoint_number));
CREATE TABLE session_files (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL
  REFERENCES sessions(id), file_path TEXT NOT NULL, tool_name TEXT, turn_index INTEGER,
  first_seen_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE(session_id, file_path));
CREATE TABLE session_refs (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL
  REFERENCES sessions(id), ref_type TEXT NOT NULL, ref_value TEXT NOT NULL, turn_index INTEGER,
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE(session_id, ref_type, ref_value));
"""


def write_store(path: Path, session_id: str = SESSION, wal: bool = True) -> Path:
    """A chronicle store with one session: two turns, a checkpoint, two files, a ref."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode = WAL")
    db.executescript(STORE_DDL)
    db.execute("INSERT INTO schema_version VALUES (3)")
    db.execute(
        "INSERT INTO sessions (id, cwd, repository, host_type, branch, summary, agent_name,"
        " created_at, updated_at) VALUES (?, '/w', 'example/demo', 'github', 'main',"
        " 'Fix the README', 'agent', '2026-01-21T21:00:00.000Z', '2026-01-21T21:02:10.000Z')",
        (session_id,),
    )
    db.executemany(
        "INSERT INTO turns (session_id, turn_index, user_message, assistant_response, timestamp)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (
                session_id,
                0,
                "Read README.md and run the tests",
                "Tests pass.",
                "2026-01-21T21:00:01.000Z",
            ),
            (
                session_id,
                1,
                "Fix the typo",
                "I could not apply the edit.",
                "2026-01-21T21:01:00.000Z",
            ),
        ],
    )
    db.execute(
        "INSERT INTO checkpoints (session_id, checkpoint_number, title, overview, work_done,"
        " created_at) VALUES (?, 1, 'Checkpoint', 'Read and tested', 'ran pytest',"
        " '2026-01-21T21:01:30.000Z')",
        (session_id,),
    )
    db.executemany(
        "INSERT INTO session_files (session_id, file_path, tool_name, turn_index, first_seen_at)"
        " VALUES (?, ?, ?, ?, '2026-01-21T21:00:02.000Z')",
        [
            (session_id, "/w/README.md", "read_file", 0),
            (session_id, "/w/setup.py", "create_file", 1),
        ],
    )
    db.execute(
        "INSERT INTO session_refs (session_id, ref_type, ref_value, turn_index, created_at)"
        " VALUES (?, 'pr', 'example/demo#7', 1, '2026-01-21T21:02:00.000Z')",
        (session_id,),
    )
    db.commit()
    db.close()
    return path


def hook_payload(event: str, **fields: Any) -> dict[str, Any]:
    """A VS Code Local hook payload (the NC §1.3 capture's common fields)."""
    from trace_ingest.vscode_facts import encode_session_id

    return {
        "timestamp": "2026-02-08T15:48:34.318Z",
        "cwd": "/w/.github/hooks",
        "sessionId": encode_session_id(SESSION),
        "hookEventName": event,
        **fields,
    }
