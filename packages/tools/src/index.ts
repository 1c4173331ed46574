export {
  type Attachment,
  attachedTextBlock,
  MAX_ATTACHED_TEXT_BYTES,
  promptWithAttachments,
  readAttachment,
} from "./attachments.js";
export { type FileChange, sessionChanges } from "./checkpoints/changes.js";
export { applyRewind, planRewind, type RewindFile, type RewindPlan } from "./checkpoints/rewind.js";
export { CheckpointStore } from "./checkpoints/store.js";
export { installCheckpoints } from "./checkpoints/tracker.js";
export { BUILTIN_TOOL_NAMES, codingTools, createTools } from "./create-tools.js";
export {
  type CommandHookOptions,
  type CommandHookSpec,
  commandHook,
  DEFAULT_COMMAND_HOOK_TIMEOUT_MS,
} from "./hooks/command-hook.js";
export {
  DEFAULT_INSTRUCTIONS_MAX_BYTES,
  formatInstructions,
  INSTRUCTION_FILE_NAMES,
  type InstructionFile,
  type InstructionOptions,
  type LoadedInstructions,
  loadInstructions,
  workspaceRoot,
} from "./instructions.js";
export { installPermissions, PERMISSION_HOOK_PRIORITY } from "./permissions/hook.js";
export { PermissionPolicy } from "./permissions/policy.js";
export { parseRule } from "./permissions/rules.js";
export * from "./permissions/types.js";
export { parseHostPattern } from "./sandbox/host-rules.js";
export { SANDBOX_PROFILES } from "./sandbox/profiles.js";
export {
  createSandbox,
  describeSandbox,
  type SandboxStatus,
  sandboxWarning,
} from "./sandbox/sandbox.js";
export { discoverSkills, type LoadedSkills, type Skill, type SkillDirectory } from "./skills/discover.js";
export { SKILL_TOOL_NAME, skillTool } from "./skills/skill-tool.js";
export { formatSkillsSection } from "./skills/skills-section.js";
export { latestTodos, type TodoItem, todoWriteTool } from "./todo/todo-write.js";
export { BASH_DEFAULT_TIMEOUT_MS, BASH_OUTPUT_BYTES, bashTool } from "./tools/bash.js";
export { editTool } from "./tools/edit.js";
export { globTool } from "./tools/glob.js";
export { grepTool } from "./tools/grep.js";
export { lsTool } from "./tools/ls.js";
export { readTool } from "./tools/read.js";
export { writeTool } from "./tools/write.js";
export * from "./types.js";
export { webFetchTool } from "./web/web-fetch.js";
export {
  httpSearchBackend,
  type SearchBackend,
  type SearchHit,
  webSearchTool,
} from "./web/web-search.js";
export { isInside, Workspace } from "./workspace.js";
