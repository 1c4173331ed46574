export {
  APPROVALS_FILE,
  type ApprovalStore,
  type ApprovedConfig,
  configHash,
  FileApprovalStore,
  pendingApprovals,
} from "./approval.js";
export {
  type McpConfigProblem,
  type McpConfigScope,
  type McpServerConfig,
  type McpServerEntry,
  type ParsedMcpConfig,
  parseMcpConfig,
  type RemoteServerConfig,
  type StdioServerConfig,
} from "./config.js";
export {
  type ConnectionOptions,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type McpServerState,
  McpUnavailableError,
  type RestartOptions,
} from "./connection.js";
export { contentAsText, type McpResultDetails, toToolResult } from "./content.js";
export {
  defaultTernHome,
  type LoadedMcpConfig,
  type LoadMcpConfigOptions,
  loadMcpConfig,
  PROJECT_CONFIG_FILE,
  USER_CONFIG_FILE,
} from "./load-config.js";
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  type McpChangeListener,
  McpManager,
  type McpManagerOptions,
  type McpServerStatus,
} from "./manager.js";
export {
  type AssignedToolName,
  assignToolNames,
  MAX_TOOL_NAME_LENGTH,
  MCP_TOOL_PREFIX,
  mcpToolName,
  sanitizeNamePart,
  type ToolNameRequest,
} from "./names.js";
export { loginMcpServer, logoutMcpServer, type McpLoginOptions } from "./oauth-login.js";
export {
  DEFAULT_REFRESH_SKEW_MS,
  type McpOAuthOptions,
  McpOAuthProvider,
} from "./oauth-provider.js";
export {
  DEFAULT_LOGIN_TIMEOUT_MS,
  listenForRedirect,
  OAuthLoginError,
  REDIRECT_PATH,
  type RedirectListener,
} from "./oauth-redirect.js";
export { OAuthStore, type StoredOAuth } from "./oauth-store.js";
export {
  type McpPromptCommand,
  type PromptArguments,
  parsePromptArguments,
  promptText,
  promptUsage,
} from "./prompts.js";
export {
  isMcpTool,
  type McpAgentTool,
  type McpToolInfo,
  type McpToolKind,
  type McpToolOptions,
} from "./tool.js";
