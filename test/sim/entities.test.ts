/**
 * The simulator's entity management, as the server's device, asset and customer controllers answer: create and
 * update by the same POST, the whole object replaced on update (the traps), versions and the 409, duplicate names
 * (400/31), profiles created by an unknown `type`, by-name lookups, assign and unassign, delete refusals, a device's
 * credentials, a customer user's limits, the tenant's entity limits and a concurrent writer.
 */
import assert from 'node:assert/strict';
import { useSimSetup } from '../support/simulator';

describe('simulator: entity management (devices, assets, customers)', function () {
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
