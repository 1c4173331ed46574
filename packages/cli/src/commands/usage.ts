// `tern usage [--since WHEN] [--by model|day|session|purpose] [--json] [-C DIR]`: tokens and cost
// of every model call in the session store, grouped. Parse, validate (exit 2), read, report.
import { resolve } from "node:path";
import { emptyUsageFold, FileSessionStore, usageFoldOf } from "@tern/session";
import { parseCommandArgs, stringOption } from "../cli/args.js";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { createRegistry, hasPrice } from "../config/model.js";
import { choice } from "../config/values.js";
import { helpFor, wantsHelp } from "../help.js";
import { formatTally, formatTokens, oneLine, padEnd } from "../render/format.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { parseSince } from "../usage/since.js";
import {
  knownCost,
  type SessionUsageFold,
  USAGE_GROUPINGS,
  type UsageReport,
  type UsageRow,
  usageReport,
} from "../usage/usage-report.js";

const KEY_WIDTH: Record<UsageReport["by"], number> = { model: 34, day: 12, session: 44, purpose: 16 };

export async function usageCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs(
    "usage",
    argv,
    {
      since: { type: "string" },
      by: { type: "string" },
      json: { type: "boolean" },
      cwd: { type: "string", short: "C" },
    },
    0,
  );
  if (wantsHelp(values, io, helpFor("usage"))) return 0;
  const by = choice("--by", stringOption(values, "by") ?? "model", USAGE_GROUPINGS);
  const sinceText = stringOption(values, "since");
  const since = sinceText !== undefined ? parseSince(sinceText) : undefined;
  const cwd = stringOption(values, "cwd");

  const home = loadHome(io);
  const warn = (message: string) => io.stderr.write(`tern: warning: ${message}\n`);
  for (const warning of home.config.warnings) warn(warning);
  const registry = createRegistry(home, warn);
  const store = new FileSessionStore({ home: home.home });
  const sessions: SessionUsageFold[] = [];
  // The session index holds each session's calls folded by day, model and purpose: only a session
  // whose calls straddle --since's instant is read whole, to split its buckets.
  for (const { summary, usage } of await store.usage(
    cwd !== undefined ? { cwd: resolve(io.cwd, cwd) } : {},
  )) {
    // An unreadable session is reported and left out; the others still count.
    if (summary.error || !usage) {
      warn(`session ${summary.id.slice(0, 8)} left out: ${summary.error ?? "unreadable"}`);
      continue;
    }
    if (since === undefined || (!usage.undated && (usage.firstCallMs ?? since) >= since)) {
      sessions.push({ id: summary.id, title: summary.title, usage });
      continue;
    }
    if (!usage.undated && (usage.lastCallMs ?? since) < since) {
      sessions.push({ id: summary.id, title: summary.title, usage: emptyUsageFold() });
      continue;
    }
    try {
      const session = await store.load(summary.id);
      sessions.push({
        id: summary.id,
        title: summary.title,
        usage: usageFoldOf(session.storedEvents(), since),
      });
    } catch (error) {
      warn(`session ${summary.id.slice(0, 8)} left out: ${(error as Error).message}`);
    }
  }
  const report = usageReport(sessions, {
    by,
    hasPrice: hasPrice(registry),
  });
  if (values.json === true) {
    const json = {
      by,
      ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
      sessions: sessions.length,
      rows: report.rows.map(jsonRow),
      total: jsonRow(report.total),
    };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(table(report, createStyle(colorEnabled(io.stdout, io.env)).dim));
  return 0;
}

function jsonRow(row: UsageRow) {
  const { cost: _cost, key, title, ...counts } = row;
  return { key, ...(title !== undefined ? { title } : {}), ...counts, cost: knownCost(row) };
}

function table(report: UsageReport, dim: (text: string) => string): string {
  if (report.total.calls === 0) return "no model calls recorded\n";
  const width = KEY_WIDTH[report.by];
  const line = (key: string, cells: string[]) =>
    `${padEnd(key, width)}${cells.map((cell) => padEnd(cell, 9)).join("")}`.trimEnd();
  const cells = (row: UsageRow) => [
    String(row.calls),
    formatTokens(row.input),
    formatTokens(row.output),
    formatTokens(row.cacheRead),
    formatTally(row),
  ];
  const label = (row: UsageRow) =>
    report.by === "session"
      ? `${row.key.slice(0, 8)}  ${oneLine(row.title || "(empty)", width - 12)}`
      : row.key;
  const lines = [
    dim(line(report.by.toUpperCase(), ["CALLS", "IN", "OUT", "CACHED", "COST"])),
    ...report.rows.map((row) => line(label(row), cells(row))),
    line("total", cells(report.total)),
  ];
  return `${lines.join("\n")}\n`;
}
