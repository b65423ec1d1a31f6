/**
 * The rule engine's REST API on the wire (`C/RuleEngineController.java`, ThingsBoard 3.8+): a message pushed into
 * the rule chains as an entity (or as the calling user), answered by a "rest call reply" node. The four paths, the
 * limits of the wait, what an answer status means (no reply, a reply that is not JSON, an endpoint the server lacks)
 * and the texts of those errors. No I/O, no Node-RED.
 *
 * The server's paths:
 * - `POST /api/rule-engine/` (the trailing slash is part of the mapping: without it Spring answers 404): the calling
 *   user is the originator, the server's own wait (10 s by default);
 * - `POST /api/rule-engine/{entityType}/{entityId}`: that entity, the server's own wait;
 * - `POST /api/rule-engine/{entityType}/{entityId}/{timeout}`: that entity, `timeout` ms;
 * - `POST /api/rule-engine/{entityType}/{entityId}/{queueName}/{timeout}`: and that queue.
 * The queue and the timeout therefore need an entity in the path: for the calling user with either, the user's own
 * id (`USER`) is the originator, which the server routes as it routes the first path (the tenant's root rule chain).
 */
import { durationText } from './duration';
import type { EntityId } from './types';

/** The server's own wait when none is given (`server.rest.rule_engine.response_timeout`). */
export const DEFAULT_RULE_ENGINE_TIMEOUT = 10000;

/**
 * The longest wait sent: the server cuts every HTTP wait at 30 s (`spring.mvc.async.request-timeout`) and then answers
 * 500 "Request timeout" rather than 408, so a longer one could never end as the timeout it asks for.
 */
export const MAX_RULE_ENGINE_TIMEOUT = 29000;

/** The server's cut of every HTTP wait, the longest a request without a timeout of its own can wait. */
export const ASYNC_REQUEST_TIMEOUT = 30000;

/** The version that brought the rule engine API into Community Edition. */
export const RULE_ENGINE_SINCE = '3.8';

/** The message's originator: the connection's user, or an entity. */
export type RuleOriginator = { kind: 'user' } | { kind: 'entity'; entity: EntityId };

/** What one message sends: its data (any JSON value), and the queue and wait when set (undefined: the server's). */
export interface RuleEngineRequest {
  /** The message's data, as the JSON text the server passes on unchanged. */
  body: string;
  queue: string | undefined;
  /** ms; undefined: the server's own wait. */
  timeout: number | undefined;
}

const enc = encodeURIComponent;

/**
 * The path for an originator: the user's own path when neither queue nor timeout is set (note the trailing slash);
 * otherwise the entity path, the user going by `userId` (which the caller looks up once).
 */
export function ruleEnginePath(
  originator: RuleOriginator,
  req: Pick<RuleEngineRequest, 'queue' | 'timeout'>,
  userId?: string,
): string {
  let e: EntityId;
  if (originator.kind === 'user') {
    if (req.queue === undefined && req.timeout === undefined) return '/api/rule-engine/';
    if (!userId) throw new Error('ruleEnginePath: the user id is needed for a queue or a timeout');
    e = { entityType: 'USER', id: userId };
  } else {
    e = originator.entity;
  }
  const base = `/api/rule-engine/${enc(e.entityType)}/${enc(e.id)}`;
  // The queue goes only with a timeout (the server has no path for a queue alone): the server's default then.
  if (req.queue !== undefined) return `${base}/${enc(req.queue)}/${req.timeout ?? DEFAULT_RULE_ENGINE_TIMEOUT}`;
  if (req.timeout !== undefined) return `${base}/${req.timeout}`;
  return base;
}

/** Does the path need the calling user's id? */
export function needsUserId(originator: RuleOriginator, req: Pick<RuleEngineRequest, 'queue' | 'timeout'>): boolean {
  return originator.kind === 'user' && (req.queue !== undefined || req.timeout !== undefined);
}

/** How long the HTTP request may take: the server's wait (its own, at most its 30 s cut) plus a margin. */
export function httpWait(timeout: number | undefined, connectionTimeoutMs: number, marginMs = 10000): number {
  return Math.max(connectionTimeoutMs, (timeout ?? ASYNC_REQUEST_TIMEOUT) + marginMs);
}

/**
 * What an error answer means: `noReply` for 408 (no "rest call reply" answered before the timeout; empty body) and
 * the server's 500 "Request timeout" (its 30 s cut); `badReply` for 406 (the reply's data is not JSON; empty body);
 * `missing` for a 404 without a body of ThingsBoard's (Spring's own, `{"error": "Not Found", "path"}`): the server
 * has no such endpoint, an older one. A 404 the access check answers is a plain text (the entity was not found).
 */
export function classifyRuleAnswer(
  status: number,
  serverMessage: string | undefined,
  errorCode: number | undefined,
): 'noReply' | 'badReply' | 'missing' | undefined {
  if (status === 408) return 'noReply';
  if (status === 500 && typeof serverMessage === 'string' && /request timeout/i.test(serverMessage)) return 'noReply';
  if (status === 406) return 'badReply';
  if (status === 404 && serverMessage === undefined && errorCode === undefined) return 'missing';
  if (status === 405) return 'missing';
  return undefined;
}

/** Who the message went as, for messages: "DEVICE 784f…", or "the connection's user". */
export function originatorText(originator: RuleOriginator): string {
  return originator.kind === 'user'
    ? "the connection's user"
    : `${originator.entity.entityType} ${originator.entity.id}`;
}

/** Which rule chain handles the message, for messages. */
function chainText(originator: RuleOriginator): string {
  if (originator.kind === 'user') return "the tenant's root rule chain";
  const t = originator.entity.entityType;
  return t === 'DEVICE' || t === 'ASSET'
    ? `the rule chain of the ${t === 'DEVICE' ? 'device' : 'asset'}'s profile (else the root rule chain)`
    : "the tenant's root rule chain";
}

/** No reply in time (408, or the server's 500 "Request timeout"): what is missing first. */
export function noReplyText(originator: RuleOriginator, timeout: number | undefined, status: number): string {
  const wait = timeout === undefined ? "the server's timeout (10 s unless changed)" : durationText(timeout);
  return (
    `Add a "rest call reply" node where ${chainText(originator)} handles "REST API request" messages, and keep ` +
    `the message's metadata (serviceId, requestUUID) on the way: nothing answered the message from ` +
    `${originatorText(originator)} within ${wait} (HTTP ${status})`
  );
}

export function badReplyText(originator: RuleOriginator): string {
  return (
    'Make the rule chain reply with JSON ("ok" in quotes, or {"result": "ok"}): the "rest call reply" node answered ' +
    `the message from ${originatorText(originator)} with data that is not JSON (HTTP 406)`
  );
}

export function tooOldText(version: string | null): string {
  const which = version ? `This ThingsBoard server (${version})` : 'This ThingsBoard server';
  return (
    `Use ThingsBoard ${RULE_ENGINE_SINCE} or newer for the rule engine node: ${which} has no rule engine API ` +
    `(POST /api/rule-engine/ came in Community Edition ${RULE_ENGINE_SINCE})`
  );
}

export function uncertainText(originator: RuleOriginator, detail: string): string {
  return (
    'Check what the rule chain did before sending it again: the connection was lost after the message from ' +
    `${originatorText(originator)} went to the rule engine, so it may or may not have been handled; it was not ` +
    `sent again (${detail})`
  );
}
