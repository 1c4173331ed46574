// The README examples: every ```ts block in the "## Public API" section of a package README is
// type-checked against the packages' real exports (a step of `npm run check`), so an example
// cannot drift from the API it documents. Each block is written to `.readme-examples/` (ignored by
// git) as its own module and compiled with the repository's compiler options; errors are reported
// at their line in the README.
//
//   node scripts/readme-examples.mjs   exit 1, printing README:line errors, when an example is wrong

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SECTION = "## Public API";

/** The ```ts blocks of `markdown`'s Public API section, each with the README line it starts on. */
export function apiExamples(markdown) {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === SECTION);
  if (start < 0) return [];
  const examples = [];
  let block;
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index];
    if (!block && line.startsWith("## ")) break;
    if (!block && line.trim() === "```ts") block = { line: index + 2, code: [] };
    else if (block && line.trim() === "```") {
      examples.push({ line: block.line, code: `${block.code.join("\n")}\n` });
      block = undefined;
    } else if (block) block.code.push(line);
  }
  return examples;
}

function compilerOptions(root) {
  const file = join(root, "tsconfig.json");
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, root).options;
}

function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const out = join(root, ".readme-examples");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  const origins = new Map();
  for (const dir of readdirSync(join(root, "packages"))) {
    const readme = join(root, "packages", dir, "README.md");
    if (!existsSync(readme)) continue;
    for (const [index, example] of apiExamples(readFileSync(readme, "utf8")).entries()) {
      const file = join(out, `${dir}-${index + 1}.ts`);
      writeFileSync(file, example.code);
      origins.set(file, { readme: relative(root, readme), line: example.line });
    }
  }
  const program = ts.createProgram([...origins.keys()], compilerOptions(root));
  const errors = [...origins.keys()].flatMap((file) => {
    const source = program.getSourceFile(file);
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  });
  for (const diagnostic of errors) {
    const origin = origins.get(diagnostic.file.fileName);
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    process.stderr.write(`${origin.readme}:${origin.line + line}: ${message}\n`);
  }
  if (errors.length > 0) process.exit(1);
  process.stdout.write(`README examples: ${origins.size} type-checked\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
