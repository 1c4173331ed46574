// Where OAuth credentials for remote MCP servers live: one JSON file a server (keyed by its name
// and a hash of its URL, so a renamed URL never reuses another server's tokens) in a directory
// the caller names, the directory 0700 and each file 0600, written through a temporary file and a
// rename so a crash never leaves half a token. The SDK saves a login's parts (client, verifier,
// tokens) as they come, possibly at once: the writes of one file run one after the other, so no
// update loses another's fields. A file that is not what we wrote reads as "no credentials" (the
// user logs in again) rather than as an error.

import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { writeFileAtomic } from "./atomic-write.js";
import { sanitizeNamePart } from "./names.js";

export interface StoredOAuth {
  /** The server URL these credentials are for. */
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from `expires_in` at the time it came. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
  /** The PKCE verifier of a login in progress. */
  codeVerifier?: string;
}

export class OAuthStore {
  /** Per file, the end of the changes queued on it. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(readonly dir: string) {}

  file(server: string, url: string): string {
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
    return join(this.dir, `${sanitizeNamePart(server)}-${hash}.json`);
  }

  async read(server: string, url: string): Promise<StoredOAuth> {
    let text: string;
    try {
      text = await readFile(this.file(server, url), "utf8");
    } catch {
      return { url };
    }
    try {
      const data = JSON.parse(text) as StoredOAuth;
      return typeof data === "object" && data !== null && data.url === url ? data : { url };
    } catch {
      return { url };
    }
  }

  async write(server: string, url: string, data: StoredOAuth): Promise<void> {
    await this.inTurn(server, url, () => this.replace(server, url, data));
  }

  async update(server: string, url: string, change: (data: StoredOAuth) => StoredOAuth): Promise<void> {
    await this.inTurn(server, url, async () =>
      this.replace(server, url, change(await this.read(server, url))),
    );
  }

  /** Forgets a server's credentials; true when there were some. */
  async remove(server: string, url: string): Promise<boolean> {
    return this.inTurn(server, url, async () => {
      const had = (await this.read(server, url)).tokens !== undefined;
      await rm(this.file(server, url), { force: true });
      return had;
    });
  }

  private async replace(server: string, url: string, data: StoredOAuth): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await writeFileAtomic(this.file(server, url), `${JSON.stringify(data, null, 2)}\n`);
  }

  /** Runs `change` after the changes already queued on the file (a failed one does not stop the next). */
  private inTurn<T>(server: string, url: string, change: () => Promise<T>): Promise<T> {
    const file = this.file(server, url);
    const result = (this.queues.get(file) ?? Promise.resolve()).then(change);
    const settled = result.then(
      () => {},
      () => {},
    );
    this.queues.set(file, settled);
    void settled.then(() => {
      if (this.queues.get(file) === settled) this.queues.delete(file);
    });
    return result;
  }
}
