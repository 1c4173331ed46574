// vercel-ai given the same tool-selection help as tern+select (see vercel.ts): the peer to
// compare tern+select's prompt tokens with.
import { vercelAdapter } from "./vercel.js";

export const adapter = vercelAdapter(true);
