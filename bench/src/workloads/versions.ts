// The versions of everything the peer workloads measure, and the machine they ran on (load
// average included: other work on the machine inflates every figure).

import { cpus, loadavg } from "node:os";
import type { Rows } from "../benches.js";
import { RUNTIMES, versionsOf } from "../peers/runtimes.js";

export async function versionsBench(): Promise<Rows> {
  const rows: Rows = Object.values(RUNTIMES).map((info) => ({
    runtime: info.label,
    packages: versionsOf(info),
  }));
  rows.push({ runtime: "node", packages: process.version });
  rows.push({
    runtime: "machine",
    packages: `${cpus().length} cpus, ${process.platform}/${process.arch}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  });
  return rows;
}
