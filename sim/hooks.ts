/** Test hooks: fault injection and the bounded request log. */

export interface FaultSpec {
  /** a path prefix (string) or a RegExp tested against the path (no query string); default: every /api path */
  path?: string | RegExp;
  /** HTTP method, case-insensitive; default: any */
  method?: string;
  /** answer with this status (default 500 when `body` is given; otherwise no status means "delay only") */
  status?: number;
  /** JSON body (object) or raw text (string); default: the server's error body for `status` */
  body?: unknown;
  /** how many requests this fault applies to; default 1; Infinity = until removed */
  times?: number;
  /** adds a `Retry-After` header */
  retryAfter?: number | string;
  /** wait this long first (then answer the fault, or handle the request normally if nothing else is set) */
  delayMs?: number;
  /** send a truncated, non-JSON body with Content-Type application/json (status default 200) */
  malformed?: boolean;
  /**
   * destroy the connection without any response: `true` before handling the request; `'after'` once the request
   * was handled (a save stored, an RPC delivered to the device or queued), so the client cannot tell whether it
   * happened
   */
  dropConnection?: boolean | 'after';
  /**
   * a huge answer: a JSON object `{"filler":"xxx…"}` of exactly this many bytes (status default 200), e.g. a
   * misbehaving proxy or a runaway result; sent in chunks, so the simulator never holds it in one string
   */
  bodyBytes?: number;
  /**
   * with `bodyBytes`: no Content-Length, the answer sent chunked (as ThingsBoard's Tomcat sends a JSON answer larger
   * than its buffer), so that a client learns the size only by reading
   */
  chunked?: boolean;
  /** extra response headers */
  headers?: Record<string, string>;
  /**
   * with `status`: the request is handled first (a save stored, an alarm acknowledged), then answered with the
   * fault instead of the real answer — a gateway that gave up (502/504) after the server did the work
   */
  handled?: boolean;
}

export interface Fault extends FaultSpec {
  readonly id: number;
  remaining: number;
  hits: number;
}

const DEFAULT_MESSAGES: Record<number, [string, number]> = {
  400: ['Bad request', 31],
  401: ['Token has expired', 11],
  403: ["You don't have permission to perform this operation!", 20],
  404: ["Requested item wasn't found!", 32],
  409: ['Version conflict', 35],
  429: ['Too many requests for current tenant!', 33],
  500: ['Internal server error', 2],
  502: ['Bad gateway', 2],
  503: ['Service unavailable', 2],
  504: ['Gateway timeout', 2],
};

/** The standard error body a fault answers with when it has no `body`. */
export function defaultFaultBody(
  status: number,
  timestamp: number,
): { status: number; message: string; errorCode: number; timestamp: number } {
  const [message, errorCode] = DEFAULT_MESSAGES[status] ?? [`HTTP ${status}`, 2];
  return { status, message, errorCode, timestamp };
}

export class Faults {
  private list_: Fault[] = [];
  private seq = 0;

  add(spec: FaultSpec): number {
    const id = ++this.seq;
    const times = spec.times === undefined ? 1 : spec.times;
    this.list_.push({ ...spec, id, remaining: times, hits: 0 });
    return id;
  }

  remove(id: number): boolean {
    const n = this.list_.length;
    this.list_ = this.list_.filter((f) => f.id !== id);
    return this.list_.length !== n;
  }

  clear(): void {
    this.list_ = [];
  }

  list(): Fault[] {
    return this.list_.map((f) => ({ ...f }));
  }

  get size(): number {
    return this.list_.length;
  }

  /** The first fault that applies to this request, consuming one use (expired faults are dropped). */
  take(method: string, path: string): Fault | undefined {
    if (this.list_.length === 0) return undefined;
    for (let i = 0; i < this.list_.length; i++) {
      const f = this.list_[i];
      if (f.method && f.method.toUpperCase() !== method) continue;
      if (f.path !== undefined) {
        if (typeof f.path === 'string' ? !path.startsWith(f.path) : !f.path.test(path)) continue;
      }
      f.remaining--;
      f.hits++;
      if (f.remaining <= 0) this.list_.splice(i, 1);
      return f;
    }
    return undefined;
  }
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  /** 0 when the connection was dropped */
  status: number;
  /** simulator clock at arrival */
  time: number;
  durationMs: number;
}

/** A counter per "METHOD path" plus a ring buffer of the last `capacity` requests. */
export class RequestLog {
  private readonly ring: (RequestLogEntry | undefined)[];
  private next = 0;
  private size = 0;
  private readonly counts = new Map<string, number>();
  total = 0;

  constructor(readonly capacity = 1000) {
    this.ring = new Array<RequestLogEntry | undefined>(capacity);
  }

  /** Counts an arriving request. */
  arrive(method: string, path: string): void {
    this.total++;
    const k = `${method} ${path}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }

  /** Stores a finished request in the ring. */
  record(entry: RequestLogEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.size < this.capacity) this.size++;
  }

  /** The last `limit` entries, oldest first. */
  entries(limit = this.capacity): RequestLogEntry[] {
    const n = Math.min(limit, this.size);
    const out: RequestLogEntry[] = [];
    for (let i = this.size - n; i < this.size; i++) {
      const idx = (this.next - this.size + i + this.capacity) % this.capacity;
      const e = this.ring[idx];
      if (e) out.push(e);
    }
    return out;
  }

  /** Requests whose path starts with the prefix (or matches the RegExp), optionally of one method. */
  count(match: string | RegExp, method?: string): number {
    let n = 0;
    const m = method?.toUpperCase();
    for (const [k, c] of this.counts) {
      const sp = k.indexOf(' ');
      if (m && k.slice(0, sp) !== m) continue;
      const path = k.slice(sp + 1);
      if (typeof match === 'string' ? path.startsWith(match) : match.test(path)) n += c;
    }
    return n;
  }

  countsByPath(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  reset(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.size = 0;
    this.counts.clear();
    this.total = 0;
  }
}
