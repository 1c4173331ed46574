// A TernClient driving a real `tern serve --stdio` child (the server entry bundled with esbuild)
// whose model is the scripted OpenAI-compatible server at `modelUrl`, as model "scripted".
import { bundleServer } from "../../../server/test/support/bundle.js";
import { TernClient } from "../../src/index.js";

/** Starts the client (and so its server child) with TERN home `home`, working in `cwd`. */
export async function startStdioClient(modelUrl: string, home: string, cwd: string): Promise<TernClient> {
  const bundle = await bundleServer();
  const client = new TernClient({
    command: process.execPath,
    args: [bundle, "--stdio", "--base-url", modelUrl, "--model", "scripted", "--home", home, "--cwd", cwd],
  });
  try {
    await client.start();
  } catch (error) {
    // A child that started but failed the handshake must not outlive the test file.
    await client.stop().catch(() => {});
    throw error;
  }
  return client;
}
