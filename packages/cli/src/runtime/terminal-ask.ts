// Permission questions for `tern run` on a terminal: one line on stderr, the answer typed on stdin.
// (`tern chat` asks inside its own input line; without a terminal nobody is asked and the policy
// denies, telling the model why.)
import { createInterface } from "node:readline";
import type { AskPermission, PermissionAnswer, PermissionRequest } from "@tern/tools";
import type { Style } from "../render/style.js";
import { describeCall } from "../render/tool-lines.js";

export function askQuestion(request: PermissionRequest, style: Style): string {
  const always =
    request.suggestedRules.length > 0 ? ` / [a]lways allow ${request.suggestedRules.join(", ")}` : "";
  return `${style.yellow("?")} Allow ${style.bold(describeCall(request.toolName, request.args))}? [y]es / [n]o${always} `;
}

export function parseAnswer(text: string): PermissionAnswer {
  const answer = text.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return true;
  if (answer === "a" || answer === "always") return { allow: true, remember: true };
  return false;
}

export function terminalAsk(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  style: Style,
  beforeAsking: () => void,
): AskPermission {
  return (request) =>
    new Promise((resolve) => {
      beforeAsking();
      const rl = createInterface({ input, output, terminal: true });
      const done = (answer: PermissionAnswer) => {
        request.signal.removeEventListener("abort", onAbort);
        rl.close();
        resolve(answer);
      };
      const onAbort = () => done(false);
      request.signal.addEventListener("abort", onAbort, { once: true });
      rl.question(askQuestion(request, style), (text) => done(parseAnswer(text)));
      rl.on("SIGINT", () => {
        output.write("\n");
        done({ allow: false, reason: "the user pressed Ctrl-C" });
        process.kill(process.pid, "SIGINT");
      });
    });
}
