// A file replaced whole or not at all: written to a temporary file beside it, then renamed over
// it, so a crash never leaves half a token or half an approval. Each write has its own temporary
// name (pid and random), so two writes in one process never rename each other's file away.
import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";

export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, text, { mode });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
