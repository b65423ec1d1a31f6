/**
 * The rule engine's REST API: a message pushed into the rule chains (as an entity, or as the connection's user) and
 * the answer of the "rest call reply" node that handles it. Every request goes through the Requester (auth, the retry
 * after 401 "token expired", the 429 policy, our error classes).
 *
 * **A message is never sent twice**: a rule chain may act on it (save, alarm, command). It goes out with
 * `delivery: 'atMostOnce'` (a connection of its own, resent only when the server certainly did not take it: a 429, a
 * connection refused before it went out); a connection lost after it went out, or no answer in time, is
 * `TB_RULE_UNCERTAIN`, never a retry. No reply from the rule chain (408) is `TB_RULE_NO_REPLY`, a reply that is not
 * JSON (406) `TB_RULE_BAD_REPLY`, a server without the API (before 3.8) `TB_SERVER_TOO_OLD`.
 * Nothing in here knows about Node-RED.
 */
import { TbApiError, TbError, TbNetworkError } from '../errors';
import {
  badReplyText,
  classifyRuleAnswer,
  httpWait,
  needsUserId,
  noReplyText,
  originatorText,
  ruleEnginePath,
  tooOldText,
  uncertainText,
  type RuleEngineRequest,
  type RuleOriginator,
} from '../protocol/rule-engine';
import { explained, statusOf } from './explain';
import type { PlatformLookups } from './lookups';
import type { CallOptions, Requester } from './requester';

export class RuleEngineClient {
  /** The connection's user id, looked up once (for a queue or a timeout with the user as originator). */
  private userId: Promise<string> | undefined;

  constructor(
    private readonly requester: Requester,
    private readonly lookups: PlatformLookups,
    /** The connection's own request timeout (ms), the floor of the HTTP wait. */
    private readonly requestTimeoutMs: number,
  ) {}

  /**
   * Pushes one message and gives the rule chain's reply (parsed JSON; null for an empty reply), at most once (see the
   * module comment).
   */
  async send(originator: RuleOriginator, req: RuleEngineRequest, opts?: CallOptions): Promise<unknown> {
    const userId = needsUserId(originator, req) ? await this.currentUserId(opts) : undefined;
    const path = ruleEnginePath(originator, req, userId);
    const timeoutMs = httpWait(req.timeout, this.requestTimeoutMs);
    let body: unknown;
    try {
      body = await this.requester.request('POST', path, req.body, { ...opts, delivery: 'atMostOnce', timeoutMs });
    } catch (err) {
      throw await this.about(err, originator, req);
    }
    return body === undefined ? null : body;
  }

  private currentUserId(opts?: CallOptions): Promise<string> {
    if (!this.userId) {
      const p = this.lookups.me(opts).then((u) => {
        const id = u.id?.id;
        if (typeof id !== 'string')
          throw new TbError('TB_BAD_RESPONSE', 'ThingsBoard answered /api/auth/user without an id');
        return id;
      });
      // A failed look-up is asked again next time.
      void p.catch(() => (this.userId = undefined));
      this.userId = p;
    }
    return this.userId;
  }

  /** The error of a failed send, in words: no reply, not JSON, too old a server, not found, not permitted, maybe. */
  private async about(err: unknown, originator: RuleOriginator, req: RuleEngineRequest): Promise<unknown> {
    const who = originatorText(originator);
    if (err instanceof TbApiError && err.constructor === TbApiError) {
      const kind = classifyRuleAnswer(err.status, err.serverMessage, err.errorCode);
      if (kind === 'noReply')
        return explained(err, noReplyText(originator, req.timeout, err.status), 'TB_RULE_NO_REPLY');
      if (kind === 'badReply') return explained(err, badReplyText(originator), 'TB_RULE_BAD_REPLY');
      if (kind === 'missing') {
        let version: string | null = null;
        try {
          version = await this.lookups.serverVersion();
        } catch {
          // The version only adds to the sentence.
        }
        return explained(err, tooOldText(version), 'TB_SERVER_TOO_OLD');
      }
      const status = statusOf(err);
      if (status === 404) return explained(err, `${who} was not found: the message was not sent to the rule engine`);
      if (status === 403)
        return explained(
          err,
          `ThingsBoard did not allow this connection's user to send a message to the rule engine as ${who} (it needs ` +
            "the right to change that entity; a customer user only its own customer's devices and assets)",
        );
      return err;
    }
    if (err instanceof TbNetworkError && err.code !== 'TB_CLOSED' && err.maybeProcessed)
      return new TbNetworkError('TB_RULE_UNCERTAIN', uncertainText(originator, err.message), true);
    return err;
  }
}
