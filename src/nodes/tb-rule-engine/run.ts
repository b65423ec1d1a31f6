/**
 * tb-rule-engine's per-message work: the message's data (msg.payload, or fixed JSON: the Body setting, checked at
 * deploy), the request of each message (checked before anything is sent), one send as the connection's user or as one
 * entity, and what it puts on the message.
 */
import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError } from '../../errors';
import type { Props } from '../../families/device-action';
import { status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import type { RuleEngineRequest, RuleOriginator } from '../../protocol/rule-engine';
import type { EntityId } from '../../protocol/types';
import type { OptionReader } from '../../settings/options';
import { bodyOf, prepareBodySetting, prepareRuleRequest, type BodySetting } from './logic';
import type { RuleEngineSettings } from './settings';

/** One message's request: its data as JSON text, and the queue and wait when set. */
export type RuleRequest = RuleEngineRequest;

/** The Body setting, and the request of each message. */
export class RuleInputs {
  /** The Body setting, or undefined when it is wrong (then `bodyProblem` says why). */
  private readonly body: BodySetting | undefined;
  readonly bodyProblem: TbConfigError | undefined;
  private warnedEntity = false;

  constructor(
    private readonly node: Node,
    private readonly config: Pick<RuleEngineSettings, 'bodyFrom' | 'body' | 'originator'>,
  ) {
    try {
      this.body = prepareBodySetting(config.bodyFrom, config.body);
    } catch (err) {
      // A setting of the node: shown at deploy, and every message is refused with it (nothing sent).
      this.bodyProblem = new TbConfigError((err as Error).message);
    }
  }

  /** The node acts as the connection's user (no entity is read). */
  get asUser(): boolean {
    return this.config.originator !== 'entity';
  }

  request(msg: NodeMessageInFlow, options: OptionReader): RuleRequest {
    if (this.bodyProblem) throw this.bodyProblem;
    const body = bodyOf(this.body as BodySetting, msg.payload);
    if (this.asUser) this.warnEntity(msg);
    return prepareRuleRequest(body.text, options);
  }

  /**
   * A message that names an entity while the node sends as the connection's user: the entity is not the originator,
   * which may surprise. Said once per deploy; the message is still sent.
   */
  private warnEntity(msg: NodeMessageInFlow): void {
    const entity = (msg as { entity?: unknown }).entity;
    if (this.warnedEntity || entity === undefined || entity === null) return;
    this.warnedEntity = true;
    this.node.warn(
      'msg.entity is ignored: Originator is "the connection\'s user". To send as the entity of the message, set ' +
        'Originator to "an entity"; said once',
    );
  }
}

/** What msg.ruleEngine says: who sent it, and the queue and wait when set. */
function ruleFields(originator: RuleOriginator, req: RuleRequest): Record<string, unknown> {
  return {
    originator: originator.kind === 'user' ? 'user' : originator.entity,
    queue: req.queue ?? null,
    timeout: req.timeout ?? null,
  };
}

/** One send, as the connection's user (`entity` undefined) or as an entity: the reply in msg.payload. */
export async function sendOne(
  client: PlatformClient,
  req: RuleRequest,
  entity: EntityId | undefined,
  call: CallOptions,
): Promise<Props> {
  const originator: RuleOriginator = entity ? { kind: 'entity', entity } : { kind: 'user' };
  const reply = await client.ruleEngine.send(originator, req, call);
  return { payload: reply, ruleEngine: ruleFields(originator, req) };
}

/** Green: the rule chain answered. */
export function ruleStatus(RED: NodeAPI): NodeStatus {
  return status(RED, 'green', 'dot', 'rpcReplied');
}
