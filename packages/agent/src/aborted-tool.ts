// The result text of a tool call cut short by an abort. A module of its own so that a renderer can
// recognise it without loading the tool-execution machinery (and its schema validators).

export const ABORTED_TOOL_TEXT = "Tool execution was aborted.";
