// Errors the user can act on. Each carries the exit code and reads as one line naming the fix;
// the top level prints `tern: <message>` and no stack trace unless --debug.

/** 2: the command line, the environment or the configuration is wrong. 1: the work failed. */
export type ExitCode = 0 | 1 | 2 | 130;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Bad usage: an unknown flag, a bad value, a missing key or model. Exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
