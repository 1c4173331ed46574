// A remote MCP server behind real OAuth, on loopback, for the OAuth tests: oauth2-mock-server is
// the authorization server (authorization code with PKCE, refresh, JWKS), given a small RFC 7591
// registration route; next to it, a streamable-HTTP MCP server built with the SDK's McpServer
// that checks each bearer token's signature against that JWKS (jose), serves its RFC 9728
// protected-resource metadata, and answers 401 with `WWW-Authenticate: Bearer resource_metadata=…`.
// The test steers it: `refuse(token)` makes the resource server reject a token (as if it expired or
// was revoked there), `revokeRefreshTokens()` makes the token endpoint refuse refresh grants.

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { OAuth2Server } from "oauth2-mock-server";

export interface OAuthFixture {
  /** The MCP endpoint. */
  url: string;
  issuer: string;
  /** Access tokens the resource server accepted, in order. */
  accepted: string[];
  /** Grant types the token endpoint served, in order. */
  grants: string[];
  refuse(token: string): void;
  revokeRefreshTokens(): void;
  /** Serves this text as the protected-resource metadata instead of the real document. */
  breakMetadata(text: string): void;
  stopAuthorizationServer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOAuthFixture(): Promise<OAuthFixture> {
  const authorization = new OAuth2Server();
  await authorization.issuer.keys.generate("RS256");
  await authorization.start(0, "127.0.0.1");
  const issuer = authorization.issuer.url!;
  const grants: string[] = [];
  let refreshRevoked = false;
  authorization.service.addRoute("POST", "/register", (req, res) => {
    const body = (req as IncomingMessage & { body: Record<string, unknown> }).body;
    json(res, 201, { ...body, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) });
  });
  authorization.service.on(
    "beforeWellKnownOpenIdConfiguration",
    (document: { body: Record<string, unknown> }) => {
      document.body.registration_endpoint = `${issuer}/register`;
    },
  );
  // A fresh token every time (the mock's are otherwise equal within one second).
  authorization.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }) => {
    token.payload.jti = randomUUID();
  });
  authorization.service.on(
    "beforeResponse",
    (
      response: { body: unknown; statusCode: number },
      req: IncomingMessage & { body: { grant_type: string } },
    ) => {
      grants.push(req.body.grant_type);
      if (refreshRevoked && req.body.grant_type === "refresh_token") {
        response.statusCode = 400;
        response.body = { error: "invalid_grant", error_description: "the refresh token was revoked" };
      }
    },
  );
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const refused = new Set<string>();
  const accepted: string[] = [];
  let metadataOverride: string | undefined;
  let base = "";
  const metadataPath = "/.well-known/oauth-protected-resource/mcp";

  const http: Server = createServer(async (req, res) => {
    if (req.url === metadataPath) {
      if (metadataOverride !== undefined) {
        res.writeHead(200, { "content-type": "application/json" }).end(metadataOverride);
        return;
      }
      json(res, 200, { resource: `${base}/mcp`, authorization_servers: [issuer] });
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token || refused.has(token) || !(await valid(token))) {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer error="invalid_token", resource_metadata="${base}${metadataPath}"`,
        })
        .end();
      return;
    }
    accepted.push(token);
    // Stateless: a fresh server and transport per request.
    const server = new McpServer({ name: "oauth-server", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says who the caller is" }, () => ({
      content: [{ type: "text", text: "a logged-in caller" }],
    }));
    // Careless on purpose: shows the caller its own token, which tern must never write anywhere.
    server.registerTool("echo_token", { description: "Echoes the bearer token" }, () => ({
      content: [{ type: "text", text: `your token: ${token}` }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });

  async function valid(token: string): Promise<boolean> {
    try {
      await jwtVerify(token, jwks, { issuer });
      return true;
    } catch {
      return false;
    }
  }

  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  let authorizationStopped = false;
  const stopAuthorizationServer = async () => {
    if (authorizationStopped) return;
    authorizationStopped = true;
    await authorization.stop();
  };
  return {
    url: `${base}/mcp`,
    issuer,
    accepted,
    grants,
    refuse: (token) => refused.add(token),
    revokeRefreshTokens: () => {
      refreshRevoked = true;
    },
    breakMetadata: (text) => {
      metadataOverride = text;
    },
    stopAuthorizationServer,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await stopAuthorizationServer();
    },
  };
}

/** Plays the browser: opens the authorization URL and follows its redirect to the loopback listener. */
export async function followLogin(url: URL): Promise<Response> {
  const authorize = await fetch(url, { redirect: "manual" });
  const location = authorize.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint did not redirect (${authorize.status})`);
  return fetch(location);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
