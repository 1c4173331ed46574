// The sandbox profiles by name, in a module of their own: the CLI's settings validate
// `--sandbox` with them, and naming them must not load the sandbox (bubblewrap, the network
// proxy and its address parser) into commands that never run bash, such as `sessions` and `usage`.
import type { SandboxProfile } from "../types.js";

export const SANDBOX_PROFILES: readonly SandboxProfile[] = ["sandbox", "off"];
