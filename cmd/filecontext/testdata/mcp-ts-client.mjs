// An MCP client written with the TypeScript SDK: it connects to the server
// given on the command line (stdio: a command; http: a URL), lists the
// tools, calls file_access_read and a call that fails, and prints one JSON
// summary for the Go test to check.
//   node mcp-ts-client.mjs stdio <command> [args...]
//   node mcp-ts-client.mjs http <url>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...args] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "filecontext-ts-test", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
const read = await client.callTool({ name: "file_access_read", arguments: { fileName: "notes/todo.txt" } });
const missing = await client.callTool({ name: "file_access_read", arguments: { fileName: "missing.md" } });
console.log(JSON.stringify({
  instructions: client.getInstructions() ?? "",
  server: client.getServerVersion(),
  tools: tools.tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint ?? null })),
  read: { isError: read.isError ?? false, structured: read.structuredContent, text: read.content?.[0]?.text },
  missing: { isError: missing.isError ?? false, structured: missing.structuredContent },
}));
await client.close();
