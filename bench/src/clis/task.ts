// The task every CLI runs in `npm run bench clis`: read five files, one per model turn, then give a
// 2 KB streamed answer. Each file holds a marker with a per-run nonce; the server counts the
// markers in a request to know the turn, and a request whose markers are not 0..k-1 (a tool
// result that did not come back) is a failed check, not a guess.

export const FILES = 5;
export const ANSWER_CHUNK_CHARS = 32;

const WORDS =
  "note file line marker text plain second third read each turn summary holds two with one the of and a in".split(
    " ",
  );

export interface Task {
  nonce: string;
  files: { name: string; text: string; marker: string }[];
  prompt: string;
  answer: string;
}

export function makeTask(nonce: string): Task {
  const files = Array.from({ length: FILES }, (_, k) => {
    const marker = `bench-file-${k}-${nonce}`;
    return {
      name: `notes-${k}.txt`,
      marker,
      text: `${marker}\nline two of file ${k}\nline three of file ${k}\n`,
    };
  });
  const prompt = `Read ${files.map((f) => f.name).join(", ")} in this directory, one file per turn with your read tool (or cat), then summarise them.`;
  // 2,048 characters; its opening words are how the first answer byte is found on stdout. The
  // words vary (a fixed LCG over a word list): CLIs with loop detection stop on repeated text.
  let answer = `Summary ${nonce}: `;
  let seed = 7;
  while (answer.length < 2048) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    answer += `${WORDS[seed % WORDS.length]}${seed % 11 === 0 ? ". " : " "}`;
  }
  return { nonce, files, prompt, answer: answer.slice(0, 2048) };
}

/** How many files' markers a request carries, in order; `undefined` when they are not 0..k-1. */
export function turnOf(task: Task, body: string): number | undefined {
  const present = task.files.map((f) => body.includes(f.marker));
  const k = present.indexOf(false) === -1 ? FILES : present.indexOf(false);
  return present.slice(k).some(Boolean) ? undefined : k;
}
