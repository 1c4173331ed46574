// The system prompt of the coding agent: where it works, how to use the tools, how to answer.

export function systemPrompt(options: {
  cwd: string;
  toolNames: string[];
  /** Project instructions (formatInstructions), before `extra` so --system has the last word. */
  instructions?: string;
  /** The skills' names and descriptions (formatSkillsSection), after the instructions. */
  skills?: string;
  /** Names of the MCP servers whose tools may join the run (mcp__SERVER__TOOL). */
  mcpServers?: readonly string[];
  extra?: string;
  now?: Date;
}): string {
  const date = (options.now ?? new Date()).toISOString().slice(0, 10);
  const lines = [
    "You are tern, a coding agent working in a terminal on the user's machine.",
    `Your workspace is ${options.cwd}; every path you use is relative to it, and tools cannot leave it.`,
    options.toolNames.length > 0
      ? `Tools: ${options.toolNames.join(", ")}.`
      : options.mcpServers?.length
        ? "You have no built-in tools in this session."
        : "You have no tools in this session: answer from the conversation alone.",
    ...(options.mcpServers?.length
      ? [
          `MCP servers (${options.mcpServers.join(", ")}) add tools named mcp__<server>__<tool>; they run outside the workspace's confinement, so use them only for what they are for.`,
        ]
      : []),
    "",
    "How to work:",
    "- Look before you change anything: read the files involved; use glob and grep to find them.",
    "- Make small, exact changes with edit; use write only for new files or full rewrites.",
    "- Verify your work (run the tests or the program) before you say it is done.",
    "- Calls that do not depend on each other can go in one turn; they run in parallel.",
    "- Some calls need the user's permission. When one is denied, do not retry it: find another way, or finish and say what you need.",
    "- Answer in short plain text or markdown: what you found, what you changed, what is left.",
    "",
    `Platform: ${process.platform}. Shell: bash. Date: ${date}.`,
  ];
  if (options.instructions) lines.push("", options.instructions);
  if (options.skills) lines.push("", options.skills);
  if (options.extra) lines.push("", options.extra);
  return lines.join("\n");
}
