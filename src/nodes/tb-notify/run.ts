/**
 * The node side of tb-notify: its settings (checked at deploy), the work of each message (send, mark one read,
 * mark all read), the output message and the status texts.
 */
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import { TbError } from '../../errors';
import { actionFailureStatus, status } from '../../node-red/status';
import { BoundSettings, IgnoredWarnings, type Settings } from '../../node-red/value-sources';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import { notificationIdFromMessage, requestResult, type RequestResult } from '../../protocol/notifications';
import type { ReadSettings } from '../../settings/read';
import { messageContent, messageTargets, messageTemplate, prepareSendSettings, type SendSettings } from './logic';
import { TB_NOTIFY, type NotifyAction, type NotifySettings } from './settings';

/** The settings that may hold `{{msg.…}}` placeholders. */
const BOUND = ['subject', 'text'] as const;

/** What a message's work needs to run, once its inputs are read and checked (nothing has been sent yet). */
export type Work = (
  client: PlatformClient,
  call: CallOptions,
) => Promise<{ out: Record<string, unknown>; status: NodeStatus }>;

/** The node's settings, checked at deploy, and the work of each message. */
export class NotifyInputs {
  readonly action: NotifyAction;
  readonly problem: TbError | undefined;
  private readonly send: SendSettings | undefined;
  private readonly bound: BoundSettings;
  private readonly settings: NotifySettings;
  private readonly warnings: IgnoredWarnings;

  constructor(
    private readonly RED: NodeAPI,
    node: Node,
    read: ReadSettings<typeof TB_NOTIFY.settings>,
  ) {
    const s = read.values;
    this.settings = s;
    this.action = s.action;
    this.warnings = IgnoredWarnings.of(node);
    this.bound = new BoundSettings(RED, node, s as unknown as Settings, BOUND);
    let problem: TbError | undefined = read.problemOf.action ?? read.problemOf.content;
    let send: SendSettings | undefined;
    if (s.action === 'send') {
      problem ??= read.problemOf.statsWait ?? this.bound.problem;
      try {
        send = prepareSendSettings(s);
      } catch (err) {
        problem ??= err as TbError;
      }
    }
    this.send = send;
    this.problem = problem;
  }

  /** The work for one message: its inputs are read and checked now (a TbInputError before anything is sent). */
  async work(msg: NodeMessage): Promise<Work> {
    if (this.problem) throw this.problem;
    const m = msg as Record<string, unknown>;
    if (this.action === 'markRead') {
      const id = notificationIdFromMessage(m);
      return async (client, call) => {
        await client.notifications.markRead(id, call);
        const unread = await client.notifications.unreadCount(call);
        return {
          out: { id, status: 'READ', unreadCount: unread },
          status: unreadStatus(this.RED, unread, 'markedRead'),
        };
      };
    }
    if (this.action === 'markAllRead') {
      return async (client, call) => {
        await client.notifications.markAllRead(call);
        const unread = await client.notifications.unreadCount(call);
        return { out: { unreadCount: unread }, status: unreadStatus(this.RED, unread, 'allMarkedRead') };
      };
    }
    return this.sendWork(m);
  }

  private async sendWork(m: Record<string, unknown>): Promise<Work> {
    const send = this.send as SendSettings;
    const s = this.settings;
    this.warnings.check(m, 'targets', send.targets !== undefined);
    const targets = messageTargets(send, m);
    let template: { id: string } | ReturnType<typeof messageContent>;
    let templateRef: ReturnType<typeof messageTemplate> | undefined;
    if (send.content === 'template') {
      this.warnings.check(m, 'template', send.template !== undefined);
      templateRef = messageTemplate(send, m);
    } else {
      const r = await this.bound.resolve(s as unknown as Settings, m as NodeMessage);
      try {
        template = messageContent(send, { subject: r.query.subject, text: r.query.text }, m);
      } catch (err) {
        throw BoundSettings.explain(err, r);
      }
    }
    const waitMs = s.statsWait ?? 0;
    return async (client, call) => {
      const n = client.notifications;
      await n.checkMaySend(call);
      const ids = await n.resolve('target', targets, call);
      if (templateRef) template = { id: (await n.resolve('template', [templateRef], call))[0] };
      const sent = await n.send(ids, template, call);
      const info = await n.follow(sent, { ...call, waitMs });
      const result = requestResult(info);
      return { out: result as unknown as Record<string, unknown>, status: sentStatus(this.RED, result) };
    };
  }
}

/** The output: the incoming message with the result in msg.payload. */
export function writeResult(msg: NodeMessage, out: Record<string, unknown>): void {
  (msg as Record<string, unknown>).payload = out;
}

/** "sent: 8" (green), "sent: 7, 1 failed" (yellow), or "sent, no stats yet" (green ring) while PROCESSING. */
export function sentStatus(RED: NodeAPI, r: RequestResult): NodeStatus {
  if (r.sent === null || r.status !== 'SENT') return status(RED, 'green', 'ring', 'notifyPending');
  if (r.failed) return status(RED, 'yellow', 'dot', 'notifyPartly', { count: r.sent, failed: r.failed });
  return status(RED, 'green', 'dot', 'notifySent', { count: r.sent });
}

/** "3 unread" after marking read; what was done when the server cannot count (before 3.7). */
function unreadStatus(RED: NodeAPI, unread: number | null, done: 'markedRead' | 'allMarkedRead'): NodeStatus {
  return unread === null ? status(RED, 'green', 'dot', done) : status(RED, 'green', 'dot', 'unread', { count: unread });
}

/** Red with the reason: "not permitted" (red dot: a customer user's login), "not found", or the usual texts. */
export function notifyFailureStatus(RED: NodeAPI, err: unknown): NodeStatus {
  return actionFailureStatus(RED, err, 'dot');
}
