// The task-complete family: the model called `task_complete` with a summary (autopilot,
// `autopilot.ts`), which ends the run. The CLI and the Copilot mapper show it.

import { familyGuard } from "../events.js";

export type TaskCompleteEvent = { type: "task_complete"; summary: string };

declare module "../events.js" {
  interface AgentEventFamilies {
    taskComplete: TaskCompleteEvent;
  }
}

export const isTaskCompleteEvent: (event: { type: string }) => event is TaskCompleteEvent =
  familyGuard<TaskCompleteEvent>({ task_complete: true });
