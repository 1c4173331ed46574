// @tern/mcp's public surface: load and approve MCP configurations, run the servers as agent tools
// through McpManager, log in to OAuth servers, and turn MCP prompts into commands. Connections,
// transports, name assignment and the OAuth redirect are internals of the manager and the login.
export { FileApprovalStore, pendingApprovals } from "./approval.js";
export type { McpServerConfig, McpServerEntry, RemoteServerConfig, StdioServerConfig } from "./config.js";
export type { McpServerState } from "./connection.js";
export { contentAsText } from "./content.js";
export { type LoadedMcpConfig, type LoadMcpConfigOptions, loadMcpConfig } from "./load-config.js";
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  McpManager,
  type McpManagerOptions,
  type McpServerStatus,
} from "./manager.js";
export { MCP_TOOL_PREFIX, sanitizeNamePart } from "./names.js";
export { loginMcpServer, logoutMcpServer, type McpLoginOptions } from "./oauth-login.js";
export type { McpOAuthOptions } from "./oauth-provider.js";
export { OAuthStore } from "./oauth-store.js";
export { type McpPromptCommand, parsePromptArguments, promptText, promptUsage } from "./prompts.js";
export { isMcpTool, type McpAgentTool } from "./tool.js";
