import { open } from "node:fs/promises";
import { looksBinary, SNIFF_BYTES } from "./text.js";

/** Sniffs the start of a file; throws filesystem errors for the caller to report. */
export async function isBinaryFile(abs: string): Promise<boolean> {
  const handle = await open(abs, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
