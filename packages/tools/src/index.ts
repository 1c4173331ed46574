export {
  type Attachment,
  type AttachmentResult,
  attachedTextBlock,
  attachmentBlock,
  MAX_ATTACHED_IMAGE_BYTES,
  MAX_ATTACHED_TEXT_BYTES,
  promptWithAttachments,
  readAttachment,
} from "./attachments.js";
export {
  type ChangesOptions,
  type FileChange,
  MAX_DIFF_EDITS,
  MAX_DIFF_FILE_BYTES,
  sessionChanges,
} from "./checkpoints/changes.js";
export {
  applyRewind,
  planRewind,
  type RewindFile,
  type RewindPlan,
  type RewindResult,
} from "./checkpoints/rewind.js";
export {
  type CheckpointRecord,
  CheckpointStore,
  type FileState,
  MAX_SNAPSHOT_FILE_BYTES,
} from "./checkpoints/store.js";
export {
  CHECKPOINT_HOOK_PRIORITY,
  type CheckpointOptions,
  installCheckpoints,
} from "./checkpoints/tracker.js";
export { MAX_SCAN_FILES, MAX_SCAN_SNAPSHOT_BYTES } from "./checkpoints/workspace-scan.js";
export { BUILTIN_TOOL_NAMES, codingTools, createTools } from "./create-tools.js";
export {
  type CommandHookOptions,
  type CommandHookSpec,
  commandHook,
  DEFAULT_COMMAND_HOOK_TIMEOUT_MS,
  HOOK_OUTPUT_MAX_BYTES,
  HOOK_PROJECT_DIR_ENV,
} from "./hooks/command-hook.js";
export { BLOCK_EXIT_CODE } from "./hooks/hook-answer.js";
export {
  DEFAULT_INSTRUCTIONS_MAX_BYTES,
  formatInstructions,
  INSTRUCTION_FILE_NAMES,
  INSTRUCTIONS_MAX_BYTES_ENV,
  type InstructionFile,
  type InstructionOptions,
  type LoadedInstructions,
  loadInstructions,
  workspaceRoot,
} from "./instructions.js";
export { suggestRules } from "./permissions/describe.js";
export { installPermissions, PERMISSION_HOOK_PRIORITY, permissionHook } from "./permissions/hook.js";
export { type CallInput, PermissionPolicy } from "./permissions/policy.js";
export { READ_ONLY_PROGRAMS, type ReadOnlyVerdict, readOnlyCommand } from "./permissions/read-only.js";
export { formatRule, parseRule } from "./permissions/rules.js";
export { analyzeCommand, type ShellAnalysis } from "./permissions/shell.js";
export * from "./permissions/types.js";
export { SAFE_VARIABLES, scrubEnvironment } from "./sandbox/environment.js";
export { HIDDEN_HOME_PATHS, HIDDEN_SYSTEM_PATHS } from "./sandbox/hidden-paths.js";
export { type HostPattern, parseHostPattern } from "./sandbox/host-rules.js";
export type { Destination, NetworkProxy, Refusal } from "./sandbox/network-proxy.js";
export { SANDBOX_PROFILES } from "./sandbox/profiles.js";
export {
  createSandbox,
  describeSandbox,
  type Sandbox,
  type SandboxStatus,
  sandboxWarning,
} from "./sandbox/sandbox.js";
export {
  DEFAULT_SKILL_MAX_BYTES,
  DEFAULT_SKILLS_PER_DIRECTORY,
  type DiscoverOptions,
  discoverSkills,
  type LoadedSkills,
  SKILL_FILE_NAME,
  type Skill,
  type SkillDirectory,
} from "./skills/discover.js";
export {
  MAX_SKILL_DESCRIPTION_CHARS,
  MAX_SKILL_NAME_CHARS,
  parseSkillFile,
  type SkillFile,
  type SkillParse,
} from "./skills/skill-file.js";
export {
  DEFAULT_SKILL_FILES_LISTED,
  SKILL_TOOL_NAME,
  type SkillDetails,
  type SkillToolOptions,
  skillTool,
} from "./skills/skill-tool.js";
export {
  DEFAULT_SKILLS_LISTED,
  DEFAULT_SKILLS_SECTION_CHARS,
  formatSkillsSection,
  type SkillsSectionOptions,
} from "./skills/skills-section.js";
export {
  latestTodos,
  MAX_TODO_ITEMS,
  TODO_STATUSES,
  type TodoDetails,
  type TodoItem,
  type TodoStatus,
  todoListProblem,
  todoWriteTool,
} from "./todo/todo-write.js";
export { BASH_DEFAULT_TIMEOUT_MS, BASH_OUTPUT_BYTES, bashTool } from "./tools/bash.js";
export { editTool } from "./tools/edit.js";
export { globTool } from "./tools/glob.js";
export { grepTool } from "./tools/grep.js";
export { lsTool } from "./tools/ls.js";
export { readTool } from "./tools/read.js";
export { writeTool } from "./tools/write.js";
export * from "./types.js";
export {
  type AddressGuardOptions,
  BlockedAddressError,
  checkAddress,
} from "./web/address-guard.js";
export {
  WEB_FETCH_DEFAULTS,
  type WebFetchDetails,
  type WebFetchOptions,
  webFetchTool,
} from "./web/web-fetch.js";
export {
  type HttpSearchConfig,
  httpSearchBackend,
  type SearchBackend,
  type SearchHit,
  WEB_SEARCH_DEFAULTS,
  type WebSearchDetails,
  webSearchTool,
} from "./web/web-search.js";
export { isInside, type Resolution, Workspace } from "./workspace.js";
