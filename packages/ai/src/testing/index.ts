// @tern/ai/testing: one scripted model for every test. The same script (a list of replies: text,
// thinking, tool calls, usage, errors, a cut stream, pacing) runs in-process through the faux
// provider or is served over loopback HTTP in each wire format tern's providers speak. For tests
// only: nothing under packages/*/src imports it, so the tern bundle never carries it.
// The in-process side: the faux provider (also exported by @tern/ai itself, for `tern demo`).
export {
  CUT_MESSAGE,
  createFaux,
  type FauxOptions,
  type FauxProvider,
  type FauxReply,
  type FauxRequest,
  type FauxStep,
  fauxText,
  fauxThinking,
  fauxToolCall,
} from "../providers/faux.js";
export { gate, heldStep, type ReplyOptions, type ScriptedCall, textReply, toolReply } from "./replies.js";
export {
  type Exchange,
  type RecordedRequest,
  type ScriptServer,
  type ScriptStep,
  type ServedReply,
  type ServeOptions,
  serveScript,
} from "./serve.js";
export { contentText, type WireMessage, wireMessages } from "./wire-bodies.js";
export {
  completionsSse,
  encodeReply,
  errorBody,
  typedSse,
  WIRES,
  type Wire,
  type WireEvents,
} from "./wires.js";
