// The environment a command sees: an allow-list of harmless variables from tern's own environment,
// never API keys or tokens. An allow-list, because a deny-list misses whatever key a user's tools
// invent; the name check below is a second net for allowed prefixes such as LC_*.

/** Variables passed through by name. */
export const SAFE_VARIABLES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TZ",
  "TMPDIR",
  "EDITOR",
  "VISUAL",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "JAVA_HOME",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "PYTHONPATH",
  "NODE_PATH",
  "NVM_DIR",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
];

/** Variables passed through by prefix (locale settings). */
export const SAFE_PREFIXES: readonly string[] = ["LC_"];

/** A name that looks like it holds a credential is dropped even when allowed above. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;

/** Set for every command: no pager waits for a keypress, git never prompts for a password. */
export const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
};

/** The allowed variables of `env`, plus NON_INTERACTIVE. */
export function scrubEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    if (SAFE_VARIABLES.includes(name) || SAFE_PREFIXES.some((prefix) => name.startsWith(prefix)))
      safe[name] = value;
  }
  return { ...safe, ...NON_INTERACTIVE };
}
