// The paths a sandboxed command must not see even though the rest of the file system is readable:
// credentials, tern's own home (sessions, config), and sockets that would let a command act
// outside the sandbox (a Docker socket is root on the host; ssh-agent and gpg-agent sign for the
// user). A read-only mount does not stop connect() on a Unix socket, so sockets must be hidden.

import { lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** Paths under the user's home that hold credentials. */
export const HIDDEN_HOME_PATHS: readonly string[] = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker",
  ".netrc",
  ".npmrc",
  ".yarnrc",
  ".pypirc",
  ".git-credentials",
  ".config/gh",
  ".config/hub",
  ".password-store",
  ".vault-token",
  ".terraform.d",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".config/rclone",
  ".local/share/keyrings",
];

/** Absolute paths of sockets and runtime directories that reach services outside the sandbox. */
export const HIDDEN_SYSTEM_PATHS: readonly string[] = [
  "/var/run/docker.sock",
  "/run/docker.sock",
  "/run/containerd",
  "/run/podman",
  "/run/dbus",
  "/run/user",
];

export interface HiddenPath {
  /** Real path (symlinks resolved): bubblewrap mounts where the path really is. */
  path: string;
  kind: "dir" | "file";
}

/**
 * The hidden paths that exist on this machine: the lists above, $TERN_HOME (default ~/.tern),
 * the directories of $SSH_AUTH_SOCK and $XDG_RUNTIME_DIR, and `extra`.
 */
export function hiddenPaths(env: NodeJS.ProcessEnv, extra: readonly string[] = []): HiddenPath[] {
  const homes = new Set([homedir(), env.HOME].filter((home): home is string => !!home));
  const candidates: string[] = [...HIDDEN_SYSTEM_PATHS, ...extra];
  for (const home of homes) {
    for (const rel of HIDDEN_HOME_PATHS) candidates.push(path.join(home, rel));
    candidates.push(path.join(home, ".tern"));
  }
  if (env.TERN_HOME) candidates.push(path.resolve(env.TERN_HOME));
  if (env.SSH_AUTH_SOCK) candidates.push(path.dirname(path.resolve(env.SSH_AUTH_SOCK)));
  if (env.XDG_RUNTIME_DIR) candidates.push(path.resolve(env.XDG_RUNTIME_DIR));

  const found = new Map<string, HiddenPath>();
  for (const candidate of candidates) {
    try {
      const real = realpathSync(candidate);
      found.set(real, { path: real, kind: lstatSync(real).isDirectory() ? "dir" : "file" });
    } catch {
      // Absent (or gone since): nothing to hide.
    }
  }
  return [...found.values()];
}
