import assert from 'node:assert/strict';
import { javaUuid, noXss } from '../../sim/alarm-actions';
import { HOUR, type ChangeEvent } from '../../sim/index';
import { login, NOW, type Client } from '../../sim/testkit';
import { TestWs, type Msg } from '../../sim/ws-client';
import { useSimSetup } from '../support/simulator';

const MISSING = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
const PERMISSION = "You don't have permission to perform this operation!";
const DAY = 24 * HOUR;

describe('simulator: alarm actions (§11)', function () {
  const c = useSimSetup({}, { perTest: true });
  let sysadmin: Client;
  let customerB: Client;
  beforeEach(async () => {
    sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
    customerB = await login(c.url, 'customerb@thingsboard.org', 'customer');
  });

  const dev = (name: string): { entityType: string; id: string } => ({
    entityType: 'DEVICE',
    id: c.sim.data.mustFindByName('DEVICE', name).id,
  });
  const userId = (email: string): string => c.sim.data.mustFindByName('USER', email).id;
  /** The (first seeded) alarm of a device. */
  const alarmOf = (name: string): string => {
    const d = dev(name);
    const a = c.sim.data.alarms().find((x) => x.originator.id === d.id);
    assert.ok(a, `an alarm of ${name}`);
    return a.id;
  };
  const info = (id: string): unknown => {
    const a = c.sim.data.getAlarm(id);
    assert.ok(a);
    return c.sim.data.alarmInfo(a);
  };
  const err = (r: { status: number; body: Msg }): unknown[] => [r.status, r.body?.errorCode, r.body?.message];
  /** The comments of an alarm as the REST list answers them, oldest first. */
  const comments = async (id: string, client: Client = c.tenant): Promise<Msg[]> => {
    const r = await client.request(
      'GET',
      `/api/alarm/${id}/comment?pageSize=100&page=0&sortProperty=createdTime&sortOrder=ASC`,
    );
    assert.equal(r.status, 200, r.text);
    return r.body.data;
  };
  /** The comments of an alarm in creation order (the control API), as AlarmCommentInfo. */
  const written = async (id: string): Promise<Msg[]> =>
    (await c.anon.request('GET', `/__sim/alarms/${id}/comments`)).body;
  const createBody = (
    originator: unknown,
    type: string,
    severity: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    originator,
    type,
    severity,
    ...extra,
  });

  describe('acknowledge and clear', () => {
    it('ack answers the AlarmInfo after the change; again: 400 "Alarm was already acknowledged!"', async () => {
      const id = alarmOf('Thermo A-101');
      const r = await c.tenant.post(`/api/alarm/${id}/ack`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        [r.body.acknowledged, r.body.ackTs, r.body.status, r.body.cleared],
        [true, NOW, 'ACTIVE_ACK', false],
      );
      assert.equal(r.body.originatorName, 'Thermo A-101', 'an AlarmInfo (with the originator names)');
      assert.deepEqual(r.body, info(id));
      const again = await c.tenant.post(`/api/alarm/${id}/ack`);
      assert.deepEqual(again.body, {
        status: 400,
        message: 'Alarm was already acknowledged!',
        errorCode: 31,
        timestamp: NOW,
      });
      assert.equal(again.status, 400);
    });

    it('clear answers the AlarmInfo; a cleared alarm can still be acknowledged; clearing twice: 400', async () => {
      const id = alarmOf('Thermo A-101');
      const r = await c.tenant.post(`/api/alarm/${id}/clear`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        [r.body.cleared, r.body.clearTs, r.body.status, r.body.acknowledged],
        [true, NOW, 'CLEARED_UNACK', false],
      );
      assert.deepEqual(r.body, info(id));
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/clear`)), [400, 31, 'Alarm was already cleared!']);
      const ack = await c.tenant.post(`/api/alarm/${id}/ack`);
      assert.equal(ack.body.status, 'CLEARED_ACK');
    });

    it('each change writes a SYSTEM comment authored by the caller', async () => {
      const id = alarmOf('Thermo A-101');
      await c.customer.post(`/api/alarm/${id}/ack`);
      await c.tenant.post(`/api/alarm/${id}/clear`);
      const list = await written(id);
      assert.deepEqual(
        list.map((x) => [x.type, x.comment, x.userId.id, x.email]),
        [
          [
            'SYSTEM',
            {
              text: 'Alarm was acknowledged by user Carol Customer',
              subtype: 'ACKED_BY_USER',
              userName: 'Carol Customer',
            },
            userId('customer@thingsboard.org'),
            'customer@thingsboard.org',
          ],
          [
            'SYSTEM',
            { text: 'Alarm was cleared by user Tenant Admin', subtype: 'CLEARED_BY_USER', userName: 'Tenant Admin' },
            userId('tenant@thingsboard.org'),
            'tenant@thingsboard.org',
          ],
        ],
      );
      await c.tenant.post(`/api/alarm/${id}/ack`);
      assert.equal((await comments(id)).length, 2, 'an "already" error writes nothing');
    });

    it('two acks at once: one 200, one 400 "already"', async () => {
      const id = alarmOf('Thermo B-101');
      const rs = await Promise.all([c.tenant.post(`/api/alarm/${id}/ack`), customerB.post(`/api/alarm/${id}/ack`)]);
      assert.deepEqual(rs.map((r) => r.status).sort(), [200, 400]);
      assert.equal(rs.find((r) => r.status === 400)?.body.message, 'Alarm was already acknowledged!');
      assert.equal((await comments(id)).length, 1);
      const clears = await Promise.all([1, 2, 3].map(() => c.tenant.post(`/api/alarm/${id}/clear`)));
      assert.deepEqual(clears.map((r) => r.status).sort(), [200, 400, 400]);
    });
  });

  describe('assign and unassign', () => {
    it('assign answers the AlarmInfo (runtime type) with assigneeId, assignTs and assignee; same user again: 400', async () => {
      const id = alarmOf('Thermo A-101');
      const tech = userId('tech@thingsboard.org');
      const r = await c.tenant.post(`/api/alarm/${id}/assign/${tech}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.assigneeId, { entityType: 'USER', id: tech });
      assert.equal(r.body.assignTs, NOW);
      assert.deepEqual(r.body.assignee, {
        id: { entityType: 'USER', id: tech },
        firstName: 'Terry',
        lastName: 'Tech',
        email: 'tech@thingsboard.org',
      });
      assert.deepEqual(r.body, info(id));
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/assign/${tech}`)), [
        400,
        31,
        'Alarm was already assigned to this user!',
      ]);
      const carol = userId('customer@thingsboard.org');
      const re = await c.customer.post(`/api/alarm/${id}/assign/${carol}`);
      assert.equal(re.body.assignee.email, 'customer@thingsboard.org', 'reassign');
      assert.deepEqual(
        (await written(id)).map((x) => x.comment.text),
        [
          'Alarm was assigned by user Tenant Admin to user Terry Tech',
          'Alarm was assigned by user Carol Customer to user Carol Customer',
        ],
      );
      assert.deepEqual((await written(id))[0].comment, {
        text: 'Alarm was assigned by user Tenant Admin to user Terry Tech',
        subtype: 'ASSIGNED_TO_USER',
        userName: 'Tenant Admin',
        assigneeName: 'Terry Tech',
      });
    });

    it('unassign answers the AlarmInfo with assigneeId null; again: 400 "Alarm was already unassigned!"', async () => {
      const id = alarmOf('Thermo B-101');
      const r = await customerB.request('DELETE', `/api/alarm/${id}/assign`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.body.assigneeId, r.body.assignee, r.body.assignTs], [null, null, NOW]);
      assert.deepEqual(r.body, info(id));
      assert.deepEqual(err(await customerB.request('DELETE', `/api/alarm/${id}/assign`)), [
        400,
        31,
        'Alarm was already unassigned!',
      ]);
      assert.deepEqual(
        (await comments(id)).map((x) => x.comment),
        [{ text: 'Alarm was unassigned by user Bob Buyer', subtype: 'UNASSIGNED_BY_USER', userName: 'Bob Buyer' }],
      );
    });

    it('the assignee must exist and be readable by the caller', async () => {
      const id = alarmOf('Thermo A-101');
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/assign/${MISSING}`)), [
        404,
        32,
        `User with id [${MISSING}] is not found`,
      ]);
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/assign/nobody`)), [
        400,
        31,
        'Invalid UUID string: nobody',
      ]);
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/assign/${userId('sysadmin@thingsboard.org')}`)), [
        403,
        20,
        PERMISSION,
      ]);
      // a customer user may read (so assign) only users of its own customer
      assert.deepEqual(err(await c.customer.post(`/api/alarm/${id}/assign/${userId('tenant@thingsboard.org')}`)), [
        403,
        20,
        PERMISSION,
      ]);
      assert.deepEqual(err(await c.customer.post(`/api/alarm/${id}/assign/${userId('customerb@thingsboard.org')}`)), [
        403,
        20,
        PERMISSION,
      ]);
      // a tenant admin reads every user of its tenant, also another customer's
      assert.equal((await c.tenant.post(`/api/alarm/${id}/assign/${userId('customerb@thingsboard.org')}`)).status, 200);
      // the alarm is checked before the assignee
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${MISSING}/assign/nobody`)), [
        404,
        32,
        `Alarm with id [${MISSING}] is not found`,
      ]);
    });
  });

  describe('comments', () => {
    it('POST answers the AlarmComment; type is always OTHER, alarmId / userId of the body are ignored', async () => {
      const id = alarmOf('Thermo A-101');
      const body = {
        type: 'SYSTEM',
        alarmId: { entityType: 'ALARM', id: MISSING },
        userId: { entityType: 'USER', id: MISSING },
        comment: { text: 'Please take a look' },
      };
      const r = await c.customer.post(`/api/alarm/${id}/comment`, body);
      assert.equal(r.status, 200, r.text);
      const saved = c.sim.data.alarmComments(id)[0];
      assert.deepEqual(r.body, {
        id: { id: saved.id },
        createdTime: NOW,
        alarmId: { entityType: 'ALARM', id },
        userId: { entityType: 'USER', id: userId('customer@thingsboard.org') },
        type: 'OTHER',
        comment: { text: 'Please take a look' },
        name: '{"text":"Please take a look"}',
      });
    });

    it('editing (body with id): edited "true" and editedOn; only the author; SYSTEM comments never', async () => {
      const id = alarmOf('Thermo A-101');
      const created = (await c.customer.post(`/api/alarm/${id}/comment`, { comment: { text: 'first' } })).body;
      c.clock.now = NOW + 5000;
      const r = await c.customer.post(`/api/alarm/${id}/comment`, { id: created.id, comment: { text: 'second' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        [r.body.id, r.body.createdTime, r.body.comment],
        [created.id, NOW, { text: 'second', edited: 'true', editedOn: NOW + 5000 }],
      );
      assert.deepEqual(
        err(await c.tenant.post(`/api/alarm/${id}/comment`, { id: created.id, comment: { text: 'x' } })),
        [403, 20, "User is not allowed to edit other user's comment"],
      );
      await c.tenant.post(`/api/alarm/${id}/ack`);
      const system = c.sim.data.alarmComments(id).find((x) => x.type === 'SYSTEM');
      assert.ok(system);
      assert.deepEqual(
        err(await c.tenant.post(`/api/alarm/${id}/comment`, { id: { id: system.id }, comment: { text: 'x' } })),
        [400, 31, "System alarm comment can't be updated!"],
      );
      assert.deepEqual(
        err(await c.tenant.post(`/api/alarm/${id}/comment`, { id: { id: MISSING }, comment: { text: 'x' } })),
        [404, 32, `Alarm comment with id [${MISSING}] is not found`],
      );
      const other = alarmOf('Thermo A-102');
      assert.deepEqual(
        err(await c.customer.post(`/api/alarm/${other}/comment`, { id: created.id, comment: { text: 'x' } })),
        [400, 31, 'Alarm id does not match with comment alarm id'],
      );
    });

    it('validation: a missing comment, a script, too long', async () => {
      const id = alarmOf('Thermo A-101');
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/comment`, {})), [
        400,
        31,
        'Alarm comment should be specified!',
      ]);
      assert.deepEqual(
        err(await c.tenant.post(`/api/alarm/${id}/comment`, { comment: { text: '<script>alert(1)</script>' } })),
        [400, 31, 'Validation error: comment is malformed'],
      );
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/comment`, { comment: { text: 'x'.repeat(10000) } })), [
        400,
        31,
        'Validation error: comment length must be equal or less than 10000',
      ]);
      assert.equal(
        (await c.tenant.post(`/api/alarm/${id}/comment`, { comment: { text: 'if a < b then {not a template}' } }))
          .status,
        200,
      );
      const malformed = await c.tenant.post(`/api/alarm/${id}/comment`, 'not json');
      assert.deepEqual([malformed.status, malformed.body.errorCode], [500, 2]);
      assert.match(malformed.body.message, /^JSON parse error: /);
    });

    it('GET lists OTHER and SYSTEM comments as AlarmCommentInfo, paged and sorted', async () => {
      const id = alarmOf('Thermo B-101'); // assigned to tech@, Customer B
      c.clock.now = NOW + 1000;
      await customerB.post(`/api/alarm/${id}/comment`, { comment: { text: 'on it' } });
      c.clock.now = NOW + 2000;
      await customerB.post(`/api/alarm/${id}/ack`);
      c.clock.now = NOW + 3000;
      await c.tenant.request('DELETE', `/api/alarm/${id}/assign`);
      c.clock.now = NOW + 4000;
      await c.tenant.post(
        '/api/alarm',
        createBody(dev('Thermo B-101'), 'High Temperature', 'CRITICAL', {
          assigneeId: { entityType: 'USER', id: userId('tech@thingsboard.org') },
        }),
      );
      const r = await customerB.request(
        'GET',
        `/api/alarm/${id}/comment?pageSize=2&page=0&sortProperty=createdTime&sortOrder=DESC`,
      );
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.body.totalElements, r.body.totalPages, r.body.hasNext], [5, 3, true]);
      assert.deepEqual(Object.keys(r.body.data[0]), [
        'id',
        'createdTime',
        'alarmId',
        'userId',
        'type',
        'comment',
        'firstName',
        'lastName',
        'email',
        'name',
      ]);
      const rest = await comments(id, customerB);
      assert.deepEqual(
        rest.map((x) => x.createdTime),
        [...rest.map((x) => x.createdTime)].sort((x, y) => x - y),
        'by createdTime',
      );
      const all = await written(id);
      assert.deepEqual(new Set(rest.map((x) => x.id.id)), new Set(all.map((x) => x.id.id)));
      assert.deepEqual(
        all.map((x) => [
          x.createdTime - NOW,
          x.type,
          x.comment.subtype ?? x.comment.text,
          x.firstName,
          x.userId?.id ?? null,
        ]),
        [
          [1000, 'OTHER', 'on it', 'Bob', userId('customerb@thingsboard.org')],
          [2000, 'SYSTEM', 'ACKED_BY_USER', 'Bob', userId('customerb@thingsboard.org')],
          [3000, 'SYSTEM', 'UNASSIGNED_BY_USER', 'Tenant', userId('tenant@thingsboard.org')],
          // the create with the same type updated the active alarm: severity WARNING -> CRITICAL, then the assignment
          [4000, 'SYSTEM', 'SEVERITY_CHANGED', 'Tenant', userId('tenant@thingsboard.org')],
          [4000, 'SYSTEM', 'ASSIGNED_TO_USER', 'Tenant', userId('tenant@thingsboard.org')],
        ],
      );
      assert.deepEqual(all[3].comment, {
        text: 'Alarm severity was updated from WARNING to CRITICAL',
        subtype: 'SEVERITY_CHANGED',
        oldSeverity: 'WARNING',
        newSeverity: 'CRITICAL',
      });
      // without sortProperty: by id (PageLink's default sort)
      const byId = (await customerB.request('GET', `/api/alarm/${id}/comment?pageSize=10&page=0`)).body.data.map(
        (x: Msg) => x.id.id,
      );
      assert.deepEqual(byId, [...byId].sort());
      const p = `/api/alarm/${id}/comment`;
      assert.deepEqual(err(await c.tenant.request('GET', `${p}?pageSize=0&page=0`)), [
        400,
        31,
        'Page size must not be less than one',
      ]);
      assert.deepEqual(err(await c.tenant.request('GET', `${p}?pageSize=1&page=-1`)), [
        400,
        31,
        'Page index must not be less than zero',
      ]);
      assert.deepEqual(err(await c.tenant.request('GET', `${p}?pageSize=1`)), [
        500,
        2,
        "Required request parameter 'page' for method parameter type int is not present",
      ]);
      assert.deepEqual(err(await c.tenant.request('GET', `${p}?pageSize=1&page=0&sortProperty=nope`)), [
        500,
        46,
        'Database error',
      ]);
      assert.deepEqual(
        err(await c.tenant.request('GET', `${p}?pageSize=1&page=0&sortProperty=createdTime&sortOrder=UP`)),
        [400, 31, "Unsupported sort order 'UP'! Only 'ASC' or 'DESC' types are allowed."],
      );
    });

    it('the control API lists and adds comments', async () => {
      const id = alarmOf('Thermo A-101');
      await c.tenant.post(`/api/alarm/${id}/ack`);
      const add = await c.anon.post(`/__sim/alarms/${id}/comments`, {
        text: 'from a test',
        userId: userId('tech@thingsboard.org'),
      });
      assert.equal(add.status, 200, add.text);
      const list = await c.anon.request('GET', `/__sim/alarms/${id}/comments`);
      assert.deepEqual(
        list.body.map((x: Msg) => [x.type, x.comment.text, x.lastName]),
        [
          ['SYSTEM', 'Alarm was acknowledged by user Tenant Admin', 'Admin'],
          ['OTHER', 'from a test', 'Tech'],
        ],
      );
      assert.equal((await c.anon.request('GET', `/__sim/alarms/${MISSING}/comments`)).status, 400);
    });
  });

  describe('create, update, delete', () => {
    it('create answers the saved Alarm (no originator names); dedup by originator + type while not cleared', async () => {
      const orig = dev('Thermo A-203');
      const r = await c.tenant.post(
        '/api/alarm',
        createBody(orig, 'Door Open', 'MAJOR', { details: { door: 'north' } }),
      );
      assert.equal(r.status, 200, r.text);
      const id = r.body.id.id;
      assert.deepEqual(r.body, {
        id: { entityType: 'ALARM', id },
        createdTime: NOW,
        tenantId: { entityType: 'TENANT', id: c.sim.data.tenantId },
        customerId: { entityType: 'CUSTOMER', id: c.sim.data.mustFindByName('CUSTOMER', 'Customer A').id },
        type: 'Door Open',
        originator: orig,
        severity: 'MAJOR',
        acknowledged: false,
        cleared: false,
        assigneeId: null,
        startTs: NOW,
        endTs: NOW,
        ackTs: 0,
        clearTs: 0,
        assignTs: 0,
        details: { door: 'north' },
        propagate: false,
        propagateToOwner: false,
        propagateToTenant: false,
        propagateRelationTypes: [],
        name: 'Door Open',
        status: 'ACTIVE_UNACK',
      });
      // same originator and type while active: the same alarm, updated (severity, details, startTs/endTs = now)
      c.clock.now = NOW + 60_000;
      const again = await c.tenant.post('/api/alarm', createBody(orig, 'Door Open', 'CRITICAL'));
      assert.equal(again.body.id.id, id);
      assert.deepEqual(
        [again.body.severity, again.body.details, again.body.startTs, again.body.endTs, again.body.createdTime],
        ['CRITICAL', {}, NOW + 60_000, NOW + 60_000, NOW],
      );
      assert.deepEqual(
        (await comments(id)).map((x) => [x.comment.text, x.userId.id]),
        [['Alarm severity was updated from MAJOR to CRITICAL', userId('tenant@thingsboard.org')]],
      );
      // an explicit endTs is kept
      const third = await c.tenant.post(
        '/api/alarm',
        createBody(orig, 'Door Open', 'CRITICAL', { startTs: NOW, endTs: NOW + 120_000 }),
      );
      assert.deepEqual([third.body.id.id, third.body.startTs, third.body.endTs], [id, NOW, NOW + 120_000]);
      // once cleared, a create makes a new alarm
      await c.tenant.post(`/api/alarm/${id}/clear`);
      const fresh = await c.tenant.post('/api/alarm', createBody(orig, 'Door Open', 'MINOR'));
      assert.notEqual(fresh.body.id.id, id);
      assert.deepEqual([fresh.body.severity, fresh.body.status], ['MINOR', 'ACTIVE_UNACK']);
      assert.equal(c.sim.data.alarms().filter((a) => a.type === 'Door Open').length, 2);
      // the seeded active alarm of A-101 is found by type as well
      const seeded = alarmOf('Thermo A-101');
      assert.equal(
        (await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), 'High Temperature', 'CRITICAL'))).body.id.id,
        seeded,
      );
    });

    it('acknowledged / cleared / assigneeId of the body are applied after the save, through the same paths', async () => {
      const tech = userId('tech@thingsboard.org');
      const r = await c.tenant.post(
        '/api/alarm',
        createBody(dev('Thermo G-202'), 'Fan Failure', 'WARNING', {
          acknowledged: true,
          ackTs: NOW - 5000,
          cleared: true,
          assigneeId: { entityType: 'USER', id: tech },
        }),
      );
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        [r.body.status, r.body.ackTs, r.body.clearTs, r.body.assigneeId.id, r.body.assignTs],
        ['CLEARED_ACK', NOW - 5000, NOW, tech, NOW],
      );
      assert.equal(r.body.assignee, undefined, 'an Alarm, not an AlarmInfo');
      assert.deepEqual(
        (await written(r.body.id.id)).map((x) => x.comment.subtype),
        ['ACKED_BY_USER', 'CLEARED_BY_USER', 'ASSIGNED_TO_USER'],
      );
      assert.deepEqual(
        err(
          await c.tenant.post(
            '/api/alarm',
            createBody(dev('Thermo G-202'), 'Other', 'WARNING', { assigneeId: { entityType: 'USER', id: MISSING } }),
          ),
        ),
        [404, 32, `User with id [${MISSING}] is not found`],
      );
    });

    it('update with id: severity change writes SEVERITY_CHANGED without an author; a missing assigneeId unassigns', async () => {
      const id = alarmOf('Thermo A-102'); // MAJOR, ACTIVE_ACK, assigned tenant@
      const current = (await c.tenant.request('GET', `/api/alarm/${id}`)).body;
      assert.equal(current.assigneeId.id, userId('tenant@thingsboard.org'));
      const r = await c.tenant.post('/api/alarm', {
        ...current,
        severity: 'CRITICAL',
        type: 'ignored on update',
        assigneeId: null,
        acknowledged: false,
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        [r.body.id.id, r.body.severity, r.body.type, r.body.assigneeId, r.body.acknowledged],
        [id, 'CRITICAL', 'High Temperature', null, true],
      );
      const list = await written(id);
      assert.deepEqual(
        list.map((x) => [x.comment.subtype, x.userId?.id ?? null]),
        [
          ['SEVERITY_CHANGED', null],
          ['UNASSIGNED_BY_USER', userId('tenant@thingsboard.org')],
        ],
      );
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', { ...current, id: { entityType: 'ALARM', id: MISSING } })),
        [404, 32, `Alarm with id [${MISSING}] is not found`],
      );
      assert.deepEqual(err(await c.tenant.post('/api/alarm', { ...current, severity: null })), [
        400,
        31,
        'Validation error: severity must not be null',
      ]);
    });

    it('re-posting a create for an assigned active alarm without assigneeId: updated, then the server NPE (500)', async () => {
      const id = alarmOf('Thermo B-101'); // WARNING, assigned tech@
      const r = await c.tenant.post('/api/alarm', createBody(dev('Thermo B-101'), 'High Temperature', 'MAJOR'));
      assert.deepEqual(err(r), [
        500,
        2,
        'Cannot invoke "org.thingsboard.server.common.data.id.AlarmId.getId()" because "id" is null',
      ]);
      const a = c.sim.data.getAlarm(id);
      assert.deepEqual(
        [a?.severity, a?.assigneeId],
        ['MAJOR', userId('tech@thingsboard.org')],
        'the update happened, the unassign did not',
      );
    });

    it('create errors: originator, type, severity, timestamps, customers', async () => {
      assert.deepEqual(err(await c.tenant.post('/api/alarm', { type: 'X', severity: 'MAJOR' })), [
        404,
        32,
        "Requested item wasn't found!",
      ]);
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), '<script>alert(1)</script>', 'MAJOR'))),
        [400, 31, 'Validation error: type is malformed'],
      );
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), '{{constructor}}', 'MAJOR'))),
        [400, 31, 'Validation error: type is malformed'],
      );
      assert.deepEqual(err(await c.tenant.post('/api/alarm', { originator: dev('Thermo A-101') })), [
        400,
        31,
        'Validation error: severity must not be null, type must not be null',
      ]);
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), 'x'.repeat(256), 'MAJOR'))),
        [400, 31, 'Validation error: type length must be equal or less than 255'],
      );
      assert.deepEqual(
        err(
          await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), 'T', 'MAJOR', { startTs: 10, endTs: 5 })),
        ),
        [400, 31, "Alarm start ts can't be greater then alarm end ts!"],
      );
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', createBody({ entityType: 'DEVICE', id: MISSING }, 'T', 'MAJOR'))),
        [404, 32, `Device with id [${MISSING}] is not found`],
      );
      assert.deepEqual(
        err(
          await c.tenant.post(
            '/api/alarm',
            createBody({ entityType: 'ASSET', id: dev('Thermo A-101').id }, 'T', 'MAJOR'),
          ),
        ),
        [404, 32, `Asset with id [${dev('Thermo A-101').id}] is not found`],
      );
      const bad = await c.tenant.post('/api/alarm', createBody(dev('Thermo A-101'), 'T', 'HUGE'));
      assert.deepEqual([bad.status, bad.body.errorCode], [500, 2]);
      assert.match(
        bad.body.message,
        /^JSON parse error: Cannot deserialize value of type `org\.thingsboard\.server\.common\.data\.alarm\.AlarmSeverity`/,
      );
      // a customerId in the body must be the originator's (a tenant device has none)
      const custA = { entityType: 'CUSTOMER', id: c.sim.data.mustFindByName('CUSTOMER', 'Customer A').id };
      assert.deepEqual(
        err(await c.tenant.post('/api/alarm', createBody(dev('Thermo G-101'), 'T', 'MAJOR', { customerId: custA }))),
        [400, 31, "Can't assign alarm to customer. Originator belongs to different customer!"],
      );
      assert.equal(
        (await c.tenant.post('/api/alarm', createBody(dev('Thermo A-201'), 'T', 'MAJOR', { customerId: custA })))
          .status,
        200,
      );
    });

    it('a customer user creates alarms with its own customerId in the body (the CREATE permission checks it)', async () => {
      const custA = { entityType: 'CUSTOMER', id: c.sim.data.mustFindByName('CUSTOMER', 'Customer A').id };
      assert.deepEqual(err(await c.customer.post('/api/alarm', createBody(dev('Thermo A-203'), 'T', 'MAJOR'))), [
        403,
        20,
        PERMISSION,
      ]);
      const ok = await c.customer.post(
        '/api/alarm',
        createBody(dev('Thermo A-203'), 'T', 'MAJOR', { customerId: custA }),
      );
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.customerId, custA);
      assert.deepEqual(
        err(await c.customer.post('/api/alarm', createBody(dev('Thermo B-203'), 'T', 'MAJOR', { customerId: custA }))),
        [403, 20, PERMISSION],
      );
      // updates are checked against the stored alarm
      assert.equal(
        (await c.customer.post('/api/alarm', { ...ok.body, severity: 'MINOR', customerId: null })).status,
        200,
      );
      assert.deepEqual(err(await customerB.post('/api/alarm', { ...ok.body, severity: 'MINOR' })), [
        403,
        20,
        PERMISSION,
      ]);
    });

    it('two creates at once are deduplicated too', async () => {
      const rs = await Promise.all(
        [1, 2].map(() => c.tenant.post('/api/alarm', createBody(dev('Thermo G-203'), 'Burst', 'MAJOR'))),
      );
      assert.deepEqual(
        rs.map((r) => r.status),
        [200, 200],
      );
      assert.equal(rs[0].body.id.id, rs[1].body.id.id);
    });

    it('delete answers true; the alarm and its comments are gone', async () => {
      const id = alarmOf('Thermo A-101');
      await c.tenant.post(`/api/alarm/${id}/ack`);
      const r = await c.customer.request('DELETE', `/api/alarm/${id}`);
      assert.deepEqual([r.status, r.text], [200, 'true']);
      assert.equal(c.sim.data.getAlarm(id), undefined);
      assert.equal(c.sim.data.alarmComments(id).length, 0);
      assert.deepEqual(err(await c.tenant.request('DELETE', `/api/alarm/${id}`)), [
        404,
        32,
        `Alarm with id [${id}] is not found`,
      ]);
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${id}/ack`)), [
        404,
        32,
        `Alarm with id [${id}] is not found`,
      ]);
    });

    it('GET /api/alarm/{id} answers the Alarm', async () => {
      const id = alarmOf('Thermo A-101');
      const r = await c.customer.request('GET', `/api/alarm/${id}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.originatorName, undefined);
      assert.equal(r.body.status, 'ACTIVE_UNACK');
      assert.deepEqual(err(await customerB.request('GET', `/api/alarm/${id}`)), [403, 20, PERMISSION]);
    });
  });

  describe('users for assign', () => {
    const emails = (r: { body: Msg }): string[] => r.body.data.map((u: Msg) => u.email);
    const byId = (list: string[]): string[] => [...list].sort((a, b) => (userId(a) < userId(b) ? -1 : 1));
    const TENANT_ADMINS = [
      'tenant@thingsboard.org',
      'tech@thingsboard.org',
      'mfa@thingsboard.org',
      'disabled@thingsboard.org',
    ];

    it("tenant admin: the tenant admins for a tenant alarm; plus the originator customer's users for a customer alarm", async () => {
      const r = await c.tenant.request('GET', `/api/users/assign/${alarmOf('Thermo G-201')}?pageSize=50&page=0`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(emails(r), byId(TENANT_ADMINS));
      assert.deepEqual(Object.keys(r.body.data[0]), ['id', 'email', 'firstName', 'lastName']);
      assert.deepEqual(
        r.body.data.find((u: Msg) => u.email === 'tech@thingsboard.org'),
        {
          id: { entityType: 'USER', id: userId('tech@thingsboard.org') },
          email: 'tech@thingsboard.org',
          firstName: 'Terry',
          lastName: 'Tech',
        },
      );
      const a = await c.tenant.request('GET', `/api/users/assign/${alarmOf('Thermo A-101')}?pageSize=50&page=0`);
      assert.deepEqual(emails(a), byId([...TENANT_ADMINS, 'customer@thingsboard.org']));
    });

    it("customer user: the users of the alarm's customer only", async () => {
      const r = await c.customer.request('GET', `/api/users/assign/${alarmOf('Thermo A-101')}?pageSize=50&page=0`);
      assert.deepEqual(emails(r), ['customer@thingsboard.org']);
      assert.deepEqual(
        err(await c.customer.request('GET', `/api/users/assign/${alarmOf('Thermo B-101')}?pageSize=50&page=0`)),
        [403, 20, PERMISSION],
      );
    });

    it('textSearch is ilike on the e-mail only; sorting; paging; errors', async () => {
      const id = alarmOf('Thermo A-101');
      const get = (q: string): Promise<{ status: number; body: Msg }> =>
        c.tenant.request('GET', `/api/users/assign/${id}?${q}`);
      assert.deepEqual(emails(await get('pageSize=50&page=0&textSearch=TECH')), ['tech@thingsboard.org']);
      assert.deepEqual(emails(await get('pageSize=50&page=0&textSearch=Carol')), [], 'first names are not searched');
      assert.deepEqual(
        emails(await get('pageSize=50&page=0&sortProperty=email&sortOrder=DESC')),
        [...TENANT_ADMINS, 'customer@thingsboard.org'].sort().reverse(),
      );
      const page = await get('pageSize=2&page=1&sortProperty=email');
      assert.deepEqual(
        [emails(page), page.body.totalElements, page.body.totalPages, page.body.hasNext],
        [['mfa@thingsboard.org', 'tech@thingsboard.org'], 5, 3, true],
      );
      assert.deepEqual(err(await get('pageSize=0&page=0')), [
        400,
        31,
        "Incorrect page link page size '0'. Page size must be greater than zero.",
      ]);
      assert.deepEqual(err(await get('pageSize=1&page=0&sortProperty=nope')), [500, 46, 'Database error']);
      assert.deepEqual(err(await c.tenant.request('GET', `/api/users/assign/${MISSING}?pageSize=1&page=0`)), [
        404,
        32,
        `Alarm with id [${MISSING}] is not found`,
      ]);
    });
  });

  describe('ids, permissions, versions', () => {
    const actions = (id: string): Array<[string, string, unknown?]> => [
      ['POST', `/api/alarm/${id}/ack`],
      ['POST', `/api/alarm/${id}/clear`],
      ['POST', `/api/alarm/${id}/assign/${MISSING}`],
      ['DELETE', `/api/alarm/${id}/assign`],
      ['POST', `/api/alarm/${id}/comment`, { comment: { text: 'x' } }],
      ['GET', `/api/alarm/${id}/comment?pageSize=10&page=0`],
      ['DELETE', `/api/alarm/${id}`],
      ['GET', `/api/users/assign/${id}?pageSize=10&page=0`],
    ];

    it("a non-UUID id: 400 code 31 with Java's UUID.fromString message; a missing alarm: 404 code 32", async () => {
      for (const [method, path, body] of actions('nope')) {
        assert.deepEqual(
          err(await c.tenant.request(method, path, body)),
          [400, 31, 'Invalid UUID string: nope'],
          `${method} ${path}`,
        );
      }
      for (const [method, path, body] of actions(MISSING)) {
        assert.deepEqual(
          err(await c.tenant.request(method, path, body)),
          [404, 32, `Alarm with id [${MISSING}] is not found`],
          `${method} ${path}`,
        );
      }
      // what Java accepts, and its other messages
      assert.deepEqual(err(await c.tenant.post('/api/alarm/1-1-1-1-1/ack')), [
        404,
        32,
        'Alarm with id [00000001-0001-0001-0001-000000000001] is not found',
      ]);
      assert.equal((await c.tenant.post(`/api/alarm/${alarmOf('Thermo A-101').toUpperCase()}/ack`)).status, 200);
      assert.deepEqual(err(await c.tenant.post('/api/alarm/zz-1-1-1-1/ack')), [400, 31, 'Error at index 0 in: "zz"']);
      assert.deepEqual(err(await c.tenant.post(`/api/alarm/${MISSING}0/ack`)), [400, 31, 'UUID string too large']);
      assert.deepEqual(err(await c.tenant.post('/api/alarm/%20/ack')), [
        400,
        31,
        "Parameter 'alarmId' can't be empty!",
      ]);
      assert.deepEqual(err(await c.tenant.post('/api/alarm/1--1-1-1/ack')), [400, 31, '']);
      c.sim.setVersion('4.4.0');
      assert.deepEqual(err(await c.tenant.post('/api/alarm/1--1-1-1/ack')), [
        400,
        31,
        'For input string: "" under radix 16',
      ]);
    });

    it("a customer user on another customer's alarm: 403 code 20 everywhere", async () => {
      for (const [method, path, body] of actions(alarmOf('Thermo B-101'))) {
        const r = await c.customer.request(method, path, body);
        assert.deepEqual(
          r.body,
          { status: 403, message: PERMISSION, errorCode: 20, timestamp: NOW },
          `${method} ${path}`,
        );
      }
      // a tenant-owned alarm is no customer's
      assert.deepEqual(err(await c.customer.post(`/api/alarm/${alarmOf('Thermo G-201')}/clear`)), [
        403,
        20,
        PERMISSION,
      ]);
    });

    it('the sysadmin: 403 (GET comments: 404 for a missing alarm first); no token: 401', async () => {
      const id = alarmOf('Thermo A-101');
      for (const [method, path, body] of [
        ...actions(id),
        ['POST', '/api/alarm', createBody(dev('Thermo A-101'), 'T', 'MAJOR')] as [string, string, unknown],
      ]) {
        assert.deepEqual(err(await sysadmin.request(method, path, body)), [403, 20, PERMISSION], `${method} ${path}`);
        assert.equal((await c.anon.request(method, path, body)).status, 401);
      }
      assert.deepEqual(err(await sysadmin.request('GET', `/api/alarm/${MISSING}/comment?pageSize=10&page=0`)), [
        404,
        32,
        `Alarm with id [${MISSING}] is not found`,
      ]);
    });

    it('unknown methods are Spring 405s; DELETE /api/alarm/types is deleteAlarm("types")', async () => {
      const r = await c.tenant.request('PUT', `/api/alarm/${alarmOf('Thermo A-101')}/ack`);
      assert.deepEqual([r.status, r.body.error], [405, 'Method Not Allowed']);
      assert.deepEqual(err(await c.tenant.request('DELETE', '/api/alarm/types')), [
        400,
        31,
        'Invalid UUID string: types',
      ]);
    });

    it('before 3.5: ack and clear answer an empty 200 (no "already"); assign, comments, users: unknown paths', async () => {
      c.sim.setVersion('3.4.4');
      const id = alarmOf('Thermo A-101');
      for (let i = 0; i < 2; i++) {
        const r = await c.tenant.post(`/api/alarm/${id}/ack`);
        assert.deepEqual([r.status, r.text], [200, '']);
      }
      assert.equal(c.sim.data.getAlarm(id)?.acknowledged, true);
      assert.equal((await c.tenant.post(`/api/alarm/${id}/assign/${userId('tech@thingsboard.org')}`)).status, 404);
      assert.equal((await c.tenant.post(`/api/alarm/${id}/comment`, { comment: { text: 'x' } })).status, 404);
      assert.equal((await c.tenant.request('GET', `/api/users/assign/${id}?pageSize=1&page=0`)).status, 404);
      assert.equal(c.sim.data.alarmComments(id).length, 0);
    });

    it('javaUuid and noXss', () => {
      assert.equal(javaUuid('123E4567-E89B-12D3-A456-426614174000', false), '123e4567-e89b-12d3-a456-426614174000');
      assert.equal(javaUuid('7fffffffffffffff-1-1-1-1', false), 'ffffffff-0001-0001-0001-000000000001');
      assert.equal(javaUuid('+1-1-1-1-1', false), '00000001-0001-0001-0001-000000000001');
      assert.throws(() => javaUuid('ffffffffffffffff-1-1-1-1', false), /Error at index 15 in: "ffffffffffffffff"/);
      assert.throws(() => javaUuid('1-1-1-1-+', false), /Error at index 1 in: "\+"/);
      assert.throws(() => javaUuid('1-1-1-1-1-', false), /Invalid UUID string: 1-1-1-1-1-/);
      assert.deepEqual(['plain', 'a < b', '<b>x</b>', '<img src=x>', '{{ user.name }}', '{ {x} }'].map(noXss), [
        true,
        true,
        false,
        false,
        false,
        true,
      ]);
    });
  });

  describe('live updates (§6.4): REST actions reach WebSocket subscriptions', () => {
    const alarmQuery = {
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A' },
      pageLink: {
        page: 0,
        pageSize: 50,
        timeWindow: 7 * DAY,
        statusList: [],
        severityList: [],
        typeList: [],
        searchPropagatedAlarms: false,
        sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      },
      alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
      entityFields: [],
      latestValues: [],
      keyFilters: [],
    };
    let ws: TestWs;
    afterEach(() => ws?.terminate());

    it('ALARM_DATA sees ack, clear, assign and comments-free updates as `update`; create and delete re-fetch `data`', async () => {
      ws = await TestWs.auth(c.url, c.sim.tokensFor('customer@thingsboard.org').token, [
        { type: 'ALARM_DATA', cmdId: 7, query: alarmQuery },
      ]);
      const first = await ws.forCmd(7);
      const id = alarmOf('Thermo A-101');
      assert.ok(first.data.data.some((a: Msg) => a.id.id === id));

      await c.customer.post(`/api/alarm/${id}/ack`);
      let m = await ws.forCmd(7);
      assert.deepEqual(
        [m.data, m.update.length, m.update[0].id.id, m.update[0].status, m.update[0].ackTs],
        [null, 1, id, 'ACTIVE_ACK', NOW],
      );

      await c.tenant.post(`/api/alarm/${id}/clear`);
      m = await ws.forCmd(7);
      assert.deepEqual([m.update[0].id.id, m.update[0].status], [id, 'CLEARED_ACK']);

      await c.customer.post(`/api/alarm/${id}/assign/${userId('customer@thingsboard.org')}`);
      m = await ws.forCmd(7);
      assert.equal(m.update[0].assignee.email, 'customer@thingsboard.org');

      await c.customer.post(`/api/alarm/${id}/comment`, { comment: { text: 'a comment changes no alarm' } });
      assert.deepEqual(await ws.probe(), []);

      const created = (await c.tenant.post('/api/alarm', createBody(dev('Thermo A-203'), 'Door Open', 'MAJOR'))).body;
      m = await ws.forCmd(7);
      assert.equal(m.update, null);
      assert.equal(m.data.data[0].id.id, created.id.id, 'a new alarm on page 0: the page again');

      await c.tenant.post('/api/alarm', createBody(dev('Thermo A-203'), 'Door Open', 'CRITICAL'));
      m = await ws.forCmd(7);
      assert.deepEqual([m.update[0].id.id, m.update[0].severity], [created.id.id, 'CRITICAL'], 'the dedup update');

      await c.tenant.request('DELETE', `/api/alarm/${created.id.id}`);
      m = await ws.forCmd(7);
      assert.ok(!m.data.data.some((a: Msg) => a.id.id === created.id.id), 'deleted: the page again without it');
      assert.deepEqual(await ws.probe(), []);
    });

    it('ALARM_STATUS turns false on a REST clear, true on a REST create; ALARM_COUNT follows', async () => {
      const a101 = dev('Thermo A-101');
      ws = await TestWs.auth(c.url, c.sim.tokensFor('tenant@thingsboard.org').token, [
        { type: 'ALARM_STATUS', cmdId: 4, originatorId: a101, typeList: null, severityList: null },
        {
          type: 'ALARM_COUNT',
          cmdId: 5,
          query: { entityFilter: { type: 'singleEntity', singleEntity: a101 }, statusList: ['ACTIVE'] },
        },
      ]);
      assert.equal((await ws.forCmd(4)).active, true);
      assert.equal((await ws.forCmd(5)).count, 1);
      await c.tenant.post(`/api/alarm/${alarmOf('Thermo A-101')}/ack`);
      assert.deepEqual(await ws.probe(), [], 'acknowledgement changes neither');
      await c.tenant.post(`/api/alarm/${alarmOf('Thermo A-101')}/clear`);
      assert.equal((await ws.forCmd(4)).active, false);
      assert.equal((await ws.forCmd(5)).count, 0);
      await c.tenant.post('/api/alarm', createBody(a101, 'High Temperature', 'MAJOR'));
      assert.equal((await ws.forCmd(4)).active, true);
      assert.equal((await ws.forCmd(5)).count, 1);
    });

    it('dataset change events: one per change, in order, comments included', async () => {
      const events: string[] = [];
      const l = (e: ChangeEvent): void => {
        events.push(
          e.kind === 'alarm' ? `alarm:${e.action}` : e.kind === 'alarmComment' ? `comment:${e.comment.type}` : e.kind,
        );
      };
      c.sim.data.on('change', l);
      const r = await c.tenant.post(
        '/api/alarm',
        createBody(dev('Thermo G-103'), 'Filter Dirty', 'MINOR', {
          acknowledged: true,
          assigneeId: { entityType: 'USER', id: userId('tech@thingsboard.org') },
        }),
      );
      await c.tenant.post('/api/alarm', { ...r.body, severity: 'MAJOR' });
      await c.tenant.post(`/api/alarm/${r.body.id.id}/ack`);
      c.sim.data.off('change', l);
      assert.deepEqual(events, [
        'alarm:created',
        'alarm:acknowledged',
        'comment:SYSTEM',
        'alarm:assigned',
        'comment:SYSTEM',
        'alarm:updated',
        'comment:SYSTEM',
      ]);
    });
  });
});
