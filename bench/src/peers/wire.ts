// Chat Completions streaming chunks in the real wire shape (`chat.completion.chunk` objects as
// `data:` lines, then `data: [DONE]`), as the OpenAI API sends them: a first chunk with the role,
// content or tool-call deltas, a finish chunk, and a trailing usage chunk with no choices.

const CREATED = 1_767_225_600; // fixed, so every runtime parses the same bytes

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export class ChunkWriter {
  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  private event(choices: unknown[], usage?: Usage): string {
    const chunk: Record<string, unknown> = {
      id: this.id,
      object: "chat.completion.chunk",
      created: CREATED,
      model: this.model,
      system_fingerprint: "fp_bench",
      choices,
    };
    if (usage) chunk.usage = usage;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  private delta(delta: Record<string, unknown>, finish: string | null = null): string {
    return this.event([{ index: 0, delta, logprobs: null, finish_reason: finish }]);
  }

  role(): string {
    return this.delta({ role: "assistant", content: "", refusal: null });
  }

  text(piece: string): string {
    return this.delta({ content: piece });
  }

  toolCallStart(callId: string, name: string): string {
    return this.delta({
      role: "assistant",
      content: null,
      tool_calls: [{ index: 0, id: callId, type: "function", function: { name, arguments: "" } }],
    });
  }

  toolCallArgs(piece: string): string {
    return this.delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  }

  finish(reason: "stop" | "tool_calls"): string {
    return this.delta({}, reason);
  }

  usage(usage: Usage): string {
    return this.event([], usage);
  }
}

export const DONE = "data: [DONE]\n\n";

export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
