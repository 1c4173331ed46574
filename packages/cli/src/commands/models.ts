// `tern models`: the built-in catalog and the models of $TERN_HOME/config.json.
import type { Model } from "@tern/ai";
import { parseCommandArgs, stringOption } from "../cli/args.js";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { createRegistry } from "../config/model.js";
import { helpFor, wantsHelp } from "../help.js";
import { formatTokens, padEnd } from "../render/format.js";
import { colorEnabled, createStyle } from "../render/style.js";

export async function modelsCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs(
    "models",
    argv,
    { provider: { type: "string", short: "p" }, json: { type: "boolean" } },
    0,
  );
  if (wantsHelp(values, io, helpFor("models"))) return 0;
  const home = loadHome(io);
  const style = createStyle(colorEnabled(io.stdout, io.env));
  const warn = (message: string) => io.stderr.write(`tern: warning: ${message}\n`);
  for (const warning of home.config.warnings) warn(warning);
  const registry = createRegistry(home, warn);
  const provider = stringOption(values, "provider");
  const models = registry.list(provider);
  if (values.json) {
    // Headers may carry keys: leave them out.
    io.stdout.write(
      `${JSON.stringify(
        models.map(({ headers: _headers, ...model }) => model),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const chosen = `${home.config.config.provider ?? io.env.TERN_PROVIDER ?? ""}/${home.config.config.model ?? io.env.TERN_MODEL ?? ""}`;
  io.stdout.write(
    `${style.dim(`  ${padEnd("MODEL", 34)}${padEnd("CONTEXT", 9)}${padEnd("OUTPUT", 8)}${padEnd("$ IN/OUT per M", 16)}ABILITIES`)}\n`,
  );
  for (const model of models) {
    const name = `${model.provider}/${model.id}`;
    const mark = name === chosen ? style.green("*") : " ";
    io.stdout.write(
      `${mark} ${padEnd(name, 34)}${padEnd(formatTokens(model.contextWindow), 9)}${padEnd(formatTokens(model.maxOutputTokens), 8)}${padEnd(prices(model), 16)}${abilities(model)}\n`,
    );
  }
  if (models.length === 0) io.stdout.write(`no models for provider "${provider}" in the catalog\n`);
  io.stdout.write(
    style.dim(
      `\nAny model id works on a local server (--provider ollama|llamacpp|lmstudio|vllm) or with --base-url.\nAdd your own under "models" in ${home.config.path}.\n`,
    ),
  );
  return 0;
}

function prices(model: Model): string {
  const { input, output } = model.prices;
  return input === 0 && output === 0 ? "free" : `${input}/${output}`;
}

function abilities(model: Model): string {
  const out: string[] = [];
  if (model.abilities.toolCall) out.push("tools");
  if (model.abilities.jsonMode) out.push("json");
  if (model.abilities.reasoning) out.push("reasoning");
  if (model.abilities.images) out.push("images");
  return out.join(", ");
}
