/**
 * A small cache for the editor's look-ups: answers are kept for `ttlMs`, at most `maxEntries` of them (the
 * least recently used goes first), and concurrent requests for the same key share one load, so typing in a
 * picker does not flood the server. A failed load is never kept. Time is `Date.now()`.
 */
interface Entry<T> {
  promise: Promise<T>;
  /** When a settled answer stops being fresh; Infinity while the load is in flight. */
  expires: number;
}

export interface LookupCacheOptions {
  /** How long an answer is reused (ms); 0 = only concurrent requests share a load. */
  ttlMs: number;
  /** How many answers are kept at most. */
  maxEntries: number;
}

export class LookupCache {
  private readonly entries = new Map<string, Entry<unknown>>();
  /** Bumped by clear(): a load that started before it does not store its answer. */
  private generation = 0;

  constructor(private readonly opts: LookupCacheOptions) {}

  /** The cached or in-flight answer for `key`, else the result of `load()` (stored when it succeeds). */
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key) as Entry<T> | undefined;
    if (hit && hit.expires > now) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.promise;
    }
    if (hit) this.entries.delete(key);
    const generation = this.generation;
    let promise: Promise<T>;
    try {
      promise = load();
    } catch (err) {
      return Promise.reject(err);
    }
    const entry: Entry<T> = { promise, expires: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    this.evict();
    promise.then(
      () => {
        if (this.entries.get(key) !== entry) return;
        if (generation !== this.generation || this.opts.ttlMs <= 0) this.entries.delete(key);
        else entry.expires = Date.now() + this.opts.ttlMs;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return promise;
  }

  /** Forgets every answer (loads in flight still answer their callers, but are not kept). */
  clear(): void {
    this.entries.clear();
    this.generation++;
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    const max = Math.max(1, this.opts.maxEntries);
    if (this.entries.size <= max) return;
    const now = Date.now();
    // Stale answers first, then the least recently used (the newest entry, just added, is last).
    for (const [k, e] of this.entries) {
      if (this.entries.size <= max) return;
      if (e.expires <= now) this.entries.delete(k);
    }
    for (const k of this.entries.keys()) {
      if (this.entries.size <= max) return;
      this.entries.delete(k);
    }
  }
}
