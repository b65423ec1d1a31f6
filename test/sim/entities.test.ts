/**
 * The simulator's entity management, as the server's device, asset and customer controllers answer: create and
 * update by the same POST, the whole object replaced on update (the traps), versions and the 409, duplicate names
 * (400/31), profiles created by an unknown `type`, by-name lookups, assign and unassign, delete refusals, a device's
 * credentials, a customer user's limits, the tenant's entity limits and a concurrent writer.
 */
import assert from 'node:assert/strict';
import { useSimSetup } from '../support/simulator';

describe('simulator: entity management (devices, assets, customers, entity views)', function () {
  const c = useSimSetup({}, { perTest: true });
  const custA = () => c.sim.data.mustFindByName('CUSTOMER', 'Customer A');

  it('creates a device: version 1, the default profile, tenant-owned, with an access token', async () => {
    const r = await c.tenant.post('/api/device', { name: 'New-1', label: 'L' });
    assert.equal(r.status, 200);
    assert.equal(r.body.version, 1);
    assert.equal(r.body.type, 'default');
    assert.equal(r.body.deviceProfileId.id, c.sim.data.mustFindByName('DEVICE_PROFILE', 'default').id);
    assert.equal(r.body.customerId.id, '13814000-1dd2-11b2-8080-808080808080');
    assert.equal(r.body.additionalInfo, null);
    const cr = await c.tenant.request('GET', `/api/device/${r.body.id.id}/credentials`);
    assert.equal(cr.body.credentialsType, 'ACCESS_TOKEN');
    assert.match(cr.body.credentialsId, /^[A-Za-z0-9]{20}$/);
    assert.equal(cr.body.deviceId.id, r.body.id.id);
  });

  it('a duplicate name is 400 code 31 (not 409), for devices, assets and customers', async () => {
    let r = await c.tenant.post('/api/device', { name: 'Thermo A-101' });
    assert.deepEqual([r.status, r.body.errorCode, r.body.message], [400, 31, 'Device with such name already exists!']);
    r = await c.tenant.post('/api/asset', { name: 'Building Alpha' });
    assert.equal(r.body.message, 'Asset with such name already exists!');
    r = await c.tenant.post('/api/customer', { title: 'Customer A' });
    assert.equal(r.body.message, 'Customer with such title already exists!');
    r = await c.tenant.post('/api/customer', { title: 'Public' });
    assert.equal(r.body.message, "'Public' title for customer is system reserved!");
    r = await c.tenant.post('/api/device', { name: ' ' });
    assert.equal(r.body.message, 'Device name should be specified!');
  });

  it('an update replaces the whole object: no customerId unassigns, no additionalInfo clears, no profile → default', async () => {
    const made = await c.tenant.ok('/api/device', {
      name: 'Gw-9',
      type: 'thermostat',
      customerId: { entityType: 'CUSTOMER', id: custA().id },
      additionalInfo: { gateway: true, description: 'roof' },
    });
    assert.equal(made.customerId.id, custA().id);
    assert.equal(made.type, 'thermostat');
    const r = await c.tenant.post('/api/device', { id: made.id, name: 'Gw-9', version: made.version });
    assert.equal(r.status, 200);
    assert.equal(r.body.version, 2);
    assert.equal(r.body.customerId.id, '13814000-1dd2-11b2-8080-808080808080');
    assert.equal(r.body.additionalInfo, null);
    assert.equal(r.body.type, 'default');
    assert.equal(r.body.label, null);
  });

  it('a type with no profile id and an unknown name creates that profile; an unknown profile id is 400', async () => {
    assert.equal(c.sim.data.findByName('DEVICE_PROFILE', 'thermostaat'), undefined);
    const r = await c.tenant.post('/api/device', { name: 'Typo-1', type: 'thermostaat' });
    assert.equal(r.status, 200);
    assert.ok(c.sim.data.findByName('DEVICE_PROFILE', 'thermostaat'));
    const bad = await c.tenant.post('/api/asset', {
      name: 'A-x',
      assetProfileId: { entityType: 'ASSET_PROFILE', id: '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f' },
    });
    assert.deepEqual([bad.status, bad.body.message], [400, 'Asset is referencing non existing asset profile!']);
  });

  it('a stale version is 409 code 35; a missing version overwrites; a concurrent writer makes the next one stale', async () => {
    const d = await c.tenant.ok('/api/device', { name: 'V-1' });
    const u = await c.tenant.ok('/api/device', { ...d, label: 'one' });
    assert.equal(u.version, 2);
    const stale = await c.tenant.post('/api/device', { ...d, label: 'two' });
    assert.deepEqual(
      [stale.status, stale.body.errorCode, stale.body.message],
      [409, 35, 'Device was already changed by someone else'],
    );
    const forced = await c.tenant.ok('/api/device', { ...d, version: null, label: 'three' });
    assert.equal(forced.version, 3);
    c.sim.entities.setBehaviour({ concurrentWrites: 1 });
    const raced = await c.tenant.post('/api/device', { ...forced, label: 'four' });
    assert.equal(raced.status, 409);
    const again = await c.tenant.request('GET', `/api/device/${d.id.id}`);
    assert.equal(again.body.version, 4);
    assert.equal((await c.tenant.post('/api/device', { ...again.body, label: 'five' })).status, 200);
  });

  it('by name: the entity, or 404 (the customer with its own message); get by id of an unknown one is 404', async () => {
    const r = await c.tenant.request('GET', '/api/tenant/devices?deviceName=Thermo%20A-101');
    assert.equal(r.body.name, 'Thermo A-101');
    assert.equal(r.body.version, 1);
    const none = await c.tenant.request('GET', '/api/tenant/assets?assetName=Nope');
    assert.deepEqual([none.status, none.body.message], [404, "Requested item wasn't found!"]);
    const cu = await c.tenant.request('GET', '/api/tenant/customers?customerTitle=Nope');
    assert.deepEqual([cu.status, cu.body.message], [404, 'Customer with title [Nope] is not found']);
    const id = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
    const g = await c.tenant.request('GET', `/api/device/${id}`);
    assert.deepEqual([g.status, g.body.message], [404, `Device with id [${id}] is not found`]);
    const bad = await c.tenant.request('GET', '/api/device/xyz');
    assert.deepEqual([bad.status, bad.body.message], [400, 'Invalid UUID string: xyz']);
  });

  it('assign and unassign bump the version; unassigning an unassigned device is 400', async () => {
    const d = await c.tenant.ok('/api/device', { name: 'As-1' });
    const a = await c.tenant.post(`/api/customer/${custA().id}/device/${d.id.id}`);
    assert.deepEqual([a.status, a.body.customerId.id, a.body.version], [200, custA().id, 2]);
    const u = await c.tenant.request('DELETE', `/api/customer/device/${d.id.id}`);
    assert.deepEqual(
      [u.status, u.body.customerId.id, u.body.version],
      [200, '13814000-1dd2-11b2-8080-808080808080', 3],
    );
    const again = await c.tenant.request('DELETE', `/api/customer/device/${d.id.id}`);
    assert.deepEqual([again.status, again.body.message], [400, "Device isn't assigned to any customer!"]);
  });

  it('credentials: an update needs the record id; a token in use is refused, also on create (nothing created)', async () => {
    const d = await c.tenant.ok('/api/device?accessToken=tok-one', { name: 'Cr-1' });
    const cr = (await c.tenant.request('GET', `/api/device/${d.id.id}/credentials`)).body;
    assert.equal(cr.credentialsId, 'tok-one');
    const noId = await c.tenant.post('/api/device/credentials', { ...cr, id: undefined, credentialsId: 'x' });
    assert.deepEqual([noId.status, noId.body.message], [400, 'Credentials for this device are already specified!']);
    const ok = await c.tenant.ok('/api/device/credentials', { ...cr, credentialsId: 'tok-two' });
    assert.equal(ok.credentialsId, 'tok-two');
    assert.equal(ok.version, 2);
    const dup = await c.tenant.post('/api/device?accessToken=tok-two', { name: 'Cr-2' });
    assert.deepEqual(
      [dup.status, dup.body.message],
      [400, 'Device credentials are already assigned to another device!'],
    );
    assert.equal(c.sim.data.findByName('DEVICE', 'Cr-2'), undefined);
  });

  it('delete: 200 empty; a device with an entity view is refused; a customer delete unassigns its devices', async () => {
    const d = await c.tenant.ok('/api/device', { name: 'Del-1' });
    const r = await c.tenant.request('DELETE', `/api/device/${d.id.id}`);
    assert.deepEqual([r.status, r.text], [200, '']);
    assert.equal(c.sim.data.findByName('DEVICE', 'Del-1'), undefined);
    const viewed = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const v = await c.tenant.request('DELETE', `/api/device/${viewed.id}`);
    assert.deepEqual(
      [v.status, v.body.message],
      [400, "Can't delete device that has entity views or is referenced in calculated fields!"],
    );
    const cust = await c.tenant.ok('/api/customer', { title: 'Gone Ltd', email: 'a@b.c' });
    assert.equal(cust.title, 'Gone Ltd');
    assert.equal(cust.email, 'a@b.c');
    const dev = await c.tenant.ok('/api/device', { name: 'Del-2', customerId: cust.id });
    assert.equal((await c.tenant.request('DELETE', `/api/customer/${cust.id.id}`)).status, 200);
    assert.equal(c.sim.data.mustFindByName('DEVICE', 'Del-2').customerId, null);
    assert.equal((await c.tenant.request('GET', `/api/device/${dev.id.id}`)).body.version, 2);
  });

  it("a customer user: no create, no delete, no credentials write, no by-name; updates its customer's devices", async () => {
    let r = await c.customer.post('/api/device', { name: 'Cu-1' });
    assert.deepEqual([r.status, r.body.errorCode], [403, 20]);
    r = await c.customer.request('GET', '/api/tenant/devices?deviceName=Thermo%20A-101');
    assert.equal(r.status, 403);
    const mine = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    r = await c.customer.request('DELETE', `/api/device/${mine.id}`);
    assert.equal(r.status, 403);
    const got = await c.customer.request('GET', `/api/device/${mine.id}`);
    assert.equal(got.status, 200);
    r = await c.customer.post('/api/device', { ...got.body, label: 'by customer' });
    assert.deepEqual([r.status, r.body.label], [200, 'by customer']);
    const cr = await c.customer.request('GET', `/api/device/${mine.id}/credentials`);
    assert.equal(cr.status, 200);
    r = await c.customer.post('/api/device/credentials', cr.body);
    assert.equal(r.status, 403);
    const other = c.sim.data.mustFindByName('DEVICE', 'Thermo B-101');
    assert.equal((await c.customer.request('GET', `/api/device/${other.id}`)).status, 403);
  });

  it("the tenant's entity limit: 403 code 41 with entityType and limit", async () => {
    const n = c.sim.data.list('ASSET').length;
    c.sim.entities.setBehaviour({ limits: { ASSET: n } });
    const r = await c.tenant.post('/api/asset', { name: 'Over' });
    assert.deepEqual(
      [r.status, r.body.errorCode, r.body.message, r.body.entityType, r.body.limit],
      [403, 41, 'Assets limit reached', 'ASSET', n],
    );
  });

  it('before 3.8 there is no version and no 409; /api/tenant/device is 4.3.1.2+', async () => {
    c.sim.setVersion('3.7.0');
    const d = await c.tenant.ok('/api/device', { name: 'Old-1' });
    assert.equal(d.version, undefined);
    assert.equal((await c.tenant.post('/api/device', { ...d, version: 7, label: 'x' })).status, 200);
    assert.equal((await c.tenant.request('GET', '/api/tenant/device?deviceName=Old-1')).status, 404);
    c.sim.setVersion('4.3.1.2');
    assert.equal((await c.tenant.request('GET', '/api/tenant/device?deviceName=Old-1')).body.name, 'Old-1');
  });

  it('an entity view: name and type required, created unassigned with its entity, keys and window; version 1', async () => {
    const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    let r = await c.tenant.post('/api/entityView', { type: 'roomView' });
    assert.deepEqual([r.status, r.body.errorCode, r.body.message], [400, 31, 'Entity view name should be specified!']);
    r = await c.tenant.post('/api/entityView', { name: 'EV-1', type: ' ' });
    assert.deepEqual([r.status, r.body.message], [400, 'Entity view type should be specified!']);
    // the type is checked before the name's uniqueness
    r = await c.tenant.post('/api/entityView', { name: 'View A-101' });
    assert.equal(r.body.message, 'Entity view type should be specified!');
    r = await c.tenant.post('/api/entityView', { name: 'View A-101', type: 'roomView' });
    assert.deepEqual(
      [r.status, r.body.errorCode, r.body.message],
      [400, 31, 'Entity view with such name already exists!'],
    );
    const keys = { timeseries: ['temperature'], attributes: { cs: [], ss: ['model'], sh: [] } };
    const v = await c.tenant.ok('/api/entityView', {
      name: 'EV-1',
      type: 'roomView',
      entityId: { entityType: 'DEVICE', id: dev.id },
      keys,
      startTimeMs: 1000,
    });
    assert.deepEqual(v.id.entityType, 'ENTITY_VIEW');
    assert.deepEqual(
      [v.name, v.type, v.entityId, v.keys, v.startTimeMs, v.endTimeMs, v.version, v.customerId.id],
      [
        'EV-1',
        'roomView',
        { entityType: 'DEVICE', id: dev.id },
        keys,
        1000,
        0,
        1,
        '13814000-1dd2-11b2-8080-808080808080',
      ],
    );
    assert.equal(c.sim.data.findByName('DEVICE_PROFILE', 'roomView'), undefined, 'a view type is no profile');
    const got = await c.tenant.request('GET', `/api/entityView/${v.id.id}`);
    assert.deepEqual(got.body, v);
    const seeded = await c.tenant.request('GET', '/api/tenant/entityViews?entityViewName=View%20A-101');
    assert.deepEqual(
      [seeded.body.name, seeded.body.type, seeded.body.entityId.id, seeded.body.keys.timeseries],
      ['View A-101', 'roomView', dev.id, []],
    );
    const none = await c.tenant.request('GET', '/api/tenant/entityViews?entityViewName=Nope');
    assert.deepEqual([none.status, none.body.message], [404, "Requested item wasn't found!"]);
    const id = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
    const g = await c.tenant.request('GET', `/api/entityView/${id}`);
    assert.deepEqual([g.status, g.body.message], [404, `Entity view with id [${id}] is not found`]);
    // the types list still answers beside /api/entityView/{id}
    const types = await c.tenant.request('GET', '/api/entityView/types');
    assert.equal(types.status, 200);
  });

  it('an entity view update replaces it whole; a stale version is 409; assign, unassign, delete', async () => {
    const dev = c.sim.data.mustFindByName('DEVICE', 'Meter G-100');
    const v = await c.tenant.ok('/api/entityView', {
      name: 'EV-2',
      type: 'meterView',
      entityId: { entityType: 'DEVICE', id: dev.id },
      customerId: { entityType: 'CUSTOMER', id: custA().id },
      keys: { timeseries: ['power'] },
      endTimeMs: 5000,
      additionalInfo: { description: 'd' },
    });
    assert.equal(v.customerId.id, custA().id);
    const stale = await c.tenant.post('/api/entityView', { ...v, version: 7 });
    assert.deepEqual(
      [stale.status, stale.body.errorCode, stale.body.message],
      [409, 35, 'Entity view was already changed by someone else'],
    );
    const bare = await c.tenant.ok('/api/entityView', { id: v.id, name: 'EV-2', type: 'other', version: 1 });
    assert.deepEqual(
      [bare.version, bare.type, bare.customerId.id, bare.keys, bare.endTimeMs, bare.entityId, bare.additionalInfo],
      [2, 'other', '13814000-1dd2-11b2-8080-808080808080', null, 0, null, null],
    );
    const a = await c.tenant.post(`/api/customer/${custA().id}/entityView/${v.id.id}`);
    assert.deepEqual([a.status, a.body.customerId.id, a.body.version], [200, custA().id, 3]);
    const u = await c.tenant.request('DELETE', `/api/customer/entityView/${v.id.id}`);
    assert.deepEqual([u.status, u.body.version], [200, 4]);
    const again = await c.tenant.request('DELETE', `/api/customer/entityView/${v.id.id}`);
    assert.deepEqual([again.status, again.body.message], [400, "Entity View isn't assigned to any customer!"]);
    const bad = await c.tenant.post('/api/entityView', {
      name: 'EV-3',
      type: 't',
      customerId: { entityType: 'CUSTOMER', id: '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f' },
    });
    assert.deepEqual([bad.status, bad.body.message], [400, "Can't assign entity view to non-existent customer!"]);
    const d = await c.tenant.request('DELETE', `/api/entityView/${v.id.id}`);
    assert.deepEqual([d.status, d.text], [200, '']);
    assert.equal(c.sim.data.findByName('ENTITY_VIEW', 'EV-2'), undefined);
  });

  it('a device or asset with an entity view cannot be deleted; once the view is gone, it can', async () => {
    const asset = await c.tenant.ok('/api/asset', { name: 'Viewed asset' });
    const v = await c.tenant.ok('/api/entityView', { name: 'EV-A', type: 'a', entityId: asset.id });
    const r = await c.tenant.request('DELETE', `/api/asset/${asset.id.id}`);
    assert.deepEqual(
      [r.status, r.body.errorCode, r.body.message],
      [400, 31, "Can't delete asset that has entity views or is referenced in calculated fields!"],
    );
    assert.ok(c.sim.data.findByName('ASSET', 'Viewed asset'));
    assert.equal((await c.tenant.request('DELETE', `/api/entityView/${v.id.id}`)).status, 200);
    assert.equal((await c.tenant.request('DELETE', `/api/asset/${asset.id.id}`)).status, 200);
  });

  it("a customer user and entity views: reads and updates its customer's, no create, delete, assign, by-name", async () => {
    const mine = c.sim.data.mustFindByName('ENTITY_VIEW', 'View A-101');
    let r = await c.customer.post('/api/entityView', { name: 'Cu-EV', type: 't' });
    assert.deepEqual([r.status, r.body.errorCode], [403, 20]);
    r = await c.customer.request('GET', '/api/tenant/entityViews?entityViewName=View%20A-101');
    assert.equal(r.status, 403);
    const got = await c.customer.request('GET', `/api/entityView/${mine.id}`);
    assert.equal(got.status, 200);
    r = await c.customer.post('/api/entityView', { ...got.body, type: 'byCustomer' });
    assert.deepEqual([r.status, r.body.type], [200, 'byCustomer']);
    assert.equal((await c.customer.request('DELETE', `/api/entityView/${mine.id}`)).status, 403);
    assert.equal((await c.customer.request('DELETE', `/api/customer/entityView/${mine.id}`)).status, 403);
    const other = c.sim.data.mustFindByName('ENTITY_VIEW', 'View B-101');
    assert.equal((await c.customer.request('GET', `/api/entityView/${other.id}`)).status, 403);
  });

  it('the control API sets the behaviour and touches an entity', async () => {
    const ctl = async (path: string, body?: unknown) =>
      (await fetch(`${c.url}/__sim${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) })).json();
    assert.deepEqual(await ctl('/entities/behaviour', { limits: { DEVICE: 5 }, concurrentWrites: 2 }), {
      limits: { DEVICE: 5 },
      concurrentWrites: 2,
    });
    const id = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101').id;
    assert.deepEqual(await ctl('/entities/touch', { id }), { version: 2 });
    await ctl('/entities/reset');
    assert.deepEqual(c.sim.entities.behaviour(), { limits: {}, concurrentWrites: 0 });
  });
});
