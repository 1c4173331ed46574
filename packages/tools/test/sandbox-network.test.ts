// The host allow-list end to end: real bubblewrap, real curl and node inside the sandbox, tern's
// proxy outside, loopback HTTP servers on the host. Allowed hosts are reachable through every
// way in (http_proxy, a CONNECT tunnel, SOCKS5, node's http module); an unlisted host, a denied
// one and a name that rebinds to loopback are refused and named in the result; a connection that
// bypasses the proxy finds no network at all. Skips, saying why, only where bubblewrap cannot run.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { HookRegistry } from "@tern/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandHook, type SandboxOptions } from "../src/index.js";
import { tempDir, workspace } from "./support.js";
import { hostProcesses, loopbackHttp, SANDBOX_SKIP_REASON, waitFor } from "./support-sandbox.js";

/** node inside the sandbox: a GET through $HTTP_PROXY, absolute-form, and one through a CONNECT tunnel. */
const NODE_CLIENT = `
const http = require("node:http");
const proxy = new URL(process.env.HTTP_PROXY);
const [mode, target] = process.argv.slice(2);
const url = new URL(target);
const print = (response) => { response.setEncoding("utf8"); response.on("data", (t) => process.stdout.write(t)); };
if (mode === "get") {
  http.get({ host: proxy.hostname, port: proxy.port, path: url.href, headers: { host: url.host } }, print)
    .on("error", (e) => { console.log("error " + e.message); process.exitCode = 1; });
} else {
  http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: url.host })
    .on("connect", (response, socket) => {
      if (response.statusCode !== 200) { console.log("refused " + response.statusCode); process.exitCode = 1; return socket.destroy(); }
      http.get({ createConnection: () => socket, path: url.pathname, headers: { host: url.host } }, print);
    })
    .on("error", (e) => { console.log("error " + e.message); process.exitCode = 1; })
    .end();
}
`;

/** node inside the sandbox, ignoring the proxy: a raw TCP connection to the host's loopback. */
const NODE_RAW = `
const socket = require("node:net").connect(Number(process.argv[2]), "127.0.0.1");
socket.on("connect", () => { console.log("raw connected"); socket.destroy(); });
socket.on("error", (e) => { console.log("raw failed " + e.code); });
`;

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)(
  `the sandbox's host allow-list${SANDBOX_SKIP_REASON ? ` (${SANDBOX_SKIP_REASON})` : ""}`,
  () => {
    let allowed: Awaited<ReturnType<typeof loopbackHttp>>;
    let unlisted: Awaited<ReturnType<typeof loopbackHttp>>;
    beforeEach(async () => {
      allowed = await loopbackHttp("hello from the allowed host");
      unlisted = await loopbackHttp("hello from the unlisted host");
    });
    afterEach(async () => {
      await allowed.close();
      await unlisted.close();
    });

    const sandboxed = (sandbox: SandboxOptions) =>
      workspace({ "client.js": NODE_CLIENT, "raw.js": NODE_RAW }, { sandbox });

    it("reaches an allowed host from curl (http_proxy, CONNECT, SOCKS5) and from node", async () => {
      const ws = await sandboxed({ allowHosts: [`127.0.0.1:${allowed.port}`] });
      const url = `http://127.0.0.1:${allowed.port}/`;
      const result = await ws.call("bash", {
        command: [
          `curl -sS ${url}; echo " [curl]"`,
          `curl -sS --proxytunnel ${url}; echo " [curl CONNECT]"`,
          `curl -sS -x "$ALL_PROXY" ${url}; echo " [curl SOCKS5]"`,
          `node client.js get ${url}; echo " [node GET]"`,
          `node client.js connect ${url}; echo " [node CONNECT]"`,
        ].join("; "),
      });
      expect(result.text.split("\n").slice(0, 5)).toEqual([
        "hello from the allowed host [curl]",
        "hello from the allowed host [curl CONNECT]",
        "hello from the allowed host [curl SOCKS5]",
        "hello from the allowed host [node GET]",
        "hello from the allowed host [node CONNECT]",
      ]);
      expect(result.text).not.toContain("refused");
      expect(result.isError).toBe(false);
    });

    it("refuses an unlisted host and names it in the result", async () => {
      const ws = await sandboxed({ allowHosts: [`127.0.0.1:${allowed.port}`] });
      const url = `http://127.0.0.1:${unlisted.port}/`;
      const result = await ws.call("bash", {
        command: `curl -sS ${url}; curl -sS --proxytunnel ${url}; curl -sS -x "$ALL_PROXY" ${url}; node client.js connect ${url}`,
      });
      expect(result.text).not.toContain("hello from the unlisted host");
      expect(result.text).toContain(
        `tern sandbox: connection to 127.0.0.1:${unlisted.port} refused: not in the allow-list`,
      );
      expect(result.text).toContain("refused 403");
      expect(result.text).toContain(
        `The sandbox refused a network connection to 127.0.0.1:${unlisted.port}: not in the allow-list.`,
      );
    });

    it("has no network that bypasses the proxy", async () => {
      const ws = await sandboxed({ allowHosts: [`127.0.0.1:${allowed.port}`] });
      const result = await ws.call("bash", {
        command: `node raw.js ${allowed.port}; curl -sS --noproxy '*' http://127.0.0.1:${allowed.port}/ || echo curl-failed`,
      });
      expect(result.text).toContain("raw failed ECONNREFUSED");
      expect(result.text).toContain("curl-failed");
      expect(result.text).not.toContain("hello from the allowed host");
    });

    it("refuses an allowed name that resolves to loopback (DNS rebinding)", async () => {
      const ws = await sandboxed({ allowHosts: ["rebind.test"], lookupHost: async () => ["127.0.0.1"] });
      const result = await ws.call("bash", {
        command: `curl -sS http://rebind.test:${allowed.port}/; curl -sS -x "$ALL_PROXY" http://rebind.test:${allowed.port}/ || echo socks-refused`,
      });
      expect(result.text).not.toContain("hello from the allowed host");
      expect(result.text).toContain("socks-refused");
      expect(result.text).toContain(
        `The sandbox refused a network connection to rebind.test:${allowed.port}: 127.0.0.1 is a loopback address, which the allow-list does not name.`,
      );
    });

    it("lets a denied host win over the allow-list", async () => {
      const ws = await sandboxed({
        allowHosts: ["*", "127.0.0.1"],
        denyHosts: [`127.0.0.1:${unlisted.port}`],
      });
      const result = await ws.call("bash", {
        command: `curl -sS http://127.0.0.1:${allowed.port}/; echo; curl -sS http://127.0.0.1:${unlisted.port}/`,
      });
      expect(result.text).toContain("hello from the allowed host");
      expect(result.text).not.toContain("hello from the unlisted host");
      expect(result.text).toContain(`127.0.0.1:${unlisted.port}: denied by "127.0.0.1:${unlisted.port}"`);
    });

    it("asks about an unlisted host; yes allows it for the rest of the session", async () => {
      const questions: string[] = [];
      const ws = await sandboxed({
        // The name resolves to the named loopback address: only the name is unlisted.
        allowHosts: [`127.0.0.1:${allowed.port}`],
        lookupHost: async () => ["127.0.0.1"],
        askHost: ({ host, port }) => {
          questions.push(`${host}:${port}`);
          return true;
        },
      });
      const command = `curl -sS http://asked.test:${allowed.port}/`;
      expect((await ws.call("bash", { command })).text).toContain("hello from the allowed host");
      expect((await ws.call("bash", { command })).text).toContain("hello from the allowed host");
      expect(questions).toEqual([`asked.test:${allowed.port}`]);
    });

    it("still kills everything the command started at its timeout (the bridge in front changes nothing)", async () => {
      const sleeper = ["sleep", "78"];
      const before = new Set(hostProcesses(sleeper));
      const ws = await sandboxed({ allowHosts: [`127.0.0.1:${allowed.port}`] });
      const result = await ws.call("bash", { command: "sleep 78 & sleep 78", timeout: 1 });
      expect(result.details.timedOut).toBe(true);
      await waitFor(() => (hostProcesses(sleeper).some((pid) => !before.has(pid)) ? undefined : true));
    });

    it("removes the socket directory of a proxy never closed (an MCP server's) when tern exits", async () => {
      const sockets = await tempDir("tern-proxy-dirs-");
      const sandboxModule = path.join(import.meta.dirname, "../src/sandbox/sandbox.ts");
      const script = `
        const { createSandbox } = await import(${JSON.stringify(sandboxModule)});
        const sandbox = createSandbox({ allowHosts: ["example.com"], proxySocketDir: ${JSON.stringify(sockets)} });
        const launch = await sandbox.launch({ shell: "/bin/sh", command: "true", root: "/tmp", cwd: "/tmp" });
        if (!launch.ok || !launch.proxy) throw new Error("no proxy");
        console.log((await import("node:fs")).readdirSync(${JSON.stringify(sockets)}).length);`;
      const printed = execFileSync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        {
          encoding: "utf8",
        },
      );
      expect(printed.trim()).toBe("1");
      expect(readdirSync(sockets)).toEqual([]);
    });

    it("gives a command hook the same proxy (its stdin passes the bridge) and closes it after", async () => {
      const root = await tempDir("tern-proxy-hook-");
      const sockets = await tempDir("tern-proxy-dirs-");
      const sandbox = { allowHosts: [`127.0.0.1:${allowed.port}`], proxySocketDir: sockets };
      const command = `cat > event.json; curl -sS http://127.0.0.1:${allowed.port}/ > got.txt`;
      const hooks = new HookRegistry([commandHook({ event: "PreToolUse", command }, { root, sandbox })]);
      const failures: unknown[] = [];
      await hooks.runPreToolUse({ toolName: "write", toolCallId: "c1", args: { path: "a" } }, (failure) => {
        failures.push(failure);
      });
      expect(failures).toEqual([]);
      expect(readFileSync(path.join(root, "got.txt"), "utf8")).toBe("hello from the allowed host");
      expect(JSON.parse(readFileSync(path.join(root, "event.json"), "utf8")).tool_name).toBe("write");
      expect(readdirSync(sockets)).toEqual([]);
    });
  },
);
