/**
 * The input contract every flow node keeps: exactly one send+done or done(err) per message, never an unhandled
 * rejection; the status of the requests in flight; and the close handler that releases what a node holds.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import type { TbConnectionNode } from './connection';
import { errorStatus, status } from './status';

export type SendFn = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;

/** Makes sure what reaches done() is an Error (a Catch node gets `msg.error.message = err.toString()`). */
export function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : 'Unexpected error');
}

/**
 * Tracks requests in flight for one node: a blue dot while any is in flight, and the outcome of the last
 * one once none is left (so a burst of messages does not flood the editor with status events).
 */
export class Activity {
  private inflight = 0;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
  ) {}

  start(): void {
    if (this.inflight++ === 0) this.node.status(status(this.RED, 'blue', 'dot', 'requesting'));
  }

  /** Shows a status now (e.g. "retry 2 (429)") without ending the request. */
  show(s: NodeStatus): void {
    this.node.status(s);
  }

  end(outcome: NodeStatus): void {
    if (--this.inflight <= 0) {
      this.inflight = 0;
      this.node.status(outcome);
    }
  }

  /** An outcome that does not come from a request (bad input): shown at once. */
  immediate(outcome: NodeStatus): void {
    if (this.inflight === 0) this.node.status(outcome);
  }
}

/** What a node's error handling needs of Node-RED's node and flow (the runtime's own `Node.prototype.error`). */
interface ErrorReporting {
  error(this: Node, logMessage: unknown, msg?: unknown): void;
  _flow?: { handleError?: (node: Node, logMessage: unknown, msg: unknown) => boolean };
}

const reporting = new WeakSet<Node>();

/**
 * How a message's error no Catch node takes is logged. Node-RED logs the Error itself, and the debug sidebar draws an
 * Error as an object, `{ name, message, code, stack }`, each text cut after 30 characters: the useful end of the
 * sentence is hidden. This node logs the error's text instead, one red line in the sidebar, whose first words (our
 * errors put the fix first) show whole. A Catch node gets the Error as before (`msg.error.message`, `code`, `stack`):
 * the flow hands it to the Catch nodes first, as Node-RED's own `error()` does, and only what none took is logged.
 */
export function logErrorsAsText(node: Node): void {
  if (reporting.has(node)) return;
  reporting.add(node);
  const proto = Object.getPrototypeOf(node) as ErrorReporting;
  (node as unknown as ErrorReporting).error = function (this: Node, logMessage: unknown, msg?: unknown): void {
    const flow = (this as unknown as ErrorReporting)._flow;
    if (!(logMessage instanceof Error) || !msg || typeof msg !== 'object' || typeof flow?.handleError !== 'function') {
      proto.error.call(this, logMessage, msg);
      return;
    }
    if (flow.handleError(this, logMessage, msg)) return;
    proto.error.call(this, logMessage.message || String(logMessage));
  };
}

/**
 * Attaches an async input handler with the Node-RED contract: the handler either resolves (it has called
 * send itself) and done() is called, or rejects and done(err) is called. Errors never escape; one no Catch node
 * takes is logged as its text (logErrorsAsText).
 */
export function onInput(node: Node, handler: (msg: NodeMessageInFlow, send: SendFn) => Promise<void>): void {
  logErrorsAsText(node);
  node.on('input', (msg, send, done) => {
    let p: Promise<void>;
    try {
      p = handler(msg, send);
    } catch (err) {
      done(asError(err));
      return;
    }
    p.then(
      () => done(),
      (err: unknown) => done(asError(err)),
    );
  });
}

/**
 * Runs one request of a node under its Activity: blue while in flight; on failure the error status, then
 * the error goes on to done(err). The operation sets the success status itself (activity.end).
 */
export async function tracked(RED: NodeAPI, activity: Activity, work: () => Promise<void>): Promise<void> {
  activity.start();
  try {
    await work();
  } catch (err) {
    activity.end(errorStatus(RED, err));
    throw err;
  }
}

/**
 * The close handler every flow node shares: `stop` drops what the node holds (subscriptions), then the node
 * leaves the connection's users and clears its status. Never throws (the runtime waits for done()).
 */
export function onClose(node: Node, conn: TbConnectionNode | undefined, stop?: () => void): void {
  node.on('close', (_removed: boolean, done: () => void) => {
    try {
      stop?.();
    } catch {
      /* the connection is unusable: nothing left to release */
    }
    conn?.deregister(node);
    node.status({});
    done();
  });
}
