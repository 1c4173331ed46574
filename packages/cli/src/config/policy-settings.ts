// The agent's loop policies as switches the user can see and set: `--policy NAME=on|off`,
// `--policy NAME.PARAM=N` (repeatable), `"policies"` in config.json, and the REACT_* environment
// variables, mapped onto @tern/agent's ReactOptions (the library reads no environment). One table
// names each policy, its default, its parameters and what it costs; the README's table and the run
// header are read from it. A name, parameter or value that is not known is a usage error (exit 2).
import type { ReactOptions } from "@tern/agent";
import { UsageError } from "../cli/errors.js";

interface Param {
  /** The field of the policy's options in ReactOptions. */
  option: string;
  min: number;
  default: number;
  /** An environment variable that sets it (below flags, above config.json). */
  env?: string;
}

interface PolicySpec {
  /** The ReactOptions field that holds the policy's options, or false to turn it off. */
  key: "completionCheck" | "reflection" | "cycleDetection" | "toolSelection" | "autopilot" | "synthesis";
  on: boolean;
  params: Record<string, Param>;
  /** What it costs, in model calls (for the README and `--help`). */
  cost: string;
}

/** FIM One's defaults, kept: each named default is the library's own. */
export const POLICIES: Readonly<Record<string, PolicySpec>> = {
  "completion-check": {
    key: "completionCheck",
    on: true,
    params: {
      "min-tools": { option: "minTools", min: 0, default: 3, env: "REACT_COMPLETION_CHECK_MIN_TOOLS" },
    },
    cost: "at most 1 extra model call per run (after a run with at least min-tools tool calls)",
  },
  reflection: {
    key: "reflection",
    on: true,
    params: { after: { option: "every", min: 1, default: 6 } },
    cost: "no extra call: a message after every `after` tool calls (its tokens in later calls)",
  },
  "cycle-detection": {
    key: "cycleDetection",
    on: true,
    params: {
      threshold: { option: "threshold", min: 2, default: 3, env: "REACT_CYCLE_DETECTION_THRESHOLD" },
    },
    cost: "no extra call: a warning when the same call repeats `threshold` times",
  },
  "tool-selection": {
    key: "toolSelection",
    on: true,
    params: {
      threshold: { option: "threshold", min: 1, default: 12 },
      max: { option: "maxSelected", min: 1, default: 6 },
      "line-chars": { option: "catalogLineChars", min: 20, default: 80 },
    },
    cost: "1 extra model call at the start, only when more than `threshold` tools are registered",
  },
  autopilot: {
    key: "autopilot",
    on: false,
    params: { "max-nudges": { option: "maxNudges", min: 0, default: 3 } },
    cost: "up to `max-nudges` extra turns when the model stops without calling task_complete",
  },
  synthesis: {
    key: "synthesis",
    on: false,
    params: { "max-result-chars": { option: "maxResultChars", min: 1, default: 2000 } },
    cost: "1 extra streamed model call at the end that writes the answer (same as --answer-mode synthesize)",
  },
};

export interface PolicySetting {
  on: boolean;
  /** Parameter values by the names of POLICIES (defaults filled in). */
  params: Record<string, number>;
}

export type PolicySettings = Record<string, PolicySetting>;

export interface PolicySources {
  /** `--policy` values, in order: the last one for a name wins. */
  flags: readonly string[];
  /** `"policies"` from config.json, unchecked. */
  config: unknown;
  configPath: string;
  env: NodeJS.ProcessEnv;
  /** The older switches: `--autopilot` / `"autopilot"` and `--answer-mode synthesize`. */
  autopilot: boolean;
  synthesize: boolean;
}

/** Every policy as its defaults say. */
export function defaultPolicies(): PolicySettings {
  return resolvePolicies({
    flags: [],
    config: undefined,
    configPath: "",
    env: {},
    autopilot: false,
    synthesize: false,
  });
}

/** Every policy's state from defaults, then config.json, then the environment, then the flags. */
export function resolvePolicies(sources: PolicySources): PolicySettings {
  const settings: PolicySettings = {};
  for (const [name, spec] of Object.entries(POLICIES))
    settings[name] = {
      on: spec.on,
      params: Object.fromEntries(Object.entries(spec.params).map(([param, p]) => [param, p.default])),
    };
  if (sources.autopilot) settings.autopilot!.on = true;
  if (sources.synthesize) settings.synthesis!.on = true;
  fromConfig(settings, sources.config, sources.configPath);
  for (const [name, spec] of Object.entries(POLICIES))
    for (const [param, p] of Object.entries(spec.params)) {
      const raw = p.env === undefined ? undefined : sources.env[p.env]?.trim();
      if (raw) settings[name]!.params[param] = number(raw, p, `the environment variable ${p.env}`);
    }
  for (const flag of sources.flags) fromFlag(settings, flag);
  return settings;
}

function fromConfig(settings: PolicySettings, config: unknown, path: string): void {
  if (config === undefined) return;
  const where = `${path}: "policies"`;
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new UsageError(`${where} must be an object of policies by name (${names()})`);
  for (const [name, value] of Object.entries(config)) {
    const setting = known(settings, name, where);
    if (typeof value === "boolean") setting.on = value;
    else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      setting.on = true;
      for (const [param, raw] of Object.entries(value)) {
        const spec = knownParam(name, param, where);
        if (typeof raw !== "number")
          throw new UsageError(`${where}.${name}.${param} must be a whole number of at least ${spec.min}`);
        setting.params[param] = number(String(raw), spec, `${where}.${name}.${param}`);
      }
    } else
      throw new UsageError(
        `${where}.${name} must be true, false or an object of its settings (${paramNames(name)})`,
      );
  }
}

function fromFlag(settings: PolicySettings, flag: string): void {
  const eq = flag.indexOf("=");
  const where = `--policy ${flag}`;
  if (eq === -1)
    throw new UsageError(`${where}: use NAME=on, NAME=off or NAME.SETTING=NUMBER (policies: ${names()})`);
  const [name, param] = flag
    .slice(0, eq)
    .trim()
    .split(/\.(.*)/s) as [string, string | undefined];
  const value = flag.slice(eq + 1).trim();
  const setting = known(settings, name, where);
  if (param === undefined) {
    if (value !== "on" && value !== "off") throw new UsageError(`${where}: the value must be on or off`);
    setting.on = value === "on";
    return;
  }
  setting.params[param] = number(value, knownParam(name, param, where), where);
}

function known(settings: PolicySettings, name: string, where: string): PolicySetting {
  const setting = Object.hasOwn(settings, name) ? settings[name] : undefined;
  if (!setting) throw new UsageError(`${where}: unknown policy "${name}" (policies: ${names()})`);
  return setting;
}

function knownParam(name: string, param: string, where: string): Param {
  const params = POLICIES[name]!.params;
  const spec = Object.hasOwn(params, param) ? params[param] : undefined;
  if (!spec)
    throw new UsageError(`${where}: ${name} has no setting "${param}" (settings: ${paramNames(name)})`);
  return spec;
}

function number(raw: string, spec: Param, where: string): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < spec.min)
    throw new UsageError(
      `${where} must be a whole number of at least ${spec.min} (got ${JSON.stringify(raw)})`,
    );
  return value;
}

const names = () => Object.keys(POLICIES).join(", ");
const paramNames = (name: string) => Object.keys(POLICIES[name]!.params).join(", ");

/** The settings as @tern/agent's ReactOptions (without the tool mode, answer mode and turn limit). */
export function policyOptions(settings: PolicySettings): Partial<ReactOptions> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(POLICIES)) {
    const setting = settings[name]!;
    const options: Record<string, number> = {};
    for (const [param, p] of Object.entries(spec.params)) options[p.option] = setting.params[param]!;
    if (spec.key === "synthesis") {
      out.answerMode = setting.on ? "synthesize" : "direct";
      out.synthesis = options;
    } else out[spec.key] = setting.on ? options : false;
  }
  return out as Partial<ReactOptions>;
}

/** The policies that are on, with every setting: the `--json` stream's `policies` line. */
export function activePolicies(settings: PolicySettings): { name: string; params: Record<string, number> }[] {
  return Object.entries(settings)
    .filter(([, setting]) => setting.on)
    .map(([name, setting]) => ({ name, params: { ...setting.params } }));
}

/** The run header's words: the policies that are on, with the settings that differ from the default. */
export function policiesLabel(settings: PolicySettings): string {
  const active = activePolicies(settings).map(({ name, params }) => {
    const changed = Object.entries(params)
      .filter(([param, value]) => value !== POLICIES[name]!.params[param]!.default)
      .map(([param, value]) => `${param}=${value}`);
    return changed.length > 0 ? `${name}(${changed.join(",")})` : name;
  });
  return `policies ${active.length > 0 ? active.join(", ") : "none"}`;
}
