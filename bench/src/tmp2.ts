import { sessionBench } from "./session.js";
for (let i = 0; i < 3; i++) { const rows = await sessionBench(); console.log(rows.map(r => r["appends/s"] !== "-" ? r["appends/s"] : `${r["load ms"]}/${r["min ms"]}`).join("  ")); }
