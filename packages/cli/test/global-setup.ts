// Vitest global setup: builds the `tern` bundle once before the CLI's end-to-end tests spawn it.
import { ensureBuilt } from "./support/build.js";

export default function setup(): void {
  ensureBuilt();
}
