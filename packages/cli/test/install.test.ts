// The README's install works outside the repository: the packed @tern/cli installs into a fresh
// global prefix with npm offline (so it needs nothing from a registry), and the installed `tern`
// answers --version, runs the demo from an unrelated directory, and exports OpenTelemetry spans
// with the SDK bundled in it.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { serveScript } from "@tern/ai/testing";
import { beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "./support/build.js";
import { startOtlpReceiver } from "./support/otlp-receiver.js";
import { textReply } from "./support/replies.js";
import { ensureBuilt, removeLater, tempDir, ternEnv } from "./support/tern.js";

const run = promisify(execFile);
/** npm and a cold install are slow on a busy machine; this is a ceiling for a hang, nothing more. */
const INSTALL_CEILING_MS = 180_000;

beforeAll(ensureBuilt);

it(
  "npm pack, then npm install -g offline into a fresh prefix: tern --version and tern demo run anywhere",
  async () => {
    const scratch = tempDir("tern-install-");
    const prefix = join(scratch, "prefix");
    const npmEnv = {
      ...ternEnv(),
      npm_config_cache: join(scratch, "npm-cache"),
      npm_config_update_notifier: "false",
    };

    const packed = await run("npm", ["pack", "-w", "@tern/cli", "--pack-destination", scratch, "--json"], {
      cwd: REPO_ROOT,
      env: npmEnv,
    });
    const [manifest] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = manifest!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/tern.js",
        "bin/package.json",
        "dist/package.json",
        "dist/tern.js",
        "dist/tern-app.js",
        "dist/tern-otel.js",
        "dist/chunks/mvdan-sh.cjs",
        "dist/examples/stats-bug/package.json",
        "dist/examples/stats-bug/src/stats.js",
        "dist/web/index.html",
      ]),
    );
    expect(files.filter((path) => path.startsWith("src/") || path.startsWith("test/"))).toEqual([]);
    // Every chunk the build wrote ships: a missing one would fail only the command that loads it.
    const metafile = JSON.parse(
      readFileSync(join(REPO_ROOT, "packages", "cli", "dist", ".meta.json"), "utf8"),
    );
    const written = Object.keys(metafile.outputs).map((path) => path.replace(/^packages\/cli\//, ""));
    expect(files).toEqual(expect.arrayContaining(written));

    // --offline: any dependency to download would fail the install.
    const tarball = join(scratch, manifest!.filename);
    await run("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball], {
      cwd: scratch,
      env: npmEnv,
    });
    const installed = join(prefix, "lib", "node_modules", "@tern", "cli");
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(pkg.dependencies ?? {}).toEqual({});

    const elsewhere = tempDir("tern-elsewhere-");
    const env = ternEnv({ TERN_HOME: tempDir(), PATH: `${join(prefix, "bin")}:${process.env.PATH}` });
    const version = await run("tern", ["--version"], { cwd: elsewhere, env });
    expect(version.stdout).toBe(`${pkg.version}\n`);

    // The installed bundle finds the example inside its own package (nothing above it is the repo).
    const demo = await run("tern", ["demo", "--fast"], { cwd: elsewhere, env });
    const project = /project\s+(\S+)/.exec(demo.stderr)?.[1];
    if (project) removeLater(dirname(project));
    expect(demo.stderr).toMatch(/The demo ended green/);

    // The OTLP exporter ships in the package: a run reaches a collector with nothing else installed.
    const model = await serveScript([textReply("traced")]);
    const receiver = await startOtlpReceiver();
    try {
      const traced = await run("tern", ["run", "hi"], {
        cwd: elsewhere,
        env: {
          ...env,
          TERN_PROVIDER: "llamacpp",
          TERN_MODEL: "test-model",
          TERN_BASE_URL: `${model.baseUrl}/v1`,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        },
      });
      expect(traced.stdout).toBe("traced\n");
      expect(receiver.spans().map((span) => span.name)).toEqual(
        expect.arrayContaining(["invoke_agent tern", "chat test-model"]),
      );
    } finally {
      await model.close();
      await receiver.close();
    }
  },
  INSTALL_CEILING_MS,
);
