export {
  type Attachment,
  type AttachmentResult,
  attachmentBlock,
  MAX_ATTACHED_IMAGE_BYTES,
  MAX_ATTACHED_TEXT_BYTES,
  promptWithAttachments,
  readAttachment,
} from "./attachments.js";
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
export { installPermissions, PERMISSION_HOOK_PRIORITY, permissionHook } from "./permissions/hook.js";
export { type CallInput, PermissionPolicy } from "./permissions/policy.js";
export { formatRule, parseRule } from "./permissions/rules.js";
export { analyzeCommand, type ShellAnalysis } from "./permissions/shell.js";
export * from "./permissions/types.js";
export { SAFE_VARIABLES, scrubEnvironment } from "./sandbox/environment.js";
export { HIDDEN_HOME_PATHS, HIDDEN_SYSTEM_PATHS } from "./sandbox/hidden-paths.js";
export {
  createSandbox,
  describeSandbox,
  SANDBOX_PROFILES,
  type Sandbox,
  type SandboxStatus,
  sandboxWarning,
} from "./sandbox/sandbox.js";
export { bashTool } from "./tools/bash.js";
export { editTool } from "./tools/edit.js";
export { globTool } from "./tools/glob.js";
export { grepTool } from "./tools/grep.js";
export { lsTool } from "./tools/ls.js";
export { readTool } from "./tools/read.js";
export { writeTool } from "./tools/write.js";
export * from "./types.js";
export { type Resolution, Workspace } from "./workspace.js";
