/**
 * The pure part of entity management: a row read as what it asks for (clear errors naming the field), the body of a
 * create, and the merge of an update (the entity as read, only the row's fields changed; nothing to change = no
 * write), which keeps what the server would otherwise drop.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { createBody, mergeUpdate, readSpec } from '../../src/protocol/entities';

describe('entity management: rows, create bodies, merged updates', function () {
  const DEV = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

  it("reads an entity view's row: its own type, the entity by name or id, keys (lists or CSV text), the window", function () {
    const s = readSpec(
      {
        name: 'V-1',
        type: 'roomView',
        entityName: 'Thermo A-101',
        timeseries: 'temperature, humidity',
        attributes: { server: ['model'], client: '' },
        startTime: '1000',
        endTime: 0,
        description: 'hall',
      },
      'ENTITY_VIEW',
      'msg.payload[1]',
    );
    assert.deepEqual(s, {
      type: 'ENTITY_VIEW',
      name: 'V-1',
      description: 'hall',
      view: {
        field: 'msg.payload[1]',
        viewType: 'roomView',
        entityName: 'Thermo A-101',
        timeseries: ['temperature', 'humidity'],
        attributes: { server: ['model'], client: [] },
        startTime: 1000,
        endTime: 0,
      },
    });
    const byId = readSpec({ name: 'V', entity: { entityType: 'asset', id: DEV.toUpperCase() } }, 'ENTITY_VIEW', 'r');
    assert.deepEqual(byId.view, { field: 'r', entity: { entityType: 'ASSET', id: DEV } });
    assert.equal(byId.attributes, undefined, "a view's attributes are keys, never attributes to set");
  });

  it('bad view rows name the field: a profile or label, an entity that is no device or asset, bad keys or times', function () {
    const bad = (row: Record<string, unknown>, field: string, re: RegExp): void =>
      assert.throws(
        () => readSpec({ name: 'V', ...row }, 'ENTITY_VIEW', 'msg.payload[2]'),
        (e: unknown) => e instanceof TbInputError && e.field === field && re.test(e.message),
      );
    bad({ profile: 'thermostat' }, 'msg.payload[2].profile', /no profile/);
    bad({ label: 'x' }, 'msg.payload[2].label', /no label/);
    bad({ entity: { entityType: 'CUSTOMER', id: DEV } }, 'msg.payload[2].entity.entityType', /DEVICE or ASSET/);
    bad({ entity: { id: 'nope' } }, 'msg.payload[2].entity', /\{entityType, id\}/);
    bad({ entityName: 'X', entityType: 'USER' }, 'msg.payload[2].entityType', /DEVICE or ASSET/);
    bad({ timeseries: [1] }, 'msg.payload[2].timeseries', /list of key names/);
    bad({ attributes: { private: ['a'] } }, 'msg.payload[2].attributes.private', /client, shared or server/);
    bad({ attributes: ['a'] }, 'msg.payload[2].attributes', /\{client, shared, server\}/);
    bad({ startTime: -1 }, 'msg.payload[2].startTime', /milliseconds/);
    bad({ endTime: 'soon' }, 'msg.payload[2].endTime', /milliseconds/);
    bad({ startTime: 2000, endTime: 1000 }, 'msg.payload[2].endTime', /after/);
  });

  it("a view's create body: type, entityId, keys as cs/sh/ss, the window (0 = unbounded)", function () {
    const spec = readSpec(
      { name: 'V', type: 't', entity: { entityType: 'DEVICE', id: DEV }, attributes: { shared: ['mode'] } },
      'ENTITY_VIEW',
      'r',
    );
    assert.deepEqual(createBody(spec), {
      name: 'V',
      type: 't',
      entityId: { entityType: 'DEVICE', id: DEV },
      keys: { timeseries: [], attributes: { cs: [], sh: ['mode'], ss: [] } },
      startTimeMs: 0,
      endTimeMs: 0,
    });
  });

  it("a view's update changes only the row's fields: other scopes' keys, the customer and the window are kept", function () {
    const current = {
      id: { entityType: 'ENTITY_VIEW', id: 'v1' },
      version: 3,
      name: 'V',
      type: 't',
      customerId: { entityType: 'CUSTOMER', id: 'c1' },
      entityId: { entityType: 'DEVICE', id: DEV },
      keys: { timeseries: ['a'], attributes: { cs: ['x'], sh: [], ss: ['y'] } },
      startTimeMs: 10,
      endTimeMs: 20,
      additionalInfo: { description: 'd' },
    };
    const body = mergeUpdate(
      readSpec({ name: 'V', attributes: { shared: ['z'] }, endTime: 0 }, 'ENTITY_VIEW', 'r'),
      current,
    );
    assert.deepEqual(body, {
      ...current,
      keys: { timeseries: ['a'], attributes: { cs: ['x'], sh: ['z'], ss: ['y'] } },
      endTimeMs: 0,
    });
    assert.equal(mergeUpdate(readSpec({ name: 'V', type: 't', timeseries: ['a'] }, 'ENTITY_VIEW', 'r'), current), null);
    const retyped = mergeUpdate(readSpec({ name: 'V', type: 'u' }, 'ENTITY_VIEW', 'r'), current) as Record<
      string,
      unknown
    >;
    assert.deepEqual([retyped.type, retyped.keys, retyped.customerId], ['u', current.keys, current.customerId]);
  });

  it('reads a CSV-like row: text booleans, profile from "type", attributes kept as an object', function () {
    const s = readSpec(
      { name: 'D-1', type: 'thermostat', label: 'Hall', gateway: 'yes', attributes: { floor: 2 } },
      'DEVICE',
      'msg.payload[0]',
    );
    assert.deepEqual(s, {
      type: 'DEVICE',
      name: 'D-1',
      profile: 'thermostat',
      label: 'Hall',
      gateway: true,
      attributes: { floor: 2 },
    });
    assert.deepEqual(readSpec({ title: 'ACME', email: 'a@b.c' }, 'CUSTOMER', 'msg.payload'), {
      type: 'CUSTOMER',
      name: 'ACME',
      contact: { email: 'a@b.c' },
    });
  });

  it('bad rows are TbInputErrors naming the field', function () {
    const bad = (row: unknown, field: string, re: RegExp): void =>
      assert.throws(
        () => readSpec(row, 'DEVICE', 'msg.payload[3]'),
        (e: unknown) => e instanceof TbInputError && e.field === field && re.test(e.message),
      );
    bad({ label: 'x' }, 'msg.payload[3].name', /name is required/);
    bad({ name: '  ' }, 'msg.payload[3].name', /name is required/);
    bad('D-1', 'msg.payload[3]', /as an object.*text/);
    bad({ name: 'D', gateway: 'maybe' }, 'msg.payload[3].gateway', /true or false/);
    bad({ name: 'D', attributes: [1] }, 'msg.payload[3].attributes', /a list/);
    bad({ name: 'x'.repeat(256) }, 'msg.payload[3].name', /255/);
  });

  it('a create body names the profile by name and puts description and gateway in additionalInfo', function () {
    assert.deepEqual(
      createBody(readSpec({ name: 'D', profile: 'meter', description: 'roof', gateway: false }, 'DEVICE', 'r')),
      {
        name: 'D',
        type: 'meter',
        additionalInfo: { description: 'roof', gateway: false },
      },
    );
    assert.deepEqual(createBody(readSpec({ name: 'C', phone: '1' }, 'CUSTOMER', 'r')), { title: 'C', phone: '1' });
  });

  it('an update keeps customerId, version, profile id and the other additionalInfo keys', function () {
    const current = {
      id: { entityType: 'DEVICE', id: 'd1' },
      version: 4,
      name: 'D',
      type: 'thermostat',
      label: 'old',
      customerId: { entityType: 'CUSTOMER', id: 'c1' },
      deviceProfileId: { entityType: 'DEVICE_PROFILE', id: 'p1' },
      additionalInfo: { gateway: true, overwriteActivityTime: false, description: 'a' },
    };
    const body = mergeUpdate(readSpec({ name: 'D', description: 'b' }, 'DEVICE', 'r'), current);
    assert.deepEqual(body, {
      ...current,
      additionalInfo: { gateway: true, overwriteActivityTime: false, description: 'b' },
    });
    // a new profile: the profile id goes, its name is sent
    const moved = mergeUpdate(readSpec({ name: 'D', profile: 'meter' }, 'DEVICE', 'r'), current) as Record<
      string,
      unknown
    >;
    assert.equal(moved.deviceProfileId, undefined);
    assert.equal(moved.type, 'meter');
    assert.deepEqual(moved.customerId, current.customerId);
    // nothing to change: no write
    assert.equal(
      mergeUpdate(readSpec({ name: 'D', label: 'old', profile: 'thermostat' }, 'DEVICE', 'r'), current),
      null,
    );
  });

  it("a customer's update drops the read-only name and changes the title on rename", function () {
    const current = { id: { entityType: 'CUSTOMER', id: 'c' }, title: 'A', name: 'A', email: null, version: 2 };
    assert.deepEqual(mergeUpdate(readSpec({ title: 'A', rename: 'B' }, 'CUSTOMER', 'r'), current), {
      id: current.id,
      title: 'B',
      email: null,
      version: 2,
    });
  });
});
