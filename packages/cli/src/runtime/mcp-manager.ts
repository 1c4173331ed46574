// The MCP manager, reached through a dynamic import() once there is a server to start: it brings
// the MCP SDK with its zod schemas and ajv, which a run without MCP servers never needs.
export { McpManager } from "@tern/mcp";
