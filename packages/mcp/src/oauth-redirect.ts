// The loopback end of an OAuth authorization-code login: an HTTP listener on 127.0.0.1 and a
// random port that takes exactly one good redirect (`GET /callback?code=…&state=…` with the state
// we sent) and then closes. Anything else that reaches it is assumed hostile and changes nothing:
// another path is 404, a missing or wrong state (or no code) is 400, another method is 405. The
// authorization server's own refusal (`error=…`) ends the login with that error. A ceiling
// (injectable) closes the listener if no good redirect arrives.

import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";

export const REDIRECT_PATH = "/callback";
/** How long a login waits for the browser to come back. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface RedirectListener {
  /** `http://127.0.0.1:<port>/callback`. */
  url: string;
  /** The random `state` the redirect must carry. */
  state: string;
  /** Resolves with the authorization code; rejects on the server's refusal or the ceiling. */
  code: Promise<string>;
  close(): Promise<void>;
}

export class OAuthLoginError extends Error {
  override name = "OAuthLoginError";
}

export async function listenForRedirect(timeoutMs = DEFAULT_LOGIN_TIMEOUT_MS): Promise<RedirectListener> {
  const state = randomBytes(24).toString("base64url");
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => {});
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== REDIRECT_PATH) return answer(res, 404, "not found");
    if (req.method !== "GET") return answer(res, 405, "method not allowed");
    if (url.searchParams.get("state") !== state) return answer(res, 400, "wrong or missing state");
    const refused = url.searchParams.get("error");
    if (refused) {
      const description = url.searchParams.get("error_description");
      answer(res, 400, `login refused: ${refused}`);
      const reason = `${refused}${description ? ` (${description})` : ""}`;
      res.once("close", () => finish(new OAuthLoginError(`the authorization server refused: ${reason}`)));
      return;
    }
    const value = url.searchParams.get("code");
    if (!value) return answer(res, 400, "no authorization code");
    answer(res, 200, "tern is logged in; you can close this page.");
    res.once("close", () => finish(value));
  });
  const timer = setTimeout(
    () => finish(new OAuthLoginError(`no login arrived within ${Math.round(timeoutMs / 1000)} s`)),
    timeoutMs,
  );
  timer.unref();
  let closed: Promise<void> | undefined;
  const close = () => {
    clearTimeout(timer);
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  /** The first outcome wins; the listener closes once its answer is sent. */
  function finish(outcome: string | Error): void {
    void close();
    if (typeof outcome === "string") settle.resolve(outcome);
    else settle.reject(outcome);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}${REDIRECT_PATH}`, state, code, close };
}

function answer(res: ServerResponse, status: number, text: string): void {
  res
    .writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" })
    .end(`${text}\n`);
}
