/**
 * The rule engine's REST API (`C/RuleEngineController.java`, since 3.8): `POST /api/rule-engine/` (the calling
 * user, the trailing slash part of the mapping), `…/{entityType}/{entityId}`, `…/{timeout}`,
 * `…/{queueName}/{timeout}`. The controller checks the body is JSON, checks WRITE on the originator
 * (`SEC/AccessValidator.java`: refusals are bare strings, 403 / 404), pushes a `REST_API_REQUEST` message with the
 * metadata `serviceId`, `requestUUID` and `expirationTime` into the rule chains, and waits for a "rest call reply"
 * node (`RE/rest/TbSendRestApiCallReplyNode.java`) to answer: 200 with the reply's data as JSON, 406 (empty) when that
 * data is not JSON, 408 (empty) when nothing answered before the expiration, 500 JSON "Request timeout" at the
 * `spring.mvc.async.request-timeout` cut (30 s).
 *
 * The simulated rule chains answer as a test sets them (`setChain`): a fixed reply or a transformation of the
 * message, no answer (no reply node on the path, or its metadata lost), data that is not JSON, an empty reply. The
 * demo tenant's root rule chain answers by default: the message's data, an object merged with its originator
 * (`{entityType, id, name}`). Every message that reached the rule chains is logged (`calls()`), so a test can tell a
 * message handled once from one handled twice. Every wait runs on its own `RpcTimers` (real, optionally scaled, or
 * manual).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { validateAccess, type AccessContext } from './access';
import { javaUuid } from './alarm-actions';
import type { Dataset } from './dataset';
import { badRequest, general } from './errors';
import { parseJackson, writeJava } from './json';
import { RpcTimers, type TimerMode } from './rpc';
import type { RouteAnswer } from './telemetry';
import { ENTITY_TYPE_NAMES, type Caller, type EntityId } from './types';
import type { JsonValue } from './values';

/** How the rule chains treat a `REST API request` message. */
export type ChainMode = 'reply' | 'silent' | 'nonJson' | 'empty';
export const CHAIN_MODES: readonly ChainMode[] = ['reply', 'silent', 'nonJson', 'empty'];

/** A message as the rule chains receive it (`TbMsg`), and what became of it. */
export interface RuleEngineMsg {
  type: 'REST_API_REQUEST';
  originator: EntityId;
  /** the caller's customer (null for a tenant administrator) */
  customerId: string | null;
  /** the `{queueName}` of the path, or null */
  queueName: string | null;
  /** the queue it went to: the one named when the server knows it, else Main */
  queue: string;
  /** the message's data, parsed (the request body, passed on unchanged) */
  data: unknown;
  /** the request body as it came */
  dataText: string;
  metadata: { serviceId: string; requestUUID: string; expirationTime: string };
  /** simulator clock at arrival */
  receivedAt: number;
  /** how the HTTP request ended: 200, 406, 408, 500; 0 while it waits */
  answered: number;
}

export interface ChainBehaviour {
  mode: ChainMode;
  /**
   * 'reply': the reply's data, a JSON value, or a function of the message (its result is the data; `undefined` means
   * no "rest call reply" on this message's path: no answer). Default: the demo root chain's answer.
   */
  reply?: JsonValue | ((msg: RuleEngineMsg) => unknown);
  // 'nonJson': a reply node answered with data that is not JSON (the server answers 406 with no body)
  /** arrival → reply (default 0) */
  replyDelayMs?: number;
}

export interface RuleEngineOptions {
  timers?: TimerMode;
  timeScale?: number;
  /** server.rest.rule_engine.response_timeout (10000) */
  defaultTimeoutMs?: number;
  /** spring.mvc.async.request-timeout (30000) */
  asyncRequestTimeoutMs?: number;
}

export interface RuleEngineContext extends AccessContext {
  data: Dataset;
  now(): number;
}

/**
 * The queues of a fresh installation: a name the server does not know goes to Main, without an error
 * (`HashPartitionService.java` of common/queue).
 */
const QUEUES = ['Main', 'HighPriority', 'SequentialByOriginator'];
const CALL_LOG = 1000;
/** The core node's id in `serviceId` (one node). */
const SERVICE_ID = 'tb-core-simulated';

const DEFAULT_CHAIN: ChainBehaviour = { mode: 'reply' };

export class RuleEngineService {
  readonly timers: RpcTimers;
  /** 'message' (RuleEngineMsg, as it reaches the rule chains), 'answered' (the same, with its `answered` status) */
  readonly events = new EventEmitter();
  private chain: ChainBehaviour = DEFAULT_CHAIN;
  private readonly log: RuleEngineMsg[] = [];
  private received = 0;
  private readonly opts: Required<Omit<RuleEngineOptions, 'timers' | 'timeScale'>>;

  constructor(
    private readonly ctx: RuleEngineContext,
    opts: RuleEngineOptions = {},
  ) {
    this.events.setMaxListeners(0);
    this.timers = new RpcTimers(opts.timers ?? 'real', opts.timeScale ?? 1);
    this.opts = {
      defaultTimeoutMs: opts.defaultTimeoutMs ?? 10_000,
      asyncRequestTimeoutMs: opts.asyncRequestTimeoutMs ?? 30_000,
    };
  }

  // --- test hooks ------------------------------------------------------------------------------------------------

  /** How the rule chains answer from now on. */
  setChain(behaviour: ChainBehaviour): void {
    if (!CHAIN_MODES.includes(behaviour.mode)) throw new Error(`Unknown rule chain mode ${String(behaviour.mode)}`);
    this.chain = { ...behaviour };
  }

  /** The rule chains' behaviour now. */
  behaviour(): ChainBehaviour {
    return { ...this.chain };
  }

  /** Back to the demo root chain (it answers). */
  resetChain(): void {
    this.chain = DEFAULT_CHAIN;
  }

  /** The messages that reached the rule chains (the last 1000), oldest first. */
  calls(): RuleEngineMsg[] {
    return this.log.map((m) => ({ ...m }));
  }

  /** How many messages reached the rule chains. */
  count(): number {
    return this.received;
  }

  resetCounters(): void {
    this.log.length = 0;
    this.received = 0;
  }

  setTimers(opts: { mode?: TimerMode; scale?: number }): void {
    if (opts.mode) this.timers.mode = opts.mode;
    if (opts.scale !== undefined) this.timers.scale = Math.max(0, opts.scale);
  }
  advance(ms: number): number {
    return this.timers.advance(ms);
  }
  pendingTimers(): number {
    return this.timers.pending();
  }
  shutdown(): void {
    this.timers.shutdown();
  }

  // --- HTTP ------------------------------------------------------------------------------------------------------

  /**
   * One of the four routes: `entityType`/`entityId` null for the calling user, `queueName` and `timeout` null when the
   * path has none (the path variables as Spring decoded them).
   */
  handle(
    caller: Caller,
    entityType: string | null,
    entityId: string | null,
    queueName: string | null,
    timeoutText: string | null,
    body: Buffer,
  ): RouteAnswer | Promise<RouteAnswer> {
    // `{timeout}` is an int path variable: Spring refuses text before the controller runs (400 JSON, code 31)
    let timeout = this.opts.defaultTimeoutMs;
    if (timeoutText !== null) {
      if (!/^[+-]?\d+$/.test(timeoutText) || Math.abs(Number(timeoutText)) > 2147483647)
        throw badRequest(
          "Failed to convert value of type 'java.lang.String' to required type 'int'; For input string: " +
            `"${timeoutText}"`,
        );
      timeout = Number(timeoutText);
    }
    if (body.length === 0) throw general('Required request body is missing');
    let originator: EntityId;
    if (entityType === null || entityId === null) {
      originator = { entityType: 'USER', id: caller.userId };
    } else {
      // `EntityIdFactory.getByTypeAndId`: an unknown type or a bad UUID is the controller's 400 (L207-209)
      if (!(ENTITY_TYPE_NAMES as readonly string[]).includes(entityType)) throw badRequest('Invalid request body');
      let id: string;
      try {
        id = javaUuid(entityId, false);
      } catch {
        throw badRequest('Invalid request body');
      }
      originator = { entityType: entityType as EntityId['entityType'], id };
    }
    const text = body.toString('utf8');
    try {
      parseJackson(text);
    } catch {
      throw badRequest('Invalid request body');
    }
    // WRITE on the originator; the calling user's own path checks nothing more than the login
    if (entityType !== null) validateAccess(this.ctx, caller, 'WRITE', originator);

    const now = this.ctx.now();
    let data: unknown = text;
    try {
      data = JSON.parse(text);
    } catch {
      /* Jackson read it (trailing content): the transformation gets the text */
    }
    const named = queueName !== null && queueName !== '' ? queueName : null;
    const msg: RuleEngineMsg = {
      type: 'REST_API_REQUEST',
      originator,
      customerId: caller.customerId,
      queueName: named,
      queue: named !== null && QUEUES.includes(named) ? named : 'Main',
      data,
      dataText: text,
      metadata: { serviceId: SERVICE_ID, requestUUID: randomUUID(), expirationTime: String(now + timeout) },
      receivedAt: now,
      answered: 0,
    };
    this.received++;
    this.log.push(msg);
    if (this.log.length > CALL_LOG) this.log.shift();
    this.events.emit('message', msg);

    return new Promise<RouteAnswer>((resolve) => {
      const tasks: ReturnType<RpcTimers['schedule']>[] = [];
      let done = false;
      const answer = (a: RouteAnswer): void => {
        if (done) return; // only the first answer counts (later ones are "stale")
        done = true;
        for (const t of tasks) this.timers.cancel(t);
        msg.answered = a.status;
        this.events.emit('answered', msg);
        resolve(a);
      };
      // the async cut: 500 JSON "Request timeout" (`BaseController.handleException` L464-465)
      tasks.push(
        this.timers.schedule(this.opts.asyncRequestTimeoutMs, () =>
          answer({
            status: 500,
            json: writeJava({ status: 500, message: 'Request timeout', errorCode: 2, timestamp: this.ctx.now() }),
          }),
        ),
      );
      // max(0, expirationTime - now), then 408, no body (`APP/service/ruleengine/DefaultRuleEngineCallService.java`)
      tasks.push(this.timers.schedule(Math.max(0, timeout), () => answer({ status: 408 })));
      if (done) return;
      const reply = this.reply(msg, caller);
      if (reply === undefined) return;
      tasks.push(this.timers.schedule(this.chain.replyDelayMs ?? 0, () => answer(reply)));
    });
  }

  /** What the rule chains answer for this message: undefined when nothing answers. */
  private reply(msg: RuleEngineMsg, caller: Caller): RouteAnswer | undefined {
    // A system administrator's message has no tenant: `pushMsgToRuleEngine` drops it ("Received invalid message")
    if (caller.authority === 'SYS_ADMIN') return undefined;
    const b = this.chain;
    switch (b.mode) {
      case 'silent':
        return undefined;
      case 'nonJson':
        return { status: 406 };
      case 'empty':
        return { status: 200 };
      default: {
        const out =
          typeof b.reply === 'function' ? b.reply({ ...msg }) : b.reply === undefined ? this.demo(msg) : b.reply;
        if (out === undefined) return undefined;
        // the reply's data is parsed and written again as JSON (`RuleEngineController.reply` L218-222)
        return { status: 200, json: JSON.stringify(out) };
      }
    }
  }

  /** The demo root chain: an object's data merged with its originator, any other data as it came. */
  private demo(msg: RuleEngineMsg): unknown {
    const d = msg.data;
    if (d === null || typeof d !== 'object' || Array.isArray(d)) return d;
    const e = this.ctx.data.get(msg.originator.id);
    return { ...d, originator: { ...msg.originator, name: e?.name ?? null } };
  }
}
