// placeholder
import { UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
export async function mcpServeCommand(_argv: string[], _io: Io): Promise<never> {
  throw new UsageError("tern mcp serve is not built yet");
}
