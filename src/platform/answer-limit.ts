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
 * The hook is the agent's `addRequest`, which Node calls for every request that uses the agent (the way proxy
 * agents hook requests): a `response` listener put before axios's sees the answer first.
 */
import type http from 'node:http';

/** The error a refused answer ends its request with; HttpClient turns it into TB_RESPONSE_TOO_LARGE. */
export const ANSWER_TOO_LARGE = 'TB_ANSWER_TOO_LARGE';

interface Reader {
  res: http.IncomingMessage;
  held: number;
  paused: boolean;
}

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
      const err: NodeJS.ErrnoException = new Error(`the answer declares ${declared} bytes, over the limit of ${this.maxBytes}`);
      err.code = ANSWER_TOO_LARGE;
      req.destroy(err);
      return;
    }
    if (res.headers['content-encoding'] || declared <= 64 * 1024) return; // small or compressed: nothing to share
    const r: Reader = { res, held: 0, paused: false };
    this.readers.push(r);
    res.on('data', (chunk: Buffer) => {
      r.held += chunk.length;
      this.held += chunk.length;
      if (this.held > this.peakBytes) this.peakBytes = this.held;
      if (this.held > this.share && this.readers[0] !== r && !r.paused) {
        r.paused = true;
        res.pause();
      }
    });
    // 'end' when read whole; 'close' also when the answer is dropped or the socket lost
    const done = (): void => this.done(r);
    res.once('end', done);
    res.once('close', done);
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
