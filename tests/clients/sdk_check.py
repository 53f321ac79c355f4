"""Runs one plan against `evident serve --http` with the official MCP Python SDK
(`mcp`, pinned in tests/clients/requirements.txt) over its streamable HTTP
client, and prints a JSON report on stdout. Driven by tests/it/sdk_clients.rs:

    python sdk_check.py PLAN.json

PLAN: {"url": "http://127.0.0.1:PORT/mcp", "headers": {...},
       "lifecycle": "initialize" | "discover", "steps": [STEP, ...]}
  initialize: the handshake of the revisions with sessions (2025-11-25);
  discover:   server/discover and the POST-only form of 2026-07-28.
STEP: the kinds of sdk_check.mjs: list, list_cursor, call (expect ok | error, code).
Every step is reported as {"step": i, "pass": bool, "detail": "..."}; the SDK
validates each structuredContent against the tool's outputSchema.
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


async def run(plan):
    report = {"steps": [], "tool_names": [], "protocol_version": None}

    def result(step, passed, detail):
        report["steps"].append({"step": step, "pass": bool(passed), "detail": detail})

    try:
        async with create_mcp_http_client(headers=plan.get("headers") or {}) as http:
            async with streamable_http_client(plan["url"], http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    if plan.get("lifecycle") == "discover":
                        discovered = await session.discover()
                        report["protocol_version"] = max(discovered.supported_versions)
                    else:
                        initialized = await session.initialize()
                        report["protocol_version"] = initialized.protocol_version
                    for i, step in enumerate(plan["steps"]):
                        try:
                            await run_step(session, i, step, report, result)
                        except Exception as e:  # a step that throws fails, the rest still run
                            result(i, False, f"threw: {type(e).__name__}: {e}")
    except Exception as e:
        report["steps"].append({"step": -1, "pass": False, "detail": f"connect failed: {type(e).__name__}: {e}"})
    return report


async def run_step(session, i, step, report, result):
    kind = step["kind"]
    if kind == "list":
        listed = await session.list_tools()
        report["tool_names"] = [t.name for t in listed.tools]
        result(i, len(listed.tools) > 0, f"{len(listed.tools)} tools")
    elif kind == "list_cursor":
        try:
            await session.list_tools(params=types.PaginatedRequestParams(cursor=step["cursor"]))
            result(i, False, "tools/list accepted an invalid cursor")
        except MCPError as e:
            result(i, e.error.code == -32602, f"code {e.error.code}: {e.error.message}")
    elif kind == "call":
        r = await session.call_tool(step["tool"], step["arguments"])
        text = r.content[0].text if r.content else ""
        label = f"{step['tool']} {json.dumps(step['arguments'])}"[:160]
        if step["expect"] == "ok":
            body = json.loads(text)
            sections = list((r.structured_content or {}).keys())
            passed = not r.is_error and len(sections) == 8 and body == r.structured_content
            result(i, passed, f"{label}: {'error ' + text[:200] if r.is_error else ','.join(sections)}")
        else:
            body = json.loads(text)
            passed = (
                r.is_error
                and r.structured_content is None
                and body.get("error_code") == step["code"]
                and isinstance(body.get("error"), str)
                and body["error"]
            )
            result(i, passed, f"{label}: isError={r.is_error} error_code={body.get('error_code')}")
    else:
        result(i, False, f"unknown step kind {kind}")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    report = asyncio.run(run(plan))
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
