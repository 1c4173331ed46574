/**
 * Remembers a value derived from a transcript message (its wire form, its replay-safe copy),
 * keyed by the message object and a variant string for what else the value depends on (the
 * model's abilities). Every turn resends the whole transcript; with this only the new messages
 * are converted, and a dropped message frees its entry (WeakMap). Messages in a transcript are
 * treated as immutable: code that changes one replaces the object, as the agent does.
 */
export class WireCache<T> {
  private readonly entries = new WeakMap<object, { variant: string; value: T }>();

  get(message: object, variant: string, build: () => T): T {
    const entry = this.entries.get(message);
    if (entry && entry.variant === variant) return entry.value;
    const value = build();
    this.entries.set(message, { variant, value });
    return value;
  }
}
