// An index over tree entries: lookup by id, children, labels, and the path from the root to a leaf.
import type { SessionEntry } from "./types.js";

export class SessionTree {
  private readonly byId = new Map<string, SessionEntry>();
  /** Built on the first `children()` call: loading and context building never need it. */
  private childIds: Map<string | null, string[]> | undefined;
  private readonly labels = new Map<string, string>();
  private readonly order: SessionEntry[] = [];

  constructor(entries: Iterable<SessionEntry> = []) {
    for (const entry of entries) this.add(entry);
  }

  add(entry: SessionEntry): void {
    this.byId.set(entry.id, entry);
    this.order.push(entry);
    if (this.childIds) this.link(entry);
    if (entry.type === "label") {
      if (entry.label === null) this.labels.delete(entry.targetId);
      else this.labels.set(entry.targetId, entry.label);
    }
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get size(): number {
    return this.order.length;
  }

  /** All entries in append order. */
  entries(): readonly SessionEntry[] {
    return this.order;
  }

  /** The newest entry, which is the leaf a loaded session resumes from. */
  last(): SessionEntry | undefined {
    return this.order.at(-1);
  }

  /** Children of `id` (null: the roots), oldest first. */
  children(id: string | null): SessionEntry[] {
    if (!this.childIds) {
      this.childIds = new Map();
      for (const entry of this.order) this.link(entry);
    }
    return (this.childIds.get(id) ?? []).map((child) => this.byId.get(child)!);
  }

  private link(entry: SessionEntry): void {
    const siblings = this.childIds!.get(entry.parentId);
    if (siblings) siblings.push(entry.id);
    else this.childIds!.set(entry.parentId, [entry.id]);
  }

  label(id: string): string | undefined {
    return this.labels.get(id);
  }

  /** Every labelled entry id with its label. */
  allLabels(): ReadonlyMap<string, string> {
    return this.labels;
  }

  /** An entry carrying `label` (the one labelled first, if several share it). */
  findLabel(label: string): SessionEntry | undefined {
    for (const [id, name] of this.labels) if (name === label) return this.byId.get(id);
    return undefined;
  }

  /** Entries from the root to `leafId` inclusive; empty for a null leaf. */
  path(leafId: string | null): SessionEntry[] {
    const path: SessionEntry[] = [];
    let id = leafId;
    while (id !== null) {
      const entry = this.byId.get(id);
      if (!entry) break;
      path.push(entry);
      id = entry.parentId;
    }
    return path.reverse();
  }
}
