import assert from 'node:assert/strict';
import { TbApiError, TbError, TbInputError } from '../../src/errors';
import {
  prepareAssignee,
  prepareComment,
  prepareOperation,
  prepareOriginator,
  prepareRaise,
  prepareRaiseSettings,
  type RaiseSettings,
} from '../../src/nodes/tb-alarm-action/logic';
import {
  ALARM_OPERATIONS,
  activeAlarmQuery,
  alarmIdFromMessage,
  findUserByEmail,
  isAlarm,
  isAlarmInfo,
  isAlreadyDone,
  isCreated,
  prepareAlarmId,
  raiseWireBody,
} from '../../src/protocol/alarm-actions';
import { prepareAlarmDataQuery } from '../../src/protocol/validate';
import { throwsInput, U1, U2, U3 } from './helpers';

const already = (message: string, status = 400) =>
  new TbApiError(
    status === 400 ? 'TB_BAD_REQUEST' : 'TB_HTTP_ERROR',
    status,
    31,
    message,
    `ThingsBoard answered HTTP ${status}, errorCode 31: ${message}`,
  );

const SETTINGS: RaiseSettings = prepareRaiseSettings({});

describe('query: alarm actions', () => {
  describe('operation', () => {
    it('accepts the seven operations, trims, and suggests the right case', () => {
      for (const op of ALARM_OPERATIONS) assert.equal(prepareOperation(op, 'msg.operation'), op);
      assert.equal(prepareOperation(' clear ', 'msg.operation'), 'clear');
      throwsInput(
        () => prepareOperation('ACK', 'msg.operation'),
        'msg.operation',
        'must be one of acknowledge, clear, assign, unassign, comment, raise, delete',
        '(got "ACK")',
      );
      throwsInput(() => prepareOperation('Clear', 'msg.operation'), 'msg.operation', 'did you mean "clear"?');
      throwsInput(() => prepareOperation(undefined, 'msg.operation'), 'msg.operation', '(missing)');
      throwsInput(() => prepareOperation('msg', 'msg.operation'), 'msg.operation');
    });
  });

  describe('alarm reference', () => {
    it('every accepted shape gives the UUID', () => {
      assert.equal(prepareAlarmId(U1, 'alarm'), U1);
      assert.equal(prepareAlarmId(` ${U3} `, 'alarm'), U3);
      assert.equal(prepareAlarmId({ entityType: 'ALARM', id: U1 }, 'alarm'), U1);
      assert.equal(
        prepareAlarmId(
          { id: U1, type: 'High Temperature', severity: 'MAJOR', originator: { id: U2, entityType: 'DEVICE' } },
          'msg.payload',
        ),
        U1,
        'flat alarm',
      );
      assert.equal(
        prepareAlarmId(
          { id: { entityType: 'ALARM', id: U1 }, type: 'x', originator: { entityType: 'DEVICE', id: U2 } },
          'msg.payload',
        ),
        U1,
        'raw alarm',
      );
      assert.equal(prepareAlarmId({ id: { id: U1 } }, 'msg.payload'), U1, 'an id object without entityType');
    });

    it('anything else names the field and what is accepted', () => {
      throwsInput(
        () => prepareAlarmId('not-a-uuid', 'alarm'),
        'alarm',
        'must be an alarm id: a UUID, {"entityType": "ALARM"',
        '(got "not-a-uuid")',
      );
      throwsInput(() => prepareAlarmId(42, 'msg.topic'), 'msg.topic', '(got 42)');
      throwsInput(() => prepareAlarmId(undefined, 'alarm'), 'alarm', '(missing)');
      throwsInput(
        () => prepareAlarmId({ id: U1, entityType: 'DEVICE', name: 'Thermo' }, 'msg.payload'),
        'msg.payload',
        'this is a "DEVICE", not an alarm',
      );
      throwsInput(
        () => prepareAlarmId({ id: { entityType: 'DEVICE', id: U1 } }, 'msg.payload'),
        'msg.payload',
        'its id is a "DEVICE" id',
      );
      throwsInput(
        () => prepareAlarmId({ id: 'abc' }, 'msg.payload'),
        'msg.payload.id',
        "must be the alarm's UUID",
        '(got "abc")',
      );
      throwsInput(
        () => prepareAlarmId({ id: { entityType: 'ALARM', id: 7 } }, 'msg.payload'),
        'msg.payload.id.id',
        '(got 7)',
      );
      throwsInput(
        () => prepareAlarmId({ entityId: { entityType: 'DEVICE', id: U1 } }, 'msg.payload'),
        'msg.payload',
        'without an id',
      );
      throwsInput(() => prepareAlarmId([U1], 'alarm'), 'alarm', '(got an array)');
    });

    it('automatic: msg.payload (an object with an id, or an alarm id), then msg.topic', () => {
      assert.equal(
        alarmIdFromMessage({ payload: U1, topic: U2 }),
        U1,
        'an id put in the payload wins over the topic (often a device id)',
      );
      assert.equal(alarmIdFromMessage({ payload: { id: U1 }, topic: U2 }), U1, 'an alarm event wins over the topic');
      assert.equal(alarmIdFromMessage({ payload: { id: { entityType: 'ALARM', id: U1 } } }), U1);
      assert.equal(alarmIdFromMessage({ payload: { comment: 'x' }, topic: U2 }), U2);
      assert.equal(alarmIdFromMessage({ payload: 'anything', topic: { entityType: 'ALARM', id: U2 } }), U2);
      assert.equal(alarmIdFromMessage({ payload: U1 }), U1);
      assert.equal(
        alarmIdFromMessage({ payload: U1, topic: 'alarms/ack' }),
        U1,
        'a topic that is no id does not hide the payload',
      );
      assert.equal(alarmIdFromMessage({ payload: { entityType: 'ALARM', id: U1 }, topic: '' }), U1);
      assert.equal(alarmIdFromMessage({ payload: 1767225600000, topic: U2 }), U2, 'an inject timestamp in the payload');
    });

    it('automatic: the error says where the node looked', () => {
      const e = throwsInput(
        () => alarmIdFromMessage({ payload: 'ack', topic: '' }),
        'msg.payload',
        '(got "ack")',
        'the node looks for the alarm in msg.payload.id, then msg.payload (an alarm id), then msg.topic',
      );
      assert.ok(e instanceof TbInputError);
      throwsInput(
        () => alarmIdFromMessage({ topic: 'alarms' }),
        'msg.topic',
        '(got "alarms")',
        'msg.payload.id, then msg.payload (an alarm id), then msg.topic',
      );
      throwsInput(
        () => alarmIdFromMessage({ payload: { id: U1, entityType: 'DEVICE' } }),
        'msg.payload',
        'not an alarm',
        'looks for the alarm in',
      );
      let err: unknown;
      try {
        alarmIdFromMessage({ payload: '', topic: '' });
      } catch (x) {
        err = x;
      }
      assert.ok(err instanceof TbInputError);
      assert.equal(err.field, 'msg.payload');
      assert.match(
        err.message,
        /^Send the alarm, or its id, in msg\.payload \(msg\.payload and msg\.topic are empty\)$/,
      );
    });
  });

  describe('assignee', () => {
    it('a user id in any form, or an e-mail', () => {
      assert.deepEqual(prepareAssignee(U1, 'msg.assignee'), { id: U1 });
      assert.deepEqual(prepareAssignee({ entityType: 'USER', id: U1 }, 'msg.assignee'), { id: U1 });
      assert.deepEqual(
        prepareAssignee({ id: { entityType: 'USER', id: U1 }, email: 'a@b.c' }, 'msg.assignee'),
        { id: U1 },
        'a user look-up item',
      );
      assert.deepEqual(
        prepareAssignee({ id: U1, firstName: 'A', lastName: 'B', email: 'a@b.c' }, 'msg.assignee'),
        { id: U1 },
        'a flat assignee',
      );
      assert.deepEqual(prepareAssignee(' Tech@ThingsBoard.org ', 'msg.assignee'), { email: 'Tech@ThingsBoard.org' });
      assert.deepEqual(prepareAssignee({ email: 'tech@thingsboard.org' }, 'msg.assignee'), {
        email: 'tech@thingsboard.org',
      });
    });

    it('refuses what is neither', () => {
      throwsInput(() => prepareAssignee(undefined, 'msg.assignee'), 'msg.assignee', 'the user to assign', '(missing)');
      throwsInput(() => prepareAssignee('Terry', 'assignee'), 'assignee', '(got "Terry")');
      throwsInput(() => prepareAssignee('a@b@c', 'assignee'), 'assignee', 'not an e-mail address');
      throwsInput(() => prepareAssignee('te st@x.org', 'assignee'), 'assignee', 'not an e-mail address');
      throwsInput(
        () => prepareAssignee({ entityType: 'DEVICE', id: U1 }, 'msg.assignee'),
        'msg.assignee',
        'not a user',
      );
      throwsInput(
        () => prepareAssignee({ id: { entityType: 'CUSTOMER', id: U1 } }, 'msg.assignee'),
        'msg.assignee',
        '"CUSTOMER" id',
      );
      throwsInput(() => prepareAssignee({ name: 'x' }, 'msg.assignee'), 'msg.assignee', 'without a user id');
      throwsInput(() => prepareAssignee(5, 'msg.assignee'), 'msg.assignee', '(got 5)');
    });

    it('finds the user with exactly that e-mail, in any case', () => {
      const users = [
        { id: { entityType: 'USER', id: U1 }, email: 'tech@thingsboard.org.evil', firstName: null, lastName: null },
        { id: { entityType: 'USER', id: U2 }, email: 'Tech@ThingsBoard.org', firstName: 'Terry', lastName: 'Tech' },
      ] as const;
      assert.equal(findUserByEmail(users as never, 'tech@thingsboard.org')?.id.id, U2);
      assert.equal(findUserByEmail(users as never, 'tech@thingsboard'), undefined);
    });
  });

  describe('comment', () => {
    it('text, trimmed; empty is none unless required', () => {
      assert.equal(prepareComment(' on my way ', 'msg.comment', false), 'on my way');
      assert.equal(prepareComment({ text: 'x' }, 'msg.comment', true), 'x');
      assert.equal(prepareComment(undefined, 'msg.comment', false), undefined);
      assert.equal(prepareComment('  ', 'msg.comment', false), undefined);
      assert.equal(prepareComment(null, 'msg.comment', false), undefined);
      throwsInput(
        () => prepareComment(undefined, 'msg.comment', true),
        'msg.comment',
        "the comment's text",
        '(missing)',
      );
      throwsInput(() => prepareComment('', 'comment', true), 'comment', '(it is empty)');
      throwsInput(() => prepareComment(42, 'msg.comment', false), 'msg.comment', '(a string) (got 42)');
      throwsInput(() => prepareComment({ text: true }, 'msg.comment', false), 'msg.comment', '(got true)');
    });
  });

  describe('raise', () => {
    it('settings: empty means "from msg.payload"; values are checked', () => {
      assert.deepEqual(SETTINGS, {
        type: undefined,
        severity: undefined,
        propagate: false,
        propagateToOwner: false,
        propagateToTenant: false,
        propagateRelationTypes: undefined,
        originatorEntityType: 'DEVICE',
      });
      assert.deepEqual(
        prepareRaiseSettings({
          alarmName: ' Overheating ',
          severity: 'MAJOR',
          propagate: true,
          propagateToTenant: 'true',
          propagateRelationTypes: 'Contains, Manages,',
          originatorEntityType: 'ASSET',
        }),
        {
          type: 'Overheating',
          severity: 'MAJOR',
          propagate: true,
          propagateToOwner: false,
          propagateToTenant: true,
          propagateRelationTypes: ['Contains', 'Manages'],
          originatorEntityType: 'ASSET',
        },
      );
      throwsInput(() => prepareRaiseSettings({ severity: 'major' }), 'severity', 'did you mean "MAJOR"?');
      throwsInput(
        () => prepareRaiseSettings({ severity: 'HIGH' }),
        'severity',
        'must be one of CRITICAL, MAJOR, MINOR, WARNING, INDETERMINATE',
      );
      throwsInput(() => prepareRaiseSettings({ alarmName: 'x'.repeat(256) }), 'alarmName', 'at most 255 characters');
      throwsInput(
        () => prepareRaiseSettings({ originatorEntityType: 'ALARM' }),
        'originatorEntityType',
        '(got "ALARM")',
      );
      throwsInput(() => prepareRaiseSettings({ originatorEntityType: 'GADGET' }), 'originatorEntityType');
    });

    it('originator: every shape', () => {
      const dev = { entityType: 'DEVICE', id: U1 };
      assert.deepEqual(prepareOriginator(dev, 'o', 'DEVICE'), dev);
      assert.deepEqual(prepareOriginator(U1, 'o', 'ASSET'), { entityType: 'ASSET', id: U1 });
      assert.deepEqual(
        prepareOriginator({ id: U1, entityType: 'DEVICE', name: 'Thermo A-101', temperature: 21.5 }, 'o', 'ASSET'),
        dev,
        'flat item',
      );
      assert.deepEqual(prepareOriginator({ entityId: dev, latest: {} }, 'o', 'ASSET'), dev, 'raw item');
      assert.deepEqual(
        prepareOriginator({ id: dev, name: 'Thermo A-101' }, 'o', 'ASSET'),
        dev,
        'an entity as the REST API returns it',
      );
      assert.deepEqual(prepareOriginator({ id: U1 }, 'o', 'EDGE'), { entityType: 'EDGE', id: U1 });
      throwsInput(
        () => prepareOriginator('x', 'msg.payload.originator', 'DEVICE'),
        'msg.payload.originator',
        'the entity to raise the alarm on',
      );
      throwsInput(() => prepareOriginator({ entityType: 'DEVICE' }, 'o', 'DEVICE'), 'o.id');
      throwsInput(() => prepareOriginator({ entityType: 'THING', id: U1 }, 'o', 'DEVICE'), 'o.entityType');
      throwsInput(
        () => prepareOriginator({ entityType: 'ALARM', id: U1 }, 'o', 'DEVICE'),
        'o',
        'an alarm cannot be the originator',
      );
      throwsInput(() => prepareOriginator({ name: 'x' }, 'o', 'DEVICE'), 'o', 'without an id');
      throwsInput(() => prepareOriginator(7, 'o', 'DEVICE'), 'o', '(got 7)');
    });

    it('body: the node wins, msg.payload fills the blanks', () => {
      const origin = { value: { entityType: 'DEVICE', id: U1 }, field: 'msg.payload.originator' };
      const payload = {
        originator: origin.value,
        type: 'High Temperature',
        severity: 'CRITICAL',
        details: { t: 30 },
        propagate: true,
        propagateRelationTypes: ['Contains'],
      };
      assert.deepEqual(
        prepareRaise(SETTINGS, payload, origin, { value: payload.details, field: 'msg.payload.details' }),
        {
          originator: origin.value,
          type: 'High Temperature',
          severity: 'CRITICAL',
          details: { t: 30 },
          propagate: true,
          propagateToOwner: false,
          propagateToTenant: false,
          propagateRelationTypes: ['Contains'],
        },
      );
      const node = prepareRaiseSettings({
        alarmName: 'Overheating',
        severity: 'MINOR',
        propagateToOwner: true,
        propagateRelationTypes: 'Manages',
      });
      const body = prepareRaise(
        node,
        { ...payload, propagateToOwner: false, propagateRelationTypes: 'Contains' },
        origin,
        { value: undefined, field: 'msg.payload.details' },
      );
      assert.equal(body.type, 'Overheating');
      assert.equal(body.severity, 'MINOR');
      assert.equal(body.propagate, true, 'a node false lets msg.payload.propagate set it');
      assert.equal(body.propagateToOwner, true, 'a node true wins');
      assert.deepEqual(body.propagateRelationTypes, ['Manages']);
      assert.ok(!('details' in body), 'no details: the server keeps its default');
      assert.deepEqual(
        prepareRaise(SETTINGS, { type: 'T', severity: 'WARNING', propagateRelationTypes: 'A, B' }, origin, undefined)
          .propagateRelationTypes,
        ['A', 'B'],
      );
    });

    it('body: what is missing or wrong is named', () => {
      const origin = { value: U1, field: 'msg.payload.originator' };
      throwsInput(
        () => prepareRaise(SETTINGS, { severity: 'MAJOR' }, origin, undefined),
        'msg.payload.type',
        'the alarm type',
        '(missing)',
      );
      throwsInput(() => prepareRaise(SETTINGS, { type: 'T' }, origin, undefined), 'msg.payload.severity', '(missing)');
      throwsInput(() => prepareRaise(SETTINGS, 'text', origin, undefined), 'msg.payload.type');
      throwsInput(
        () => prepareRaise(SETTINGS, { type: 'T', severity: 'MAJOR', propagate: 'yes' }, origin, undefined),
        'msg.payload.propagate',
        'true or false',
      );
      throwsInput(
        () => prepareRaise(SETTINGS, { type: 'T', severity: 'MAJOR', propagateRelationTypes: [1] }, origin, undefined),
        'msg.payload.propagateRelationTypes[0]',
      );
      throwsInput(
        () =>
          prepareRaise(
            SETTINGS,
            { type: 'T', severity: 'MAJOR' },
            { value: undefined, field: 'msg.payload.originator' },
            undefined,
          ),
        'msg.payload.originator',
        '(missing)',
      );
      // found by the fuzzer (bench/reliability): details JSON cannot write were a TypeError from the HTTP client
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      for (const value of [cyclic, { n: BigInt(7) }]) {
        throwsInput(
          () =>
            prepareRaise(SETTINGS, { type: 'T', severity: 'MAJOR' }, origin, { value, field: 'msg.payload.details' }),
          'msg.payload.details',
          'must be JSON data',
          'cyclic reference or a BigInt',
        );
      }
    });

    it('the wire body: a customer user names its customer; the active alarm keeps its assignee', () => {
      const body = prepareRaise(SETTINGS, { type: 'T', severity: 'MAJOR' }, { value: U1, field: 'o' }, undefined);
      assert.deepEqual(
        raiseWireBody(
          body,
          {
            authority: 'TENANT_ADMIN',
            customerId: { entityType: 'CUSTOMER', id: '13814000-1dd2-11b2-8080-808080808080' },
          },
          undefined,
        ),
        body,
      );
      const c = raiseWireBody(
        body,
        { authority: 'CUSTOMER_USER', customerId: { entityType: 'CUSTOMER', id: U2 } },
        { assigneeId: { entityType: 'USER', id: U3 } },
      );
      assert.deepEqual(c.customerId, { entityType: 'CUSTOMER', id: U2 });
      assert.deepEqual(c.assigneeId, { entityType: 'USER', id: U3 });
      assert.ok(!('customerId' in body) && !('assigneeId' in body), 'the prepared body is not changed');
      assert.ok(!('assigneeId' in raiseWireBody(body, { authority: 'TENANT_ADMIN' }, { assigneeId: null })));
    });

    it('the look-up of the active alarm is a valid alarm query', () => {
      const q = activeAlarmQuery({ entityType: 'DEVICE', id: U1 }, 'High Temperature');
      assert.deepEqual(prepareAlarmDataQuery(q), q);
      assert.deepEqual(q.pageLink.statusList, ['ACTIVE']);
      assert.deepEqual(q.pageLink.typeList, ['High Temperature']);
      assert.equal(q.pageLink.searchPropagatedAlarms, false);
    });

    it("created or updated: an id that was active before, else the server's timestamps", () => {
      const id = { entityType: 'ALARM' as const, id: U1 };
      assert.equal(
        isCreated([], { id, createdTime: 1000, endTs: 1000 }),
        true,
        'created: createdTime is taken after endTs',
      );
      assert.equal(isCreated([], { id, createdTime: 1001, endTs: 1000 }), true);
      assert.equal(isCreated([], { id, createdTime: 500, endTs: 1000 }), false, 'updated: created before this request');
      assert.equal(
        isCreated([U1], { id, createdTime: 1000, endTs: 1000 }),
        false,
        'found active before: updated, whatever the clock',
      );
      assert.equal(
        isCreated([U2], { id, createdTime: 1000, endTs: 1000 }),
        true,
        'the active one was cleared meanwhile: a new alarm',
      );
    });
  });

  describe('answers', () => {
    it('recognises exactly the four "already" answers, each for its own operation', () => {
      assert.equal(isAlreadyDone('acknowledge', already('Alarm was already acknowledged!')), true);
      assert.equal(isAlreadyDone('clear', already('Alarm was already cleared!')), true);
      assert.equal(isAlreadyDone('assign', already('Alarm was already assigned to this user!')), true);
      assert.equal(isAlreadyDone('unassign', already('Alarm was already unassigned!')), true);
      assert.equal(
        isAlreadyDone('clear', already('Alarm was already acknowledged!')),
        false,
        "another operation's answer",
      );
      assert.equal(isAlreadyDone('acknowledge', already('Alarm was already acknowledged!', 500)), false, 'not a 400');
      assert.equal(isAlreadyDone('acknowledge', already('Alarm was already acknowledged by someone')), false);
      assert.equal(isAlreadyDone('comment', already('Alarm was already acknowledged!')), false);
      assert.equal(
        isAlreadyDone('acknowledge', new TbError('TB_BAD_REQUEST', 'Alarm was already acknowledged!')),
        false,
        'only a server answer',
      );
    });

    it('tells an AlarmInfo from an Alarm', () => {
      const alarm = { id: { entityType: 'ALARM', id: U1 }, type: 'T', createdTime: 1 };
      assert.equal(isAlarm(alarm), true);
      assert.equal(isAlarmInfo(alarm), false);
      assert.equal(isAlarmInfo({ ...alarm, originatorName: 'Thermo', assignee: null }), true);
      assert.equal(isAlarm(true), false);
      assert.equal(isAlarm({ id: U1 }), false);
    });
  });
});
