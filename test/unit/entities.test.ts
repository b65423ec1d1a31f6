/**
 * The pure part of entity management: a row read as what it asks for (clear errors naming the field), the body of a
 * create, and the merge of an update (the entity as read, only the row's fields changed; nothing to change = no
 * write), which keeps what the server would otherwise drop.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { createBody, mergeUpdate, readSpec } from '../../src/protocol/entities';

describe('entity management: rows, create bodies, merged updates', function () {
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
