// Installs a peer CLI on demand into bench/.peers/<id>/ (git-ignored) with `npm install --prefix`
// and the exact version, once: a folder that already holds that version is used as it is. Never
// part of the project's `npm ci`. A failure is a reason string for the table, not an exception.

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const PEERS_DIR = fileURLToPath(new URL("../../.peers/", import.meta.url));

export type Installed = { ok: true; bin: string } | { ok: false; reason: string };

export async function ensureInstalled(
  id: string,
  npm: { name: string; version: string; bin: string },
  /** npm `overrides` for the peer's folder: a dependency the registry cannot serve as published. */
  overrides?: Record<string, string>,
): Promise<Installed> {
  const prefix = join(PEERS_DIR, id);
  const manifest = join(prefix, "node_modules", npm.name, "package.json");
  const bin = npm.bin ? join(prefix, "node_modules", ".bin", npm.bin) : prefix;
  const installedVersion = () =>
    existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version
      : undefined;
  if (installedVersion() !== npm.version || !existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    if (!existsSync(join(prefix, "package.json")) || overrides)
      writeFileSync(join(prefix, "package.json"), `${JSON.stringify({ private: true, overrides })}\n`);
    try {
      await promisify(execFile)(
        "npm",
        [
          "install",
          "--prefix",
          prefix,
          "--no-audit",
          "--no-fund",
          "--save-exact",
          `${npm.name}@${npm.version}`,
        ],
        { maxBuffer: 16 * 1024 * 1024 },
      );
    } catch (error) {
      const text = String((error as { stderr?: string }).stderr || (error as Error).message);
      return { ok: false, reason: `npm install failed: ${text.trim().split("\n").pop()?.slice(0, 120)}` };
    }
  }
  if (installedVersion() !== npm.version)
    return { ok: false, reason: `installed ${installedVersion() ?? "nothing"}, wanted ${npm.version}` };
  if (!existsSync(bin)) return { ok: false, reason: `no ${npm.bin} executable after install` };
  return { ok: true, bin };
}
