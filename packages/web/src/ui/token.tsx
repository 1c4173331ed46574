// Asks for the server's token once per tab (kept in sessionStorage, never in the URL).

import { useState } from "preact/hooks";

export function TokenPrompt({ done, wrong }: { done: (token: string) => void; wrong: boolean }) {
  const [value, setValue] = useState("");
  return (
    <form
      class="dialog"
      aria-labelledby="token-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) done(value.trim());
      }}
    >
      <h2 id="token-title">This server needs a token</h2>
      <p>{wrong ? "That token was refused. " : ""}It is kept in this tab only.</p>
      <label>
        Token
        <input
          type="password"
          autocomplete="off"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Continue</button>
    </form>
  );
}
