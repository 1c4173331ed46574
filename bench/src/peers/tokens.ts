// The one prompt-token estimator, applied by the server to every request body so all runtimes are
// counted the same way: a quarter of the characters of the compact JSON of what carries prompt
// text (`messages`, `tools`, and the legacy `functions`), rounded up. Real tokenizers differ by
// model; the ratio between runtimes is what this is for, and it counts what each runtime
// actually sent (extra schema keys, `strict` flags, null fields all cost).

export const CHARS_PER_TOKEN = 4;

export function promptTokens(body: { messages?: unknown; tools?: unknown; functions?: unknown }): number {
  let chars = JSON.stringify(body.messages ?? []).length;
  if (body.tools !== undefined) chars += JSON.stringify(body.tools).length;
  if (body.functions !== undefined) chars += JSON.stringify(body.functions).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export const textTokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);
