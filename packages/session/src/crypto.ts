// node:crypto, loaded the first time a session needs an id, a nonce or a hash. A static import
// costs every command ~8 ms of start-up (sixteen internal modules), and `tern sessions ls --all`
// or `tern usage` never needs it.
import { createRequire } from "node:module";

type NodeCrypto = typeof import("node:crypto");

const load = createRequire(import.meta.url);
let crypto: NodeCrypto | undefined;

function nodeCrypto(): NodeCrypto {
  crypto ??= load("node:crypto") as NodeCrypto;
  return crypto;
}

/** `bytes` random bytes as hex: temp-file suffixes, lock nonces, entry ids. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString("hex");
}

export function randomUUID(): string {
  return nodeCrypto().randomUUID();
}

export function sha256Hex(text: string): string {
  return nodeCrypto().createHash("sha256").update(text).digest("hex");
}
