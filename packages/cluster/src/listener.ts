// One LISTEN connection that comes back: PostgreSQL drops it on a restart, and a node must go on
// hearing NOTIFYs once the database is back. After a reconnect `onReconnect` runs, so a reader
// can fetch what it may have missed while deaf.
import pg from "pg";
import { RETRY_MS } from "./db.js";

export class Listener {
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly channels: readonly string[],
    private readonly onNotify: (channel: string, payload: string) => void,
    private readonly onReconnect: () => void = () => {},
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (message) => this.onNotify(message.channel, message.payload ?? ""));
    client.on("error", () => {}); // "end" follows; that is where we reconnect
    try {
      await client.connect();
      for (const channel of this.channels) await client.query(`listen ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    client.on("end", () => {
      if (!this.closed) void this.reconnect();
    });
    this.client = client;
  }

  private async reconnect(): Promise<void> {
    while (!this.closed) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      try {
        await this.connect();
        this.onReconnect();
        return;
      } catch {
        // still away
      }
    }
  }
}
