// Runs one plan against `evident serve` with the official MCP TypeScript SDK
// (the client that the Inspector and most desktop and editor hosts build on)
// and prints a JSON report on stdout. Driven by tests/it/sdk_clients.rs:
//
//   node tests/clients/sdk_check.mjs PLAN.json
//
// PLAN: {"command": "...", "args": [...], "env": {...}, "steps": [STEP, ...]}
//    or {"url": "http://127.0.0.1:PORT/mcp", "headers": {...}, "steps": [...]} for a
//       server already listening (`evident serve --http`), through the SDK's
//       streamable HTTP client
// STEP: {"kind": "list"}                          tools/list through Client.listTools
//       {"kind": "list_cursor", "cursor": "..."}  tools/list with a cursor: must fail with -32602
//       {"kind": "call", "tool": "...", "arguments": {...}, "expect": "ok" | "error", "code": "..."}
//       {"kind": "write", "path": "...", "text": "..."}
// Every step is reported as {"step": i, "pass": bool, "detail": "..."}; the
// SDK validates each structuredContent against the tool's outputSchema, so a
// result it rejects is a failed step.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// The plan's variables win over the inherited ones; `unset` only clears inherited ones.
const inherited = { ...process.env };
for (const key of plan.unset ?? []) delete inherited[key];
const env = { ...inherited, ...plan.env };

const transport = plan.url
  ? new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers: plan.headers ?? {} } })
  : new StdioClientTransport({ command: plan.command, args: plan.args, env, stderr: "ignore" });
const client = new Client({ name: "evident-sdk-check", version: "1.0.0" });
const report = { steps: [], tools_list_bytes: null, tool_names: [], response_bytes: {}, protocol_version: null };

function result(step, pass, detail) {
  report.steps.push({ step, pass, detail });
}

try {
  await client.connect(transport);
  report.protocol_version = transport.protocolVersion ?? null;
  for (const [i, step] of plan.steps.entries()) {
    try {
      if (step.kind === "list") {
        const listed = await client.listTools();
        report.tools_list_bytes = Buffer.byteLength(JSON.stringify(listed));
        report.tool_names = listed.tools.map((t) => t.name);
        result(i, listed.tools.length > 0, `${listed.tools.length} tools, ${report.tools_list_bytes} bytes`);
      } else if (step.kind === "list_cursor") {
        try {
          await client.listTools({ cursor: step.cursor });
          result(i, false, "tools/list accepted an invalid cursor");
        } catch (e) {
          result(i, e.code === -32602, `code ${e.code}: ${e.message}`);
        }
      } else if (step.kind === "write") {
        writeFileSync(step.path, step.text);
        result(i, true, `wrote ${step.path}`);
      } else if (step.kind === "call") {
        const r = await client.callTool({ name: step.tool, arguments: step.arguments });
        const text = r.content?.[0]?.text ?? "";
        const label = `${step.tool} ${JSON.stringify(step.arguments)}`.slice(0, 160);
        if (step.expect === "ok") {
          const body = JSON.parse(text);
          const sections = Object.keys(r.structuredContent ?? {});
          const pass = r.isError !== true && sections.length === 8 && JSON.stringify(body) === JSON.stringify(r.structuredContent);
          report.response_bytes[step.label ?? step.tool] = Buffer.byteLength(text);
          result(i, pass, `${label}: ${r.isError ? "error " + text.slice(0, 200) : sections.join(",")}`);
        } else {
          const body = JSON.parse(text);
          const pass = r.isError === true && r.structuredContent === undefined && body.error_code === step.code
            && typeof body.error === "string" && body.error.length > 0;
          result(i, pass, `${label}: isError=${r.isError} error_code=${body.error_code} error=${body.error}`);
        }
      } else {
        result(i, false, `unknown step kind ${step.kind}`);
      }
    } catch (e) {
      result(i, false, `threw: ${e.message}`);
    }
  }
} catch (e) {
  report.steps.push({ step: -1, pass: false, detail: `connect failed: ${e.message}` });
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
