// The names in a directory, or none when it does not exist yet: the store and its index both
// list directories that are only made on first write. Any other failure is thrown.
import { readdirSync } from "node:fs";

export function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
