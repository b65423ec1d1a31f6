/**
 * The notifications subscription kind on its own: the NOTIFICATIONS command (limit at least 1), the first list,
 * partial and count-only updates, stale sequence numbers, a resubscription's own sequence, nothing sent twice, the
 * raw and flat formats. And the pure parts of tb-notify's wire: the send body, the inline template, the limits.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { NotificationsSubscription, type LiveEvent, type LiveSink } from '../../src/live/subscriptions';
import {
  inlineTemplate,
  notificationIdFromMessage,
  prepareMethods,
  prepareTargetRefs,
  sendBody,
} from '../../src/protocol/notifications';

class Sink implements LiveSink {
  events: LiveEvent[] = [];
  event(ev: LiveEvent): void {
    this.events.push(ev);
  }
  state(): void {}
  error(): void {}
  take(): LiveEvent[] {
    const e = this.events;
    this.events = [];
    return e;
  }
}

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const note = (n: number, createdTime = n * 1000) => ({
  id: { entityType: 'NOTIFICATION', id: ID(n) },
  createdTime,
  type: 'GENERAL',
  subject: `s${n}`,
  text: `t${n}`,
  status: 'SENT',
  deliveryMethod: 'WEB',
  requestId: null,
});
const full = (seq: number, total: number, ...ns: number[]) => ({
  cmdId: 1,
  notifications: ns.map((n) => note(n)),
  totalUnreadCount: total,
  sequenceNumber: seq,
});
const part = (seq: number, total: number, n: number) => ({
  cmdId: 1,
  update: note(n),
  totalUnreadCount: total,
  sequenceNumber: seq,
});
const count = (seq: number, total: number) => ({ cmdId: 1, totalUnreadCount: total, sequenceNumber: seq });

describe('NotificationsSubscription', () => {
  it('the command: NOTIFICATIONS with a limit of at least 1', () => {
    assert.deepEqual(new NotificationsSubscription(new Sink(), 10, 'flat').command(), {
      type: 'NOTIFICATIONS',
      limit: 10,
    });
    assert.deepEqual(new NotificationsSubscription(new Sink(), 0, 'flat').command(), {
      type: 'NOTIFICATIONS',
      limit: 1,
    });
    assert.equal(new NotificationsSubscription(new Sink(), 5, 'flat').unsubscribeType, 'NOTIFICATIONS_UNSUBSCRIBE');
  });

  it('the first list, then new ones, then the count alone; flat items', () => {
    const sink = new Sink();
    const s = new NotificationsSubscription(sink, 10, 'flat');
    s.onMessage(count(1, 3)); // a count before the list is not the start
    assert.deepEqual(sink.take(), []);
    s.onMessage(full(2, 2, 2, 1));
    const [inbox] = sink.take() as Array<Extract<LiveEvent, { event: 'inbox' }>>;
    assert.equal(inbox.event, 'inbox');
    assert.equal(inbox.unreadCount, 2);
    assert.deepEqual(inbox.items[0], {
      id: ID(2),
      subject: 's2',
      text: 't2',
      type: 'GENERAL',
      status: 'SENT',
      createdTime: 2000,
      deliveryMethod: 'WEB',
      requestId: null,
      info: null,
    });
    s.onMessage(part(3, 3, 3));
    assert.deepEqual(sink.take(), [
      {
        event: 'notification',
        id: ID(3),
        item: { ...(inbox.items[0] as object), id: ID(3), subject: 's3', text: 't3', createdTime: 3000 },
        unreadCount: 3,
      },
    ]);
    s.onMessage(count(4, 2));
    assert.deepEqual(sink.take(), [{ event: 'count', count: 2 }]);
    s.onMessage(count(5, 2));
    assert.deepEqual(sink.take(), [], 'the same count again: nothing');
    assert.equal(s.unreadCount, 2);
  });

  it('a stale sequence number is ignored; a resubscription counts from 1 again', () => {
    const sink = new Sink();
    const s = new NotificationsSubscription(sink, 10, 'raw');
    s.onMessage(full(1, 1, 1));
    s.onMessage(count(3, 0));
    s.onMessage(count(2, 5)); // older than the one before
    assert.deepEqual(
      sink.take().map((e) => e.event),
      ['inbox', 'count'],
    );
    assert.equal(s.unreadCount, 0);
    s.onResubscribe();
    s.onMessage(full(1, 1, 4)); // the new subscription's first list: sequence 1 again
    assert.deepEqual(
      sink.take(),
      [{ event: 'notification', id: ID(4), item: note(4), unreadCount: 1 }],
      'raw: as sent',
    );
  });

  it('nothing is sent twice: a partial update of one already sent, a list that repeats them', () => {
    const sink = new Sink();
    const s = new NotificationsSubscription(sink, 10, 'flat');
    s.onMessage(full(1, 2, 2, 1));
    s.onMessage(part(2, 3, 3));
    s.onMessage(part(3, 3, 3)); // the same one changed (not read)
    s.onResubscribe();
    s.onMessage(full(1, 5, 5, 4, 3, 2, 1));
    assert.deepEqual(
      sink.take().map((e) => (e.event === 'notification' ? e.id : e.event)),
      ['inbox', ID(3), ID(4), ID(5)],
      'the two new ones, oldest first',
    );
  });
});

describe('notifications on the wire (pure)', () => {
  it('targets as bare UUID strings, a saved template as an EntityId object', () => {
    assert.deepEqual(sendBody([ID(1)], { id: ID(2) }), {
      targets: [ID(1)],
      templateId: { entityType: 'NOTIFICATION_TEMPLATE', id: ID(2) },
    });
  });

  it('an inline template is complete: a name, GENERAL, and each entry its method, enabled, subject where it has one', () => {
    assert.deepEqual(inlineTemplate('Hi', 'Hello', ['WEB', 'SMS']), {
      name: 'Node-RED',
      notificationType: 'GENERAL',
      configuration: {
        deliveryMethodsTemplates: {
          WEB: { method: 'WEB', enabled: true, body: 'Hello', subject: 'Hi' },
          SMS: { method: 'SMS', enabled: true, body: 'Hello' },
        },
      },
    });
  });

  it("the server's limits are checked first, naming the field", () => {
    assert.throws(() => inlineTemplate('Hi', 'x'.repeat(321), ['SMS']), /Shorten text to 320 characters for SMS/);
    assert.throws(
      () => inlineTemplate('', 'x', ['EMAIL']),
      /Write a subject in the node.*EMAIL notifications need one/,
    );
    assert.doesNotThrow(() => inlineTemplate('', 'x', ['SMS', 'SLACK']), 'SMS and Slack have no subject');
  });

  it('targets by name or id, methods by name; notification ids from the message', () => {
    assert.deepEqual(prepareTargetRefs(`Night shift, ${ID(1)}`, 'targets'), [{ name: 'Night shift' }, { id: ID(1) }]);
    assert.deepEqual(prepareTargetRefs([{ id: { entityType: 'NOTIFICATION_TARGET', id: ID(2) } }], 'msg.targets'), [
      { id: ID(2) },
    ]);
    assert.throws(() => prepareTargetRefs(' , ', 'targets'), TbInputError);
    assert.deepEqual(prepareMethods('web, EMAIL,web', 'methods'), ['WEB', 'EMAIL']);
    assert.throws(() => prepareMethods('', 'methods'), /at least one delivery method/);
    assert.equal(notificationIdFromMessage({ payload: { id: ID(3) } }), ID(3));
    assert.equal(notificationIdFromMessage({ payload: 'text', topic: ID(4) }), ID(4));
    assert.equal(notificationIdFromMessage({ payload: { id: { entityType: 'NOTIFICATION', id: ID(5) } } }), ID(5));
  });
});
