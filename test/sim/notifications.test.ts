/**
 * The simulator's notification center: targets, templates, sending (checks, recipients, stats, PROCESSING then SENT),
 * the inbox endpoints with their defaults, and the WebSocket commands for the current user's notifications. One
 * test for each trap of the server's notification API.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { BASE_TIME, HOUR } from '../../sim/index';
import { login, type Client } from '../../sim/testkit';
import type { Msg } from '../../sim/ws-client';
import { useSimSetup, useWsSetup } from '../support/simulator';

type Rec = Record<string, unknown>;

/** A complete inline template: WEB only unless `methods` says otherwise. */
function inline(methods: Rec = { WEB: { method: 'WEB', subject: 'Hi', body: 'Hello ${recipientFirstName}' } }): Rec {
  return { name: 'Inline', notificationType: 'GENERAL', configuration: { deliveryMethodsTemplates: methods } };
}

describe('simulator: notification center (REST)', function () {
  const c = useSimSetup({}, { perTest: true });
  const center = () => c.sim.notifications;
  const target = (name: string) => center().findTarget(name)!.id;
  const template = (name: string) => center().findTemplate(name)!.id;
  const user = (email: string) => c.sim.auth.users.find((u) => u.email === email)!;
  /** The request as GET /api/notification/request/{id} answers it, once the delivery ran. */
  async function sent(id: string): Promise<Rec> {
    if (c.sim.notifications.requests.get(id)?.status === 'PROCESSING') await once(c.sim.notifications, 'processed');
    const r = await c.tenant.request('GET', `/api/notification/request/${id}`);
    assert.equal(r.status, 200, r.text);
    return r.body as Rec;
  }

  describe('look-ups', () => {
    it('pages of targets and templates with textSearch (contains, any case), sorted by name on request', async () => {
      const t = await c.tenant.request('GET', '/api/notification/targets?pageSize=10&page=0&textSearch=USERS');
      assert.equal(t.status, 200, t.text);
      assert.deepEqual(
        t.body.data.map((x: Rec) => x.name),
        ['All users', 'Customer A users'],
      );
      assert.equal(t.body.data[0].id.entityType, 'NOTIFICATION_TARGET');
      assert.equal(t.body.data[0].configuration.type, 'PLATFORM_USERS');
      const sorted = await c.tenant.request(
        'GET',
        '/api/notification/targets?pageSize=2&page=0&sortProperty=name&sortOrder=ASC',
      );
      assert.deepEqual(
        sorted.body.data.map((x: Rec) => x.name),
        ['All users', 'Customer A users'],
      );
      assert.equal(sorted.body.totalElements, 5);
      assert.equal(sorted.body.hasNext, true);
      const tpl = await c.tenant.request('GET', '/api/notification/templates?pageSize=10&page=0&textSearch=crit');
      assert.deepEqual(
        tpl.body.data.map((x: Rec) => x.name),
        ['Critical alarm'],
      );
      assert.equal(tpl.body.data[0].configuration.deliveryMethodsTemplates.WEB.method, 'WEB');
    });

    it('targets by ids: ?ids= on every version, /targets/list only from 4.4 (an unknown path before)', async () => {
      const ids = `${target('Night shift')},${target('Ops channel')}`;
      const r = await c.tenant.request('GET', `/api/notification/targets?ids=${ids}`);
      assert.deepEqual(
        r.body.map((x: Rec) => x.name),
        ['Night shift', 'Ops channel'],
      );
      assert.equal((await c.tenant.request('GET', `/api/notification/targets/list?ids=${ids}`)).status, 404);
      c.sim.setVersion('4.4.0');
      assert.equal((await c.tenant.request('GET', `/api/notification/targets/list?ids=${ids}`)).body.length, 2);
    });

    it('delivery methods: those configured now, in the enum order; a customer user may ask', async () => {
      const r = await c.customer.request('GET', '/api/notification/deliveryMethods');
      assert.deepEqual(r.body, ['WEB', 'EMAIL', 'MICROSOFT_TEAMS']);
      center().configure({ mail: false, slack: true, sms: true });
      assert.deepEqual((await c.tenant.request('GET', '/api/notification/deliveryMethods')).body, [
        'WEB',
        'SMS',
        'SLACK',
        'MICROSOFT_TEAMS',
      ]);
    });

    it('targets and templates are for administrators: a customer user gets 403/20', async () => {
      const r = await c.customer.request('GET', '/api/notification/targets?pageSize=10&page=0');
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, 20);
    });

    it('before 3.5 the notification center is an unknown path (Spring 404)', async () => {
      c.sim.setVersion('3.4.4');
      const r = await c.tenant.request('GET', '/api/notification/targets?pageSize=10&page=0');
      assert.equal(r.status, 404);
      assert.equal(r.body.error, 'Not Found');
    });
  });

  describe('sending', () => {
    it('answers the request PROCESSING; the delivery runs after, then GET shows SENT and the stats (a 200 is not a delivery)', async () => {
      center().hold();
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Tenant administrators')],
        templateId: { entityType: 'NOTIFICATION_TEMPLATE', id: template('Critical alarm') },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'PROCESSING');
      assert.equal(r.body.stats, null);
      assert.equal(r.body.id.entityType, 'NOTIFICATION_REQUEST');
      assert.deepEqual(r.body.originatorEntityId, { entityType: 'USER', id: user('tenant@thingsboard.org').userId });
      const before = await c.tenant.request('GET', `/api/notification/request/${r.body.id.id}`);
      assert.equal(before.body.status, 'PROCESSING', 'held: still processing');
      assert.equal(center().release(), 1);
      const info = await sent(r.body.id.id);
      assert.equal(info.status, 'SENT');
      assert.equal(info.templateName, 'Critical alarm');
      assert.deepEqual(info.deliveryMethods, ['WEB', 'EMAIL']);
      // four tenant administrators (tenant, tech, mfa, disabled): one web notification and one e-mail each
      assert.deepEqual(info.stats, { sent: { WEB: 4, EMAIL: 4 }, errors: {}, totalErrors: 0, error: null });
      const web = center().inbox(user('tech@thingsboard.org').userId);
      assert.equal(web[0].subject, 'Critical alarm');
      assert.equal(web[0].text, 'Terry, a critical alarm needs your attention.', '${recipientFirstName} filled in');
      assert.equal(web[0].requestId, r.body.id.id);
      const mail = center().outbox.filter((m) => m.requestId === r.body.id.id);
      assert.equal(mail.length, 4);
      assert.equal(mail[1].to, 'tech@thingsboard.org');
      assert.equal(mail[1].body, '<p>Terry Tech, a critical alarm needs your attention.</p>');
    });

    it('an inline template with SMS: per-recipient failures are counted in the stats, the request is still SENT', async () => {
      center().configure({ sms: true });
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Customer A users')],
        template: inline({
          WEB: { method: 'WEB', subject: 'Hi', body: 'Hello' },
          SMS: { method: 'SMS', body: 'Hello' },
        }),
      });
      assert.equal(r.status, 200, r.text);
      const info = await sent(r.body.id.id);
      assert.deepEqual(info.stats, {
        sent: { WEB: 1 },
        errors: { SMS: { 'Carol Customer': 'User does not have phone number' } },
        totalErrors: 1,
        error: null,
      });
      assert.equal(info.templateName, 'Inline');
    });

    it('a recipient of two targets gets one notification per method', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift'), target('Tenant administrators')],
        template: inline(),
      });
      const info = await sent(r.body.id.id);
      assert.deepEqual((info.stats as Rec).sent, { WEB: 4 });
    });

    it('a Teams target: the channel is the recipient', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Ops channel')],
        template: inline({ MICROSOFT_TEAMS: { method: 'MICROSOFT_TEAMS', subject: 'Ops', body: 'Pump 3 is down' } }),
      });
      const info = await sent(r.body.id.id);
      assert.deepEqual((info.stats as Rec).sent, { MICROSOFT_TEAMS: 1 });
      assert.deepEqual(center().outbox.at(-1), {
        requestId: r.body.id.id,
        method: 'MICROSOFT_TEAMS',
        to: 'Ops',
        subject: 'Ops',
        body: 'Pump 3 is down',
      });
    });

    it('trap: targets are bare UUID strings; an EntityId object there is a JSON parse error (500/2)', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [{ entityType: 'NOTIFICATION_TARGET', id: target('Night shift') }],
        template: inline(),
      });
      assert.equal(r.status, 500);
      assert.equal(r.body.errorCode, 2);
      assert.match(r.body.message, /^JSON parse error: Cannot deserialize value of type `java.util.UUID`/);
    });

    it('trap: templateId is an EntityId object, and a found template wins over an inline one', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        templateId: { entityType: 'NOTIFICATION_TEMPLATE', id: template('Maintenance window') },
        template: inline(),
      });
      const info = await sent(r.body.id.id);
      assert.equal(info.templateName, 'Maintenance window');
      assert.equal(center().inbox(user('tech@thingsboard.org').userId)[0].subject, 'Maintenance tonight');
    });

    it('an unknown templateId and no inline template: 400 "Template is missing"', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        templateId: { entityType: 'NOTIFICATION_TEMPLATE', id: '00000000-0000-4000-8000-000000000001' },
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, 'Template is missing');
      assert.equal(r.body.errorCode, 31);
    });

    it('trap: an inline template must be complete: name and notificationType (400 Validation error)', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: { configuration: { deliveryMethodsTemplates: { WEB: { method: 'WEB', subject: 'a', body: 'b' } } } },
      });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.message,
        'Validation error: template.name must not be empty, template.notificationType must not be null',
      );
    });

    it('trap: an inline template entry without "method" is a Jackson type-id error', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline({ WEB: { subject: 'a', body: 'b' } }),
      });
      assert.equal(r.status, 500);
      assert.match(r.body.message, /missing type id property 'method'/);
    });

    it('the WEB entry needs a subject; empty targets are refused in the same validation message', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [],
        template: inline({ WEB: { method: 'WEB', body: 'b' } }),
      });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.message,
        'Validation error: targets must not be empty, ' +
          'template.configuration.deliveryMethodsTemplates[WEB].subject must not be empty',
      );
    });

    it('trap: an enabled method with no target of a supporting type is a hard 400', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Ops channel')],
        template: inline({ EMAIL: { method: 'EMAIL', subject: 'a', body: 'b' } }),
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, 'Recipients for email delivery method not chosen');
      assert.equal(center().requests.size, 0, 'nothing saved');
    });

    it('a method whose channel is not configured: its own message', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline({ SLACK: { method: 'SLACK', body: 'b' } }),
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, 'Slack API token is not configured');
    });

    it('every method disabled: "No delivery methods to send notification with"', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline({ WEB: { method: 'WEB', enabled: false, subject: 'a', body: 'b' } }),
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, 'No delivery methods to send notification with');
    });

    it('an unknown target: 404/32 naming it; an id in the body: 400', async () => {
      const missing = '00000000-0000-4000-8000-000000000002';
      const r = await c.tenant.post('/api/notification/request', { targets: [missing], template: inline() });
      assert.equal(r.status, 404);
      assert.equal(r.body.message, `Notification target with id [${missing}] is not found`);
      const upd = await c.tenant.post('/api/notification/request', {
        id: { entityType: 'NOTIFICATION_REQUEST', id: missing },
        targets: [target('Night shift')],
        template: inline(),
      });
      assert.equal(upd.body.message, 'Notification request cannot be updated. You may only cancel/delete it');
    });

    it('a customer user may not send: 403/20, nothing saved', async () => {
      const r = await c.customer.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline(),
      });
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, 20);
      assert.equal(r.body.message, "You don't have permission to perform this operation!");
      assert.equal(center().requests.size, 0);
    });

    it('a delay makes the request SCHEDULED (no stats); more than a week is refused', async () => {
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline(),
        additionalConfig: { sendingDelayInSec: 3600 },
      });
      assert.equal(r.body.status, 'SCHEDULED');
      const long = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline(),
        additionalConfig: { sendingDelayInSec: 604801 },
      });
      assert.equal(
        long.body.message,
        'Validation error: additionalConfig.sendingDelayInSec cannot be longer than 1 week',
      );
    });

    it('creates a target and a template; a tenant administrator may not target the system administrators', async () => {
      const t = await c.tenant.post('/api/notification/target', {
        name: 'Customer B users',
        configuration: {
          type: 'PLATFORM_USERS',
          usersFilter: { type: 'CUSTOMER_USERS', customerId: c.sim.data.mustFindByName('CUSTOMER', 'Customer B').id },
        },
      });
      assert.equal(t.status, 200, t.text);
      const tpl = await c.tenant.post('/api/notification/template', inline());
      assert.equal(tpl.status, 200, tpl.text);
      const r = await c.tenant.post('/api/notification/request', {
        targets: [t.body.id.id],
        templateId: tpl.body.id,
      });
      const info = await sent(r.body.id.id);
      assert.deepEqual((info.stats as Rec).sent, { WEB: 1 });
      assert.equal(center().inbox(user('customerb@thingsboard.org').userId)[0].text, 'Hello Bob');
      const sys = await c.tenant.post('/api/notification/target', {
        name: 'Sysadmins',
        configuration: { type: 'PLATFORM_USERS', usersFilter: { type: 'SYSTEM_ADMINISTRATORS' } },
      });
      assert.equal(sys.status, 403);
    });
  });

  describe('control API', () => {
    it('/__sim/notifications: an inbox, a notification put in it, hold and release, the channels', async () => {
      const inbox = await c.anon.request('GET', '/__sim/notifications?user=tenant@thingsboard.org');
      assert.equal(inbox.status, 200);
      assert.deepEqual(
        inbox.body.map((n: Rec) => n.subject),
        ['Maintenance due', 'Firmware update available', 'Welcome'],
      );
      const added = await c.anon.post('/__sim/notifications', {
        recipient: 'tech@thingsboard.org',
        subject: 'Hi',
        text: 'there',
      });
      assert.equal(added.status, 200, added.text);
      assert.equal(center().inbox(user('tech@thingsboard.org').userId)[0].id, added.body.id.id);
      assert.equal((await c.anon.post('/__sim/notifications', { recipient: 'nobody', text: 'x' })).status, 400);
      assert.deepEqual((await c.anon.post('/__sim/notifications/hold', { on: true })).body, { held: 0 });
      const r = await c.tenant.post('/api/notification/request', {
        targets: [target('Night shift')],
        template: inline(),
      });
      assert.equal(center().heldCount, 1);
      assert.deepEqual((await c.anon.post('/__sim/notifications/release')).body, { released: 1 });
      assert.equal(center().requests.get(r.body.id.id)!.status, 'SENT');
      const ch = await c.anon.post('/__sim/notifications/channels', { sms: true, mail: false });
      assert.deepEqual(ch.body.deliveryMethods, ['WEB', 'SMS', 'MICROSOFT_TEAMS']);
      assert.equal((await c.anon.post('/__sim/notifications/channels', { sms: 'yes' })).status, 400);
      const all = await c.anon.request('GET', '/__sim/notifications');
      assert.deepEqual(
        all.body.targets.map((t: Rec) => t.name),
        ['All users', 'Tenant administrators', 'Customer A users', 'Night shift', 'Ops channel'],
      );
      assert.equal(all.body.requests.length, 1);
    });
  });

  describe('the inbox', () => {
    let customer: Client;
    beforeEach(async () => {
      customer = await login(c.url, 'customer@thingsboard.org', 'customer');
    });

    it('lists the current user’s notifications newest first; unreadOnly; the customer user has an inbox too', async () => {
      const all = await c.tenant.request('GET', '/api/notifications?pageSize=10&page=0');
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(
        all.body.data.map((n: Rec) => n.subject),
        ['Maintenance due', 'Firmware update available', 'Welcome'],
      );
      assert.equal(all.body.data[0].createdTime, BASE_TIME - HOUR);
      assert.equal(all.body.data[0].status, 'SENT');
      assert.equal(all.body.data[0].id.entityType, 'NOTIFICATION');
      const unread = await c.tenant.request('GET', '/api/notifications?pageSize=10&page=0&unreadOnly=true');
      assert.equal(unread.body.totalElements, 2);
      const mine = await customer.request('GET', '/api/notifications?pageSize=10&page=0');
      assert.equal(mine.status, 200);
      assert.equal(mine.body.totalElements, 0);
    });

    it('trap: the unread count defaults to MOBILE_APP; deliveryMethod=WEB counts the web inbox', async () => {
      const dflt = await c.tenant.request('GET', '/api/notifications/unread/count');
      assert.equal(dflt.status, 200);
      assert.equal(dflt.text, '0', 'a bare number, of the mobile notifications');
      const web = await c.tenant.request('GET', '/api/notifications/unread/count?deliveryMethod=WEB');
      assert.equal(web.text, '2');
      c.sim.setVersion('3.6.4');
      assert.equal((await c.tenant.request('GET', '/api/notifications/unread/count')).status, 404, 'since 3.7');
    });

    it('marks one read, then all; a second mark and an unknown id still answer 200 (trap: no error)', async () => {
      const [first] = center().inbox(user('tenant@thingsboard.org').userId);
      const r = await c.tenant.request('PUT', `/api/notification/${first.id}/read`);
      assert.equal(r.status, 200);
      assert.equal(r.text, '');
      assert.equal(center().notifications.get(first.id)!.status, 'READ');
      assert.equal((await c.tenant.request('PUT', `/api/notification/${first.id}/read`)).status, 200);
      const unknown = await c.tenant.request('PUT', '/api/notification/00000000-0000-4000-8000-000000000003/read');
      assert.equal(unknown.status, 200);
      assert.equal((await c.tenant.request('GET', '/api/notifications/unread/count?deliveryMethod=WEB')).text, '1');
      assert.equal((await c.tenant.request('PUT', '/api/notifications/read')).status, 200);
      assert.equal((await c.tenant.request('GET', '/api/notifications/unread/count?deliveryMethod=WEB')).text, '0');
      const bad = await c.tenant.request('PUT', '/api/notification/nope/read');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, 'Invalid UUID string: nope');
    });

    it("a user cannot mark another user's notification read (200, nothing changes)", async () => {
      const [first] = center().inbox(user('tenant@thingsboard.org').userId);
      assert.equal((await customer.request('PUT', `/api/notification/${first.id}/read`)).status, 200);
      assert.equal(center().notifications.get(first.id)!.status, 'SENT');
    });
  });
});

describe('simulator: notification center (WebSocket)', function () {
  const c = useWsSetup({}, { perTest: true });
  const center = () => c.sim.notifications;
  const userId = (email: string) => c.sim.auth.users.find((u) => u.email === email)!.userId;
  const tenantId = () => userId('tenant@thingsboard.org');

  it('NOTIFICATIONS: the latest unread newest first with the total, then a partial update per new one', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 10 }]);
    const full = await ws.forCmd(3);
    assert.equal(full.cmdUpdateType, 'NOTIFICATIONS');
    assert.deepEqual(
      full.notifications.map((n: Msg) => n.subject),
      ['Maintenance due', 'Firmware update available'],
    );
    assert.equal(full.totalUnreadCount, 2);
    assert.equal(full.sequenceNumber, 1);
    assert.equal(full.update, null);
    assert.deepEqual(Object.keys(full), [
      'cmdId',
      'errorCode',
      'errorMsg',
      'notifications',
      'update',
      'totalUnreadCount',
      'sequenceNumber',
      'cmdUpdateType',
    ]);
    const n = center().addNotification({ recipientId: tenantId(), subject: 'New', text: 'one' });
    const part = await ws.forCmd(3);
    assert.equal(part.notifications, null);
    assert.equal(part.update.id.id, n.id);
    assert.equal(part.totalUnreadCount, 3);
    assert.equal(part.sequenceNumber, 2);
  });

  it('NOTIFICATIONS keeps `limit`: the total counts them all', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 1 }]);
    const full = await ws.forCmd(3);
    assert.equal(full.notifications.length, 1);
    assert.equal(full.totalUnreadCount, 2);
  });

  it('reading a listed one re-sends the full list; reading one beyond the limit sends the count only', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 1 }]);
    const full = await ws.forCmd(3);
    const listed = full.notifications[0].id.id;
    const other = center()
      .inbox(tenantId())
      .find((n) => n.status === 'SENT' && n.id !== listed)!.id;
    ws.cmds({ type: 'MARK_NOTIFICATIONS_AS_READ', cmdId: 4, notifications: [other] });
    const count = await ws.forCmd(3);
    assert.equal(count.notifications, null);
    assert.equal(count.update, null);
    assert.equal(count.totalUnreadCount, 1);
    ws.cmds({ type: 'MARK_NOTIFICATIONS_AS_READ', cmdId: 5, notifications: [listed] });
    const again = await ws.forCmd(3);
    assert.deepEqual(again.notifications, []);
    assert.equal(again.totalUnreadCount, 0);
    assert.equal(again.sequenceNumber, 3);
    assert.deepEqual(await ws.probe(), [], 'the mark commands get no reply of their own');
  });

  it('NOTIFICATIONS_COUNT follows new, read and all-read', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS_COUNT', cmdId: 7 }]);
    const first = await ws.forCmd(7);
    assert.deepEqual(first, {
      cmdId: 7,
      errorCode: 0,
      errorMsg: null,
      totalUnreadCount: 2,
      sequenceNumber: 1,
      cmdUpdateType: 'NOTIFICATIONS_COUNT',
    });
    center().addNotification({ recipientId: tenantId(), subject: 'x', text: 'y' });
    assert.equal((await ws.forCmd(7)).totalUnreadCount, 3);
    ws.cmds({ type: 'MARK_ALL_NOTIFICATIONS_AS_READ', cmdId: 8 });
    const all = await ws.forCmd(7);
    assert.equal(all.totalUnreadCount, 0);
    assert.equal(all.sequenceNumber, 3);
  });

  it('trap: only WEB notifications are counted and sent; a MOBILE_APP one produces no update', async () => {
    const ws = await c.connect([
      { type: 'NOTIFICATIONS', cmdId: 3, limit: 10 },
      { type: 'NOTIFICATIONS_COUNT', cmdId: 4 },
    ]);
    await ws.forCmd(3);
    await ws.forCmd(4);
    center().addNotification({ recipientId: tenantId(), subject: 'm', text: 'mobile', deliveryMethod: 'MOBILE_APP' });
    assert.deepEqual(await ws.probe(), []);
  });

  it("another user's notification is not seen; a sent request reaches every recipient's subscription", async () => {
    const tenant = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 10 }]);
    const tech = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 10 }], 'tech@thingsboard.org');
    await tenant.forCmd(3);
    assert.equal((await tech.forCmd(3)).totalUnreadCount, 0);
    center().addNotification({ recipientId: userId('tech@thingsboard.org'), subject: 'for Terry', text: 't' });
    assert.equal((await tech.forCmd(3)).update.subject, 'for Terry');
    assert.deepEqual(await tenant.probe(), []);
  });

  it('trap: a limit below 1 fails the command (always send limit >= 1)', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 0 }]);
    const err = await ws.forCmd(3);
    assert.equal(err.errorCode, 1);
    assert.equal(err.errorMsg, 'Page size must not be less than one');
  });

  it('NOTIFICATIONS_UNSUBSCRIBE stops the updates', async () => {
    const ws = await c.connect([{ type: 'NOTIFICATIONS', cmdId: 3, limit: 10 }]);
    await ws.forCmd(3);
    ws.cmds({ type: 'NOTIFICATIONS_UNSUBSCRIBE', cmdId: 3 });
    await ws.probe();
    center().addNotification({ recipientId: tenantId(), subject: 'late', text: 'x' });
    assert.deepEqual(await ws.probe(), []);
  });
});
