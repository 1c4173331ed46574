/** The original goal as a quote inside an injected message, shortened if very long. */
export function quoteGoal(prompt: string, maxChars = 1_000): string {
  const text = prompt.trim();
  return `"${text.length > maxChars ? `${text.slice(0, maxChars)}…` : text}"`;
}
