// The answer family: a synthesised answer streamed apart from the loop's messages. Emitted by
// answer synthesis (`answer-synthesis.ts`) and by plan mode's synthesis phase; the CLI, the FIM
// and Copilot mappers and the web page show it. The deltas after the last `answer_start` add up
// to `answer_end`'s answer: a second start voids what streamed before it.

import { familyGuard } from "../events.js";

export type AnswerEvent =
  | { type: "answer_start" }
  | { type: "answer_delta"; delta: string }
  /** `error`: the synthesis failed and `answer` is the loop's own last text instead. */
  | { type: "answer_end"; answer: string; error?: string };

declare module "../events.js" {
  interface AgentEventFamilies {
    answer: AnswerEvent;
  }
}

export const isAnswerEvent: (event: { type: string }) => event is AnswerEvent = familyGuard<AnswerEvent>({
  answer_start: true,
  answer_delta: true,
  answer_end: true,
});
