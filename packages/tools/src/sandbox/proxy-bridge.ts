// The inside half of the network proxy. A sandbox with a host allow-list has a network namespace
// of its own with nothing in it but loopback; this small Node program runs first inside it,
// listens on two loopback ports (HTTP and SOCKS5), relays every connection to the matching Unix
// socket of the proxy (bound in from tern), and then runs the command and exits as it did. Node rather than socat: tern already
// runs on Node, so nothing more has to be installed.

/** The ports the bridge listens on inside the sandbox (the namespace is empty, so any port is free). */
export const DEFAULT_PROXY_PORTS: Readonly<ProxyPorts> = { http: 3128, socks: 1080 };

export interface ProxyPorts {
  http: number;
  socks: number;
}

/** A port inside and the Unix socket (a host path, bound in) it relays to. */
export type BridgeRoute = [port: number, socketPath: string];

/** Exit status when the bridge itself fails (the command never ran). */
const BRIDGE_FAILED = 125;

// Plain CommonJS for `node -e`: argv is [routes as JSON, program, ...arguments].
const BRIDGE_SOURCE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const [routes, program, ...args] = process.argv.slice(1);
const fail = (what) => {
  process.stderr.write("tern sandbox: network bridge: " + what + "\\n");
  process.exit(${BRIDGE_FAILED});
};
const relay = (socketPath) => (client) => {
  const upstream = net.connect(socketPath);
  const end = () => { client.destroy(); upstream.destroy(); };
  for (const side of [client, upstream]) { side.on("error", end); side.on("close", end); }
  client.pipe(upstream).pipe(client);
};
const listening = JSON.parse(routes).map(([port, socketPath]) => new Promise((resolve) => {
  const server = net.createServer(relay(socketPath));
  server.on("error", (error) => fail(error.message));
  server.listen(port, "127.0.0.1", resolve);
}));
Promise.all(listening).then(() => {
  const child = spawn(program, args, { stdio: "inherit" });
  child.on("error", (error) => fail(program + ": " + error.message));
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code);
    process.kill(process.pid, signal);
    process.exit(128 + (constants.signals[signal] || 0));
  });
});
`;

/** argv that starts the bridge, which then runs `command` (a program and its arguments). */
export function bridgeCommand(
  routes: readonly BridgeRoute[],
  command: readonly string[],
  node: string = process.execPath,
): string[] {
  return [node, "-e", BRIDGE_SOURCE, "--", JSON.stringify(routes), ...command];
}

/** What a sandboxed command sees: every common proxy variable pointing at the bridge. */
export function proxyEnvironment(ports: ProxyPorts): Record<string, string> {
  const http = `http://127.0.0.1:${ports.http}`;
  const socks = `socks5h://127.0.0.1:${ports.socks}`;
  const env: Record<string, string> = {};
  for (const [name, value] of [
    ["HTTP_PROXY", http],
    ["HTTPS_PROXY", http],
    ["ALL_PROXY", socks],
    ["NO_PROXY", ""],
  ] as const) {
    env[name] = value;
    env[name.toLowerCase()] = value;
  }
  return env;
}
