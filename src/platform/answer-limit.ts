/**
 * The bound on what a connection's answers hold while they are read (the connection's Largest answer,
 * `maxResponseMB`), at the socket, before axios buffers anything:
 *
 * - an answer that declares a length over the limit (Content-Length) is refused before one byte of it is read;
 * - answers read at the same time share the limit: while the bytes they hold add up to more than it, every answer
 *   but the oldest waits (its socket paused) until an older one ends or is dropped. The oldest always reads on, so
 *   the answers finish one after the other and none waits for ever. Three 50 MB answers at once therefore hold one
 *   limit's worth, not three (ThingsBoard sends a large answer chunked, without a length).
 *
 * axios still counts each answer against `maxContentLength` and drops the one that goes over (TB_RESPONSE_TOO_LARGE).
 * A compressed answer is not paused (axios pipes it into a decompressor, whose flow control would resume it); its
 * own limit still applies.
 *
 * Cost: nothing for an answer that declares a length up to 64 KB (ThingsBoard's Tomcat declares it when the answer
 * fits its 8 KB buffer; the simulator always does). An answer without a length gets a 'data' listener beside
 * axios's, which costs about 35,000 instructions per request (callgrind, a 1.5 KB chunked answer: 2 % of the whole
 * request with its local server); it joins the shared count only past 64 KB.
 *
 * The hook is the agent's `addRequest`, which Node calls for every request that uses the agent (the way proxy
 * agents hook requests): a `response` listener put before axios's sees the answer first.
 */
import type http from 'node:http';

/** The error a refused answer ends its request with; HttpClient turns it into TB_RESPONSE_TOO_LARGE. */
export const ANSWER_TOO_LARGE = 'TB_ANSWER_TOO_LARGE';

interface Reader {
  res: http.IncomingMessage;
  /** Bytes of this answer read so far. */
  held: number;
  paused: boolean;
  /** In `readers` and counted in `held` (once over TRACKED bytes). */
  tracked: boolean;
}

/**
 * Answers smaller than this are not counted with the others (64 KB: below it, sharing saves nothing worth the work).
 */
const TRACKED = 64 * 1024;

type AddRequest = (req: http.ClientRequest, options: unknown) => void;

export class AnswerLimit {
  /** The answers being read, oldest first. */
  private readonly readers: Reader[] = [];
  private held = 0;

  /** While the answers hold more than this together, only the oldest reads on. */
  private readonly share: number;

  constructor(readonly maxBytes: number) {
    this.share = maxBytes / 4;
  }

  /** The most the answers being read held at once (for tests and probes). */
  peakBytes = 0;

  /** Bytes held by the answers being read (for tests and probes). */
  get heldBytes(): number {
    return this.held;
  }

  /** Hooks the agent: every answer to a request made through it is bounded by this limit. */
  watch<A extends http.Agent>(agent: A): A {
    // addRequest is Node's (undocumented, long-stable) entry of every request into an agent; @types/node omits it.
    const a = agent as unknown as { addRequest: AddRequest };
    const add = a.addRequest;
    a.addRequest = (req, options) => {
      req.prependListener('response', (res) => this.onResponse(req, res));
      add.call(agent, req, options);
    };
    return agent;
  }

  private onResponse(req: http.ClientRequest, res: http.IncomingMessage): void {
    const declared = Number(res.headers['content-length']);
    if (declared > this.maxBytes) {
      // axios's own handler, next in line, returns at once for a destroyed request; its error handler gets this
      const err: NodeJS.ErrnoException = new Error(
        `the answer declares ${declared} bytes, over the limit of ${this.maxBytes}`,
      );
      err.code = ANSWER_TOO_LARGE;
      req.destroy(err);
      return;
    }
    if (res.headers['content-encoding'] || declared <= TRACKED) return; // small or compressed: nothing to share
    // An answer joins the shared count once it holds more than TRACKED bytes: most answers are small and, sent
    // chunked, show no length; they only count their own bytes.
    const r: Reader = { res, held: 0, paused: false, tracked: false };
    res.on('data', (chunk: Buffer) => {
      r.held += chunk.length;
      if (!r.tracked) {
        if (r.held <= TRACKED) return;
        this.track(r);
      } else {
        this.held += chunk.length;
      }
      if (this.held > this.peakBytes) this.peakBytes = this.held;
      if (this.held > this.share && this.readers[0] !== r && !r.paused) {
        r.paused = true;
        res.pause();
      }
    });
  }

  private track(r: Reader): void {
    r.tracked = true;
    this.held += r.held;
    this.readers.push(r);
    // 'end' when read whole; 'close' also when the answer is dropped or the socket lost
    const done = (): void => this.done(r);
    r.res.once('end', done);
    r.res.once('close', done);
  }

  private done(r: Reader): void {
    const i = this.readers.indexOf(r);
    if (i < 0) return;
    this.readers.splice(i, 1);
    this.held -= r.held;
    // The new oldest always reads on; the others while the bytes held leave room.
    for (let k = 0; k < this.readers.length; k++) {
      const w = this.readers[k];
      if (!w.paused) continue;
      if (k > 0 && this.held > this.share) break;
      w.paused = false;
      w.res.resume();
    }
  }
}
