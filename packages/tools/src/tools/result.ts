import type { AgentToolResult } from "@tern/agent";

/** An error result the model reads; tools never throw for things the model can fix. */
export function toolError<T>(text: string, details?: T): AgentToolResult<T> {
  const result: AgentToolResult<T> = { content: text, isError: true };
  if (details !== undefined) result.details = details;
  return result;
}

export function toolText<T>(text: string, details: T): AgentToolResult<T> {
  return { content: text, details };
}

/** The message of a thrown filesystem error, without Node's stack noise. */
export function fsErrorText(error: unknown, rel: string): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return `${rel}: no such file or directory.`;
    case "EACCES":
    case "EPERM":
      return `${rel}: permission denied.`;
    case "EISDIR":
      return `${rel} is a directory.`;
    case "ENOTDIR":
      return `${rel}: a parent of this path is not a directory.`;
    default:
      return `${rel}: ${(error as Error)?.message ?? String(error)}`;
  }
}
