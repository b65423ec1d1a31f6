/**
 * The entity management client against the simulator over loopback: create or update by name (created, updated,
 * unchanged), the traps the client must step around (a whole-object update keeps the customer and the gateway flag,
 * an unknown profile is refused before anything is written, a 409 is read again and retried once, then reported, a
 * duplicate met on create is an update), attributes after a create, delete, assign, unassign, the access token, and
 * a customer user's by-name look-up told in words.
 */
import assert from 'node:assert/strict';
import { TbApiError, TbError, TbInputError } from '../../src/errors';
import { PlatformClient } from '../../src/platform/client';
import { readSpec } from '../../src/protocol/entities';
import { useSimSetup } from '../support/simulator';

describe('platform: entity management client', function () {
  const c = useSimSetup({}, { perTest: true });
  const clients: PlatformClient[] = [];
  const client = (username = 'tenant@thingsboard.org', password = 'tenant'): PlatformClient => {
    const p = new PlatformClient({ url: c.url, authMode: 'password', credentials: { username, password } });
    clients.push(p);
    return p;
  };
  afterEach(() => {
    for (const p of clients.splice(0)) p.close();
  });
  const dev = (row: Record<string, unknown>) => readSpec(row, 'DEVICE', 'msg.payload');

  it('create or update: created, then updated with only the given fields, then unchanged', async () => {
    const e = client().entities;
    const a = await e.save(
      dev({ name: 'U-1', profile: 'thermostat', gateway: true, attributes: { floor: 3 } }),
      'upsert',
    );
    assert.equal(a.action, 'created');
    const stored = c.sim.data.mustFindByName('DEVICE', 'U-1');
    assert.equal(stored.type, 'thermostat');
    assert.equal(c.sim.data.getAttribute(stored, 'SERVER_SCOPE', 'floor')?.value, 3);
    // assigned meanwhile: the update must keep the customer and the gateway flag
    const custA = c.sim.data.mustFindByName('CUSTOMER', 'Customer A');
    c.sim.data.updateEntity(stored, { customerId: custA.id });
    const b = await e.save(dev({ name: 'U-1', label: 'Hall' }), 'upsert');
    assert.equal(b.action, 'updated');
    assert.equal((b.entity.customerId as { id: string }).id, custA.id);
    assert.deepEqual(b.entity.additionalInfo, { gateway: true });
    assert.equal(b.entity.type, 'thermostat');
    const n = await e.save(dev({ name: 'U-1', label: 'Hall' }), 'upsert');
    assert.equal(n.action, 'unchanged');
  });

  it('an unknown profile is refused before anything is written (no profile, no device)', async () => {
    await assert.rejects(
      client().entities.save(dev({ name: 'P-1', profile: 'thermostaat' }), 'upsert'),
      (err: unknown) => err instanceof TbInputError && /thermostaat.*never created/.test(err.message),
    );
    assert.equal(c.sim.data.findByName('DEVICE_PROFILE', 'thermostaat'), undefined);
    assert.equal(c.sim.data.findByName('DEVICE', 'P-1'), undefined);
  });

  it('a 409 is read again and retried once; twice is reported', async () => {
    const e = client().entities;
    await e.save(dev({ name: 'R-1' }), 'create');
    c.sim.entities.setBehaviour({ concurrentWrites: 1 });
    const ok = await e.save(dev({ name: 'R-1', label: 'x' }), 'update');
    assert.equal(ok.action, 'updated');
    assert.equal(c.sim.data.mustFindByName('DEVICE', 'R-1').label, 'x');
    c.sim.entities.setBehaviour({ concurrentWrites: 2 });
    await assert.rejects(
      e.save(dev({ name: 'R-1', label: 'y' }), 'update'),
      (err: unknown) =>
        err instanceof TbApiError && err.status === 409 && /changed by someone else twice/.test(err.message),
    );
    assert.equal(c.sim.data.mustFindByName('DEVICE', 'R-1').label, 'x');
  });

  it('create only / update only: an existing name or a missing one is an error, nothing written', async () => {
    const e = client().entities;
    await assert.rejects(
      e.save(dev({ name: 'Thermo A-101' }), 'create'),
      (err: unknown) => err instanceof TbError && err.code === 'TB_BAD_REQUEST',
    );
    await assert.rejects(
      e.save(dev({ name: 'Nope' }), 'update'),
      (err: unknown) => err instanceof TbError && err.code === 'TB_NOT_FOUND',
    );
    assert.equal(c.sim.data.findByName('DEVICE', 'Nope'), undefined);
  });

  it('a failure after a create says what was created', async () => {
    c.sim.faults.add({ path: /\/attributes\/SERVER_SCOPE$/, status: 500 });
    await assert.rejects(
      client().entities.save(dev({ name: 'F-1', attributes: { a: 1 } }), 'upsert'),
      (err: unknown) =>
        err instanceof TbError && /"F-1" was created \(id [0-9a-f-]{36}\), but its attributes/.test(err.message),
    );
    assert.ok(c.sim.data.findByName('DEVICE', 'F-1'));
  });

  it('delete, assign, unassign (twice: no error), the access token read and set', async () => {
    const e = client().entities;
    await e.save(dev({ name: 'L-1' }), 'create');
    const a = await e.assign('DEVICE', 'L-1', 'Customer B');
    assert.equal((a.customerId as { id: string }).id, c.sim.data.mustFindByName('CUSTOMER', 'Customer B').id);
    assert.equal((await e.unassign('DEVICE', 'L-1')).action, 'unassigned');
    assert.equal((await e.unassign('DEVICE', 'L-1')).action, 'unchanged');
    const cr = await e.setAccessToken('L-1', 'new-token-1');
    assert.equal(cr.credentials.credentialsId, 'new-token-1');
    assert.equal((await e.credentials('L-1')).credentials.credentialsId, 'new-token-1');
    await e.remove('DEVICE', 'L-1');
    assert.equal(c.sim.data.findByName('DEVICE', 'L-1'), undefined);
    await assert.rejects(
      e.remove('DEVICE', 'L-1'),
      (err: unknown) => err instanceof TbError && err.code === 'TB_NOT_FOUND',
    );
  });

  const view = (row: Record<string, unknown>) => readSpec(row, 'ENTITY_VIEW', 'msg.payload');

  it('an entity view: created with its entity by name, updated keeping the rest, unchanged, then 409 retried', async () => {
    const e = client().entities;
    const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const a = await e.save(
      view({ name: 'CV-1', type: 'roomView', entityName: 'Thermo A-101', timeseries: ['temperature'] }),
      'upsert',
    );
    assert.equal(a.action, 'created');
    assert.deepEqual(a.entity.entityId, { entityType: 'DEVICE', id: dev.id });
    assert.deepEqual(a.entity.keys, { timeseries: ['temperature'], attributes: { cs: [], sh: [], ss: [] } });
    const stored = c.sim.data.mustFindByName('ENTITY_VIEW', 'CV-1');
    const custA = c.sim.data.mustFindByName('CUSTOMER', 'Customer A');
    c.sim.data.updateEntity(stored, { customerId: custA.id });
    const b = await e.save(view({ name: 'CV-1', attributes: { server: ['model'] }, startTime: 5 }), 'upsert');
    assert.equal(b.action, 'updated');
    assert.deepEqual(
      [(b.entity.customerId as { id: string }).id, b.entity.type, b.entity.keys, b.entity.startTimeMs],
      [custA.id, 'roomView', { timeseries: ['temperature'], attributes: { cs: [], sh: [], ss: ['model'] } }, 5],
    );
    assert.deepEqual(b.entity.entityId, { entityType: 'DEVICE', id: dev.id });
    assert.equal((await e.save(view({ name: 'CV-1', type: 'roomView' }), 'upsert')).action, 'unchanged');
    c.sim.entities.setBehaviour({ concurrentWrites: 1 });
    const r = await e.save(view({ name: 'CV-1', type: 'other' }), 'update');
    assert.deepEqual([r.action, r.entity.type], ['updated', 'other']);
    assert.equal(c.sim.entities.behaviour().concurrentWrites, 0, 'the 409 was met and retried');
  });

  it('an entity view: an unknown entity names the field; a new one needs its type and entity; nothing written', async () => {
    const e = client().entities;
    const rejects = (row: Record<string, unknown>, field: string, re: RegExp) =>
      assert.rejects(
        e.save(view(row), 'upsert'),
        (err: unknown) => err instanceof TbInputError && err.field === field && re.test(err.message),
      );
    await rejects(
      { name: 'CV-2', type: 't', entityName: 'Nope' },
      'msg.payload.entityName',
      /no device is named "Nope"/,
    );
    await rejects(
      { name: 'CV-2', type: 't', entityName: 'Building Alpha' },
      'msg.payload.entityName',
      /set entityType to ASSET/,
    );
    await rejects(
      { name: 'CV-2', type: 't', entity: { entityType: 'ASSET', id: '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f' } },
      'msg.payload.entity',
      /no asset has the id 5f3c9a10/,
    );
    await rejects({ name: 'CV-2', entityName: 'Thermo A-101' }, 'msg.payload.type', /free text/);
    await rejects({ name: 'CV-2', type: 't' }, 'msg.payload.entityName', /device or asset it shows/);
    assert.equal(c.sim.data.findByName('ENTITY_VIEW', 'CV-2'), undefined);
    const asset = c.sim.data.mustFindByName('ASSET', 'Building Alpha');
    const ok = await e.save(view({ name: 'CV-2', type: 't', entity: { entityType: 'ASSET', id: asset.id } }), 'create');
    assert.deepEqual(ok.entity.entityId, { entityType: 'ASSET', id: asset.id });
  });

  it('an entity view: get, assign, unassign, delete; the viewed device cannot be deleted meanwhile', async () => {
    const e = client().entities;
    await e.save(dev({ name: 'L-9' }), 'create');
    await e.save(view({ name: 'CV-3', type: 't', entityName: 'L-9' }), 'create');
    assert.equal((await e.mustFind('ENTITY_VIEW', 'CV-3')).name, 'CV-3');
    const custB = c.sim.data.mustFindByName('CUSTOMER', 'Customer B');
    const a = await e.assign('ENTITY_VIEW', 'CV-3', 'Customer B');
    assert.equal((a.customerId as { id: string }).id, custB.id);
    assert.equal((await e.unassign('ENTITY_VIEW', 'CV-3')).action, 'unassigned');
    assert.equal((await e.unassign('ENTITY_VIEW', 'CV-3')).action, 'unchanged');
    await assert.rejects(
      e.remove('DEVICE', 'L-9'),
      (err: unknown) =>
        err instanceof TbApiError &&
        err.status === 400 &&
        /Could not delete the device "L-9".*has entity views/.test(err.message),
    );
    await e.remove('ENTITY_VIEW', 'CV-3');
    assert.equal(c.sim.data.findByName('ENTITY_VIEW', 'CV-3'), undefined);
    await e.remove('DEVICE', 'L-9');
    await assert.rejects(
      e.mustFind('ENTITY_VIEW', 'CV-3'),
      (err: unknown) =>
        err instanceof TbError && err.code === 'TB_NOT_FOUND' && /no entity view is named/.test(err.message),
    );
  });

  it("a customer user's by-name look-up is told in words", async () => {
    await assert.rejects(
      client('customer@thingsboard.org', 'customer').entities.findByName('DEVICE', 'Thermo A-101'),
      (err: unknown) =>
        err instanceof TbError && err.code === 'TB_PERMISSION' && /Log in as a tenant administrator/.test(err.message),
    );
  });
});
