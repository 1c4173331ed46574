// `tern mcp login`/`logout` as library calls: a login runs the SDK's `auth()` with our provider
// and a loopback redirect listener: discovery and registration, then the authorization URL shown
// through `show` (the user opens it; tests fetch it), then the code from the redirect exchanged
// for tokens. The listener is closed whatever happens.

import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type { RemoteServerConfig } from "./config.js";
import { type McpOAuthOptions, McpOAuthProvider } from "./oauth-provider.js";
import { DEFAULT_LOGIN_TIMEOUT_MS, listenForRedirect, OAuthLoginError } from "./oauth-redirect.js";

export interface McpLoginOptions extends McpOAuthOptions {
  /** Shows the authorization URL to the user. */
  show: (url: URL) => void;
  /** Ceiling for the whole login (the user's trip through the browser). Default 5 minutes. */
  timeoutMs?: number;
}

/** Logs in to a remote server; resolves once its tokens are stored. */
export async function loginMcpServer(
  name: string,
  config: RemoteServerConfig,
  options: McpLoginOptions,
): Promise<void> {
  const listener = await listenForRedirect(options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
  try {
    const provider = new McpOAuthProvider(name, config.url, options, {
      redirectUrl: listener.url,
      state: listener.state,
      redirect: options.show,
    });
    // A fresh login starts from nothing: stale tokens or a registration for another redirect port go.
    await provider.invalidateCredentials("all");
    const first = await auth(provider, { serverUrl: config.url }).catch(fail("discovery or registration"));
    if (first === "AUTHORIZED") return;
    const code = await listener.code;
    const second = await auth(provider, { serverUrl: config.url, authorizationCode: code }).catch(
      fail("the code exchange"),
    );
    if (second !== "AUTHORIZED") throw new OAuthLoginError("the authorization server did not issue tokens");
  } finally {
    await listener.close();
  }
}

/** A failed step as an OAuthLoginError naming it, with the network cause (`fetch failed` says little). */
function fail(step: string): (error: unknown) => never {
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    throw new OAuthLoginError(`${step} failed: ${message}${cause}`);
  };
}

/** Forgets a server's stored credentials; true when there were tokens. */
export function logoutMcpServer(name: string, config: RemoteServerConfig, options: McpOAuthOptions) {
  return options.store.remove(name, config.url);
}
