// Where the suite's CPU goes: runs `vitest run` (extra arguments passed on) with a setup file that
// records, per test file, the worker's CPU and its reaped children's, then prints the files by
// total CPU. On 2 cores the suite's wall is bounded below by its CPU over two, so this table,
// not the wall per file, says what to make cheaper.  node scripts/suite-cpu/run.mjs [vitest args]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "tern-suite-cpu-"));
const log = join(dir, "cpu.tsv");
const vitest = spawnSync(
  "npx",
  ["vitest", "run", "--config", "scripts/suite-cpu/vitest.config.mjs", ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit", env: { ...process.env, TERN_SUITE_CPU_LOG: log } },
);
let rows = [];
try {
  rows = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const [file, self, children, wall] = line.split("\t");
      return {
        file: relative(root, file),
        self: Number(self),
        children: Number(children),
        wall: Number(wall),
      };
    });
} catch {
  console.error("no test file recorded its CPU");
}
rmSync(dir, { recursive: true, force: true });
rows.sort((a, b) => b.self + b.children - (a.self + a.children));
const sum = (key) => rows.reduce((total, row) => total + row[key], 0).toFixed(0);
console.log(`\n${rows.length} files: worker CPU ${sum("self")} s, children's CPU ${sum("children")} s`);
console.log("total s  worker  children  wall s  file");
for (const row of rows.slice(0, Number(process.env.TOP ?? 30)))
  console.log(
    `${(row.self + row.children).toFixed(1).padStart(7)}  ${row.self.toFixed(1).padStart(6)}  ${row.children.toFixed(1).padStart(8)}  ${row.wall.toFixed(1).padStart(6)}  ${row.file}`,
  );
process.exitCode = vitest.status ?? 1;
