// Model text on a terminal: escape sequences and control characters are removed, also when a
// sequence is split across streamed chunks; text, newlines, tabs and wide characters stay.
import { describe, expect, it } from "vitest";
import { retryLine } from "../src/render/progress.js";
import { TerminalTextFilter, terminalText } from "../src/render/terminal-text.js";

const HOSTILE = [
  "Done.\u001b]0;pwned\u0007 Title set by BEL,",
  "\u001b]2;again\u001b\\ by ST,",
  "\u001b[2J\u001b[H cleared,",
  "\u001b[31mred\u001b[0m,",
  "\u001bc reset,",
  "\u009b2J C1 CSI,",
  "\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007,",
  "bell\u0007 back\bspace\r\n",
  "tab\there 界 ✓\n",
].join("");
const CLEAN =
  "Done. Title set by BEL, by ST, cleared,red, reset, C1 CSI,link,bell backspace\ntab\there 界 ✓\n";

describe("terminalText", () => {
  it("removes escape sequences and control characters, keeps text, newlines and tabs", () => {
    expect(terminalText(HOSTILE)).toBe(CLEAN);
  });

  it("gives the same text however the stream is cut into chunks", () => {
    for (let size = 1; size <= 12; size++) {
      for (let offset = 0; offset < size; offset++) {
        const filter = new TerminalTextFilter();
        let out = filter.push(HOSTILE.slice(0, offset));
        for (let i = offset; i < HOSTILE.length; i += size) out += filter.push(HOSTILE.slice(i, i + size));
        out += filter.flush();
        expect(out, `chunks of ${size} from ${offset}`).toBe(CLEAN);
      }
    }
  });

  it("does not hold plain text back, and lets an unterminated sequence go at the end", () => {
    const filter = new TerminalTextFilter();
    expect(filter.push("plain ")).toBe("plain ");
    expect(filter.push("then \u001b]0;never ends")).toBe("then ");
    expect(filter.flush()).toBe("]0;never ends");
  });
});

describe("retryLine", () => {
  it("says how long, why and which attempt", () => {
    const notice = {
      attempt: 2,
      maxAttempts: 5,
      errorKind: "rate_limit" as const,
      errorMessage: "slow down",
    };
    expect(retryLine({ ...notice, delayMs: 4000, status: 429 })).toBe(
      "retrying in 4s (429 rate limited, attempt 2/5)",
    );
    expect(retryLine({ ...notice, delayMs: 250, errorKind: "network" })).toBe(
      "retrying in 250 ms (connection failed, attempt 2/5)",
    );
  });
});
