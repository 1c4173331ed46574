// Steps' results as text for the next model: capped per result so one verbose step cannot crowd
// out the rest, and labelled so the planner, the analyzer and the synthesis see the same report.

import type { PlanRound, StepOutcome } from "./types.js";

/** Characters of one result in a round report (the planner's and analyzer's view). */
export const REPORT_RESULT_CHARS = 2_000;

export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}

export function outcomeLine(outcome: StepOutcome, max = REPORT_RESULT_CHARS): string {
  const head = `[${outcome.id}] (${outcome.status}) ${outcome.task}`;
  if (outcome.status === "done") return `${head}\n${cap(outcome.result, max)}`;
  return `${head}\n${outcome.error ?? "no result"}`;
}

export function outcomesReport(outcomes: readonly StepOutcome[], max = REPORT_RESULT_CHARS): string {
  return outcomes.map((outcome) => outcomeLine(outcome, max)).join("\n\n");
}

export function roundsReport(rounds: readonly PlanRound[]): string {
  return rounds
    .map((round) => {
      const lines = [`Round ${round.round}:`, outcomesReport(round.outcomes)];
      if (round.analysis) {
        lines.push(
          `Analysis: achieved=${round.analysis.achieved}, confidence=${round.analysis.confidence}. ${round.analysis.reasoning}`,
        );
      }
      if (round.userMessage) lines.push(`The user said during this round: ${round.userMessage}`);
      return lines.join("\n");
    })
    .join("\n\n");
}
