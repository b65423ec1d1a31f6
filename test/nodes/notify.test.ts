/**
 * tb-notify in the real Node-RED runtime against the simulator's notification center over loopback: send to
 * targets picked by name with a template picked by name or a text written in the node (placeholders, msg.topic and
 * msg.payload), the stats once the server has them (a 200 is not a delivery), per-recipient failures, a customer
 * user told before anything is sent, the server's refusals, bad input (nothing sent), no resend after a 502, and
 * marking one or all read with the unread count of the web inbox.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbNotify from '../../src/nodes/tb-notify/index';
import {
  connectionNode,
  flow,
  flowsOn,
  helper,
  key,
  lastStatus,
  statuses,
  useRuntime,
  warningsOf,
  type Msg,
} from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbNotify];
const CUSTOMER_A = { username: 'customer@thingsboard.org', password: 'customer' };
type Rec = Record<string, unknown>;

function notify(id: string, props: Rec = {}): Rec {
  return {
    id,
    type: 'tb-notify',
    connection: 'c1',
    wires: [['out']],
    targets: 'Tenant administrators',
    subject: 'Alarm on {{msg.payload.device}}',
    text: '{{msg.payload.device}} is at {{msg.payload.temperature}} °C',
    ...props,
  };
}

describe('tb-notify (runtime + simulator)', function () {
  const sim = useRuntime(
    {},
    {
      // every test starts with the seeded inboxes (sending changes them)
      perTest: true,
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 },
      cleanup: (s) => s.notifications.hold(false),
    },
  );
  const { load, results } = flowsOn(sim, NODES);
  const ok = (nodeId: string, msg: Msg): Promise<Msg> => results.ok(nodeId, msg);
  const fails = async (nodeId: string, msg: Msg, code: string, re?: RegExp): Promise<Rec> =>
    (await results.fails(nodeId, msg, code, re)).error;
  const userId = (email: string) => sim.auth.users.find((u) => u.email === email)!.userId;
  const inbox = (email: string) => sim.notifications.inbox(userId(email));
  const sends = () => sim.countRequests('/api/notification/request', 'POST');

  describe('send', () => {
    it('a text written in the node, its placeholders filled in, to a target picked by name: the stats come out', async () => {
      await load([notify('n')]);
      const before = inbox('tech@thingsboard.org').length;
      const out = await ok('n', { payload: { device: 'Thermo A-101', temperature: 31 }, chatId: 7 });
      const p = out.payload as Rec;
      assert.equal(p.status, 'SENT');
      assert.equal(p.sent, 4, 'four tenant administrators on the web');
      assert.equal(p.failed, 0);
      assert.deepEqual(p.stats, { sent: { WEB: 4 }, errors: {}, totalErrors: 0, error: null });
      assert.equal(p.templateName, 'Node-RED');
      assert.deepEqual(p.deliveryMethods, ['WEB']);
      assert.equal(typeof p.id, 'string');
      assert.equal(out.chatId, 7, 'the rest of the message kept');
      const got = inbox('tech@thingsboard.org');
      assert.equal(got.length, before + 1);
      assert.equal(got[0].subject, 'Alarm on Thermo A-101');
      assert.equal(got[0].text, 'Thermo A-101 is at 31 °C');
      assert.equal(got[0].requestId, p.id);
      // the body on the wire: targets as bare UUIDs, a complete inline template
      const req = sim.notifications.requests.get(p.id as string)!;
      assert.deepEqual(req.targets, [sim.notifications.findTarget('Tenant administrators')!.id]);
      assert.equal(req.template!.name, 'Node-RED');
      assert.deepEqual(lastStatus('n'), { fill: 'green', shape: 'dot', text: key('notifySent') });
    });

    it('trap: the send answers PROCESSING; the node reads the request until it is SENT to give the stats', async () => {
      await load([notify('n')]);
      sim.notifications.hold();
      const done = ok('n', { payload: { device: 'A', temperature: 1 } });
      await waitFor(() => sim.countRequests(/^\/api\/notification\/request\/[0-9a-f-]+$/, 'GET') >= 1, 5000, 'a read');
      assert.equal(results.pending, 0, 'nothing out while the request is PROCESSING');
      sim.notifications.release();
      const p = (await done).payload as Rec;
      assert.equal(p.status, 'SENT');
      assert.equal(p.sent, 4);
      assert.ok(sim.countRequests(/^\/api\/notification\/request\/[0-9a-f-]+$/, 'GET') >= 2);
    });

    it('the wait over first: PROCESSING without stats, a green ring; a wait of 0 reads nothing', async () => {
      await load([notify('n', { statsWait: '150ms' }), notify('z', { statsWait: '0' })]);
      sim.notifications.hold();
      const p = (await ok('n', { payload: { device: 'A', temperature: 1 } })).payload as Rec;
      assert.equal(p.status, 'PROCESSING');
      assert.equal(p.stats, null);
      assert.equal(p.sent, null);
      assert.deepEqual(lastStatus('n'), { fill: 'green', shape: 'ring', text: key('notifyPending') });
      sim.resetRequests();
      const z = (await ok('z', { payload: { device: 'A', temperature: 1 } })).payload as Rec;
      assert.equal(z.status, 'PROCESSING');
      assert.equal(sim.countRequests(/^\/api\/notification\/request\/[0-9a-f-]+$/, 'GET'), 0);
    });

    it('a template picked by name, to two targets: each person once per method', async () => {
      await load([
        notify('n', { content: 'template', template: 'Critical alarm', targets: 'Night shift, Tenant administrators' }),
      ]);
      const p = (await ok('n', { payload: 'ignored' })).payload as Rec;
      assert.deepEqual((p.stats as Rec).sent, { WEB: 4, EMAIL: 4 });
      assert.equal(p.sent, 8);
      assert.equal(p.templateName, 'Critical alarm');
      assert.equal(inbox('tech@thingsboard.org')[0].text, 'Terry, a critical alarm needs your attention.');
      const req = sim.notifications.requests.get(p.id as string)!;
      assert.equal(req.templateId, sim.notifications.findTemplate('Critical alarm')!.id, 'templateId as an EntityId');
      assert.equal(req.template, null);
    });

    it('targets and template left to the message: msg.targets (names or ids) and msg.template', async () => {
      await load([notify('n', { targets: '', content: 'template', template: '' })]);
      const night = sim.notifications.findTarget('Night shift')!.id;
      const p = (await ok('n', { targets: [night, 'customer a users'], template: 'Maintenance window' }))
        .payload as Rec;
      assert.deepEqual((p.stats as Rec).sent, { WEB: 2 }, 'Terry and Carol (a name matched whatever its case)');
      assert.equal(inbox('customer@thingsboard.org')[0].subject, 'Maintenance tonight');
    });

    it('subject and text left to the message: msg.topic and msg.payload; a fixed target ignores msg.targets, said once', async () => {
      await load([notify('n', { subject: '', text: '', targets: 'Night shift' })]);
      const p = (await ok('n', { topic: 'Pump 3', payload: 'Pump 3 stopped', targets: 'All users' })).payload as Rec;
      assert.equal(p.sent, 1);
      assert.equal(inbox('tech@thingsboard.org')[0].subject, 'Pump 3');
      assert.equal(inbox('tech@thingsboard.org')[0].text, 'Pump 3 stopped');
      await ok('n', { topic: 'Pump 3', payload: 'again', targets: 'All users' });
      assert.equal(warningsOf('n').filter((w) => w.startsWith('msg.targets is ignored')).length, 1);
    });

    it('e-mail and SMS ticked: per-person failures in the stats, a yellow status; the send is not an error', async () => {
      sim.notifications.configure({ sms: true });
      await load([notify('n', { targets: 'Customer A users', methods: 'WEB,EMAIL,SMS' })]);
      const p = (await ok('n', { payload: { device: 'A', temperature: 1 } })).payload as Rec;
      assert.equal(p.sent, 2);
      assert.equal(p.failed, 1);
      assert.deepEqual((p.stats as Rec).errors, { SMS: { 'Carol Customer': 'User does not have phone number' } });
      assert.deepEqual(lastStatus('n'), { fill: 'yellow', shape: 'dot', text: key('notifyPartly') });
    });

    it("trap: a method with no target that carries it is the server's hard 400, with its message", async () => {
      await load([notify('n', { targets: 'Ops channel', methods: 'EMAIL' })]);
      const err = await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_BAD_REQUEST',
        /ThingsBoard refused the notification .*Recipients for email delivery method not chosen/,
      );
      assert.match(err.message as string, /^TbApiError: /);
      assert.deepEqual(lastStatus('n'), { fill: 'red', shape: 'ring', text: key('httpError') });
    });

    it('a customer user is told at the first message, before anything is sent (not a bare 403)', async () => {
      await load([notify('n')], CUSTOMER_A);
      await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_PERMISSION',
        /^TbError: Use a tenant administrator's login \(or API key\) for this node: ThingsBoard lets only tenant administrators send notifications, and this connection's user is a customer user$/,
      );
      assert.equal(sends(), 0, 'nothing sent');
      assert.deepEqual(lastStatus('n'), { fill: 'red', shape: 'dot', text: key('notPermitted') });
    });

    it('a target name that does not exist: TB_NOT_FOUND naming it, nothing sent', async () => {
      await load([notify('n', { targets: 'Night shift, Day shift' })]);
      await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_NOT_FOUND',
        /Pick the target again: ThingsBoard has no notification target named "Day shift"/,
      );
      assert.equal(sends(), 0);
      assert.deepEqual(lastStatus('n'), { fill: 'red', shape: 'ring', text: key('notFound') });
    });

    it('bad input is refused before anything is sent, naming the field; the node keeps working', async () => {
      await load([notify('n', { subject: '', text: '' })]);
      await fails(
        'n',
        { topic: 'x', payload: '' },
        'TB_INVALID_INPUT',
        /Write the notification's text in the node, or send it in msg.payload \(msg.payload is empty\)/,
      );
      await fails(
        'n',
        { payload: 'text' },
        'TB_INVALID_INPUT',
        /Write a subject in the node, or send it in msg.topic: WEB notifications need one \(msg.topic is empty\)/,
      );
      await fails(
        'n',
        { topic: 'x', payload: { an: 'object' } },
        'TB_INVALID_INPUT',
        /msg.payload must be the notification's text as text/,
      );
      await fails(
        'n',
        { topic: 'x'.repeat(151), payload: 'y' },
        'TB_INVALID_INPUT',
        /Shorten msg.topic to 150 characters for WEB notifications \(it has 151\)/,
      );
      assert.deepEqual(lastStatus('n'), { fill: 'red', shape: 'ring', text: key('invalidInput') });
      assert.equal(sim.countRequests('/api/'), 0, 'not even a login');
      assert.equal(((await ok('n', { topic: 's', payload: 't' })).payload as Rec).status, 'SENT');
    });

    it('a placeholder whose value is missing refuses the message, naming it', async () => {
      await load([notify('n')]);
      await fails('n', { payload: { temperature: 1 } }, 'TB_INVALID_INPUT', /msg.payload.device/);
      assert.equal(sends(), 0);
    });

    it('no targets anywhere, no template anywhere: the fix in words', async () => {
      await load([notify('n', { targets: '' }), notify('t', { content: 'template', template: '' })]);
      await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_INVALID_INPUT',
        /Pick the targets in the node, or send their names in msg.targets/,
      );
      await fails('t', {}, 'TB_INVALID_INPUT', /Pick a template in the node, or send its name in msg.template/);
    });

    it('a setting that is wrong is a config error at deploy (red dot) and refuses every message', async () => {
      await load([notify('n', { methods: 'WEB,FAX' })]);
      assert.equal(statuses('n')[0]?.fill, 'red');
      assert.equal(statuses('n')[0]?.shape, 'dot');
      await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_CONFIG',
        /methods must list delivery methods among WEB, EMAIL/,
      );
    });

    it('never resent: a 502 on the send is an error at once, sent once', async () => {
      await load([notify('n')]);
      sim.faults.add({ path: '/api/notification/request', method: 'POST', status: 502, times: 5 });
      await fails('n', { payload: { device: 'A', temperature: 1 } }, 'TB_UNAVAILABLE');
      assert.equal(sends(), 1);
    });

    it('before ThingsBoard 3.5: there is no notification center, said so', async () => {
      sim.setVersion('3.4.4');
      await load([notify('n', { targets: 'Night shift' })]);
      await fails(
        'n',
        { payload: { device: 'A', temperature: 1 } },
        'TB_NOT_FOUND',
        /no notification center \(it came in ThingsBoard 3.5\)/,
      );
    });
  });

  describe('mark read', () => {
    it('marks the notification of msg.payload read (as the subscribe node sends it) and outputs the unread count', async () => {
      await load([notify('r', { action: 'markRead' })]);
      const [first] = inbox('tenant@thingsboard.org').filter((n) => n.status === 'SENT');
      const out = await ok('r', { payload: { id: first.id, subject: first.subject, text: first.text } });
      assert.deepEqual(out.payload, { id: first.id, status: 'READ', unreadCount: 1 });
      assert.equal(sim.notifications.notifications.get(first.id)!.status, 'READ');
      assert.deepEqual(lastStatus('r'), { fill: 'green', shape: 'dot', text: key('unread') });
    });

    it('trap: the unread count is of the web inbox (deliveryMethod=WEB; the server default counts the mobile app)', async () => {
      await load([notify('r', { action: 'markRead' })]);
      const [first] = inbox('tenant@thingsboard.org').filter((n) => n.status === 'SENT');
      const out = await ok('r', { payload: first.id });
      assert.equal((out.payload as Rec).unreadCount, 1, 'the second unread web notification');
      const e = sim.requests.entries(50).find((x) => x.path === '/api/notifications/unread/count');
      assert.ok(e, 'the count was asked');
      assert.match(e.query, /deliveryMethod=WEB/);
    });

    it('trap: an unknown notification id is no error (the server answers 200): marked, nothing changed', async () => {
      await load([notify('r', { action: 'markRead' })]);
      const out = await ok('r', { topic: '00000000-0000-4000-8000-000000000009', payload: '' });
      assert.equal((out.payload as Rec).unreadCount, 2);
    });

    it('something that is not a notification is refused before anything is sent', async () => {
      await load([notify('r', { action: 'markRead' })]);
      await fails(
        'r',
        { payload: { id: { entityType: 'ALARM', id: '00000000-0000-4000-8000-000000000009' } } },
        'TB_INVALID_INPUT',
        /must be a notification id/,
      );
      await fails('r', { payload: '' }, 'TB_INVALID_INPUT', /Send the notification, or its id, in msg.payload/);
      assert.equal(sim.countRequests('/api/notification/'), 0);
    });

    it('marks all read; a customer user may mark its own', async () => {
      await load([notify('a', { action: 'markAllRead' })]);
      const out = await ok('a', {});
      assert.deepEqual(out.payload, { unreadCount: 0 });
      assert.equal(inbox('tenant@thingsboard.org').filter((n) => n.status === 'SENT').length, 0);
      await helper.unload();
      sim.notifications.addNotification({ recipientId: userId('customer@thingsboard.org'), subject: 's', text: 't' });
      await load([notify('a', { action: 'markAllRead' })], CUSTOMER_A);
      assert.deepEqual((await ok('a', {})).payload, { unreadCount: 0 });
      assert.equal(inbox('customer@thingsboard.org')[0].status, 'READ');
    });

    it('before 3.7 there is no count: "marked read"', async () => {
      sim.setVersion('3.6.4');
      await load([notify('r', { action: 'markAllRead' })]);
      assert.deepEqual((await ok('r', {})).payload, { unreadCount: null });
      assert.deepEqual(lastStatus('r'), { fill: 'green', shape: 'dot', text: key('allMarkedRead') });
    });
  });

  it('a connection-less node: red dot at deploy, every message refused', async () => {
    await helper.load(NODES, flow(connectionNode(sim.url), { ...notify('n'), connection: '' }), {
      c1: { username: 'tenant@thingsboard.org', password: 'tenant' },
    });
    results.listen();
    assert.equal(statuses('n')[0]?.text, key('noConnection'));
    await fails('n', { payload: { device: 'A', temperature: 1 } }, 'TB_CONFIG');
  });
});
