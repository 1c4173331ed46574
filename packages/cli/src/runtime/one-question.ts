// One permission question at a time. Parallel tool calls, and above all plan mode's parallel
// steps, can need asking at once; a terminal (or chat's input line) can hold only one question,
// so later ones wait their turn. A question whose run was aborted while it waited is denied
// without being asked.
import type { AskPermission, PermissionAnswer } from "@tern/tools";

export function oneQuestionAtATime(ask: AskPermission): AskPermission {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const turn = queue.then((): PermissionAnswer | Promise<PermissionAnswer> =>
      request.signal.aborted ? { allow: false, reason: "the run was aborted" } : ask(request),
    );
    queue = turn.catch(() => undefined);
    return turn;
  };
}
