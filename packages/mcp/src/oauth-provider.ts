// tern's side of the SDK's OAuth client (`OAuthClientProvider`): the SDK does discovery (RFC 9728
// protected-resource metadata, RFC 8414 authorization-server metadata), dynamic client
// registration (RFC 7591), PKCE, the code exchange and refresh on 401; this provider keeps what
// it learns in an OAuthStore, hands every token value to `onSecret` (the redactor) and, on its
// own, refreshes an access token that is about to expire (clock and skew injectable) so a call is
// not first sent with a token the server will refuse. Without `redirect` (a run, not a login) an
// authorization the SDK wants to start goes nowhere: the request fails with its UnauthorizedError.

import {
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  refreshAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { REDIRECT_PATH } from "./oauth-redirect.js";
import type { OAuthStore, StoredOAuth } from "./oauth-store.js";

/** How long before its expiry an access token is refreshed. */
export const DEFAULT_REFRESH_SKEW_MS = 60_000;

export interface McpOAuthOptions {
  /** Where credentials live (the CLI uses $TERN_HOME/mcp-auth). */
  store: OAuthStore;
  /** Called with every token value read or received, so no output shows it. */
  onSecret?: (value: string) => void;
  /** Default Date.now. */
  now?: () => number;
  /** Default DEFAULT_REFRESH_SKEW_MS. */
  refreshSkewMs?: number;
}

export interface OAuthLoginHooks {
  /** The loopback URL the authorization server sends the browser back to. */
  redirectUrl: string;
  /** The `state` the redirect must carry. */
  state: string;
  /** Shows the user the authorization URL. */
  redirect: (url: URL) => void;
}

export class McpOAuthProvider implements OAuthClientProvider {
  private readonly now: () => number;
  private readonly skewMs: number;
  private refreshing: Promise<void> | undefined;
  /** The access token an ahead-of-expiry refresh already failed for: not tried again per request. */
  private refreshFailedFor: string | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly options: McpOAuthOptions,
    private readonly login?: OAuthLoginHooks,
  ) {
    this.now = options.now ?? Date.now;
    this.skewMs = options.refreshSkewMs ?? DEFAULT_REFRESH_SKEW_MS;
  }

  /**
   * Outside a login there is nowhere to redirect to, but the SDK only refreshes for clients with a
   * redirect URL (without one it takes the client-credentials path); the authorization it would
   * start instead ends at `redirectToAuthorization`, which sends nothing anywhere.
   */
  get redirectUrl(): string {
    return this.login?.redirectUrl ?? `http://127.0.0.1${REDIRECT_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "tern",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return this.login?.state ?? "";
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.read()).client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update((data) => ({ ...data, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const data = await this.read();
    if (this.expiring(data) && !this.refreshing) {
      this.refreshing = this.refresh(data).finally(() => {
        this.refreshing = undefined;
      });
    }
    if (this.refreshing) {
      await this.refreshing;
      return (await this.read()).tokens;
    }
    return data.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.secrets(tokens);
    const expiresAt = tokens.expires_in !== undefined ? this.now() + tokens.expires_in * 1000 : undefined;
    await this.update(({ expiresAt: _old, ...data }) => ({
      ...data,
      tokens,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    }));
  }

  redirectToAuthorization(url: URL): void {
    this.login?.redirect(url);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update((data) => ({ ...data, codeVerifier }));
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.read()).codeVerifier;
    if (!verifier) throw new Error("no OAuth login in progress (no PKCE verifier stored)");
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update((data) => ({ ...data, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.read()).discovery;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    await this.update(({ client, tokens, expiresAt, codeVerifier, discovery, url }) => {
      const keep: StoredOAuth = { url };
      if (scope !== "all" && scope !== "client" && client) keep.client = client;
      if (scope !== "all" && scope !== "tokens" && tokens) {
        keep.tokens = tokens;
        if (expiresAt !== undefined) keep.expiresAt = expiresAt;
      }
      if (scope !== "all" && scope !== "verifier" && codeVerifier) keep.codeVerifier = codeVerifier;
      if (scope !== "all" && scope !== "discovery" && discovery) keep.discovery = discovery;
      return keep;
    });
  }

  /** Whether the access token expires within the skew (and can be refreshed, not having failed to). */
  private expiring(data: StoredOAuth): boolean {
    return (
      data.tokens?.refresh_token !== undefined &&
      data.tokens.access_token !== this.refreshFailedFor &&
      data.expiresAt !== undefined &&
      data.expiresAt - this.skewMs <= this.now()
    );
  }

  /**
   * Refreshes ahead of expiry. A failure is left for the request itself: the server answers 401,
   * and the SDK's own refresh-on-401 path decides (and asks for a login if the grant is gone). It
   * is not tried again for the same access token, so a refused grant or an authorization server
   * that is down costs one attempt, not one before every request until the token changes.
   */
  private async refresh(data: StoredOAuth): Promise<void> {
    const server = data.discovery?.authorizationServerUrl;
    if (!server || !data.client || !data.tokens?.refresh_token) return;
    try {
      const resource = data.discovery?.resourceMetadata?.resource;
      const tokens = await refreshAuthorization(server, {
        metadata: data.discovery?.authorizationServerMetadata,
        clientInformation: data.client,
        refreshToken: data.tokens.refresh_token,
        ...(resource ? { resource: new URL(resource) } : {}),
      });
      await this.saveTokens(tokens);
    } catch {
      // See above: the 401 path reports it.
      this.refreshFailedFor = data.tokens.access_token;
    }
  }

  private async read(): Promise<StoredOAuth> {
    const data = await this.options.store.read(this.server, this.url);
    if (data.tokens) this.secrets(data.tokens);
    return data;
  }

  private update(change: (data: StoredOAuth) => StoredOAuth): Promise<void> {
    return this.options.store.update(this.server, this.url, change);
  }

  private secrets(tokens: OAuthTokens): void {
    for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token]) {
      if (value) this.options.onSecret?.(value);
    }
  }
}
