/**
 * The simulator's generic endpoints (sim/generic.ts) as the server answers them: the audit log (paging, search, time
 * range, action types, sorting, who may read it), OTA packages and the download of one as a file (a URL package: 400
 * with no body), a customer's title as bare text, a path that needs no login, and the 413 of a body over the size
 * limit (a JSON string, before any login).
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim/dataset';
import { Client, login, NOW } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

const get = (c: Client, path: string) => c.request('GET', path);

describe('simulator: generic endpoints (audit log, OTA packages, text, no-login paths, 413)', function () {
  const c = useSimSetup({}, { perTest: true });

  it('the audit log: newest first, paged, its JSON shape; search, time range and action types filter it', async () => {
    const r = await get(c.tenant, '/api/audit/logs?pageSize=2&page=0');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.totalElements, 6, "the tenant's entries, its customers' users' too");
    assert.equal(r.body.totalPages, 3);
    assert.equal(r.body.hasNext, true);
    const [first] = r.body.data;
    assert.equal(first.actionType, 'UPDATED');
    assert.equal(first.entityName, 'Customer A');
    assert.equal(first.createdTime, BASE_TIME - HOUR);
    assert.deepEqual(Object.keys(first), [
      'id',
      'createdTime',
      'tenantId',
      'customerId',
      'entityId',
      'entityName',
      'userId',
      'userName',
      'actionType',
      'actionData',
      'actionStatus',
      'actionFailureDetails',
    ]);
    assert.equal(first.id.entityType, 'AUDIT_LOG');

    const rpc = await get(c.tenant, '/api/audit/logs?pageSize=10&page=0&textSearch=rpc_');
    assert.deepEqual(
      rpc.body.data.map((l: { actionType: string }) => l.actionType),
      ['RPC_CALL'],
    );
    const types = await get(c.tenant, '/api/audit/logs?pageSize=10&page=0&actionTypes=login,rpc_call');
    assert.deepEqual(
      types.body.data.map((l: { actionType: string }) => l.actionType),
      ['LOGIN', 'RPC_CALL', 'LOGIN'],
    );
    const range = await get(
      c.tenant,
      `/api/audit/logs?pageSize=10&page=0&startTime=${BASE_TIME - 4 * HOUR}&endTime=${BASE_TIME - 2 * HOUR}`,
    );
    assert.deepEqual(
      range.body.data.map((l: { createdTime: number }) => l.createdTime),
      [BASE_TIME - 2 * HOUR, BASE_TIME - 3 * HOUR, BASE_TIME - 4 * HOUR],
    );
    const asc = await get(c.tenant, '/api/audit/logs?pageSize=1&page=0&sortProperty=createdTime&sortOrder=ASC');
    assert.equal(asc.body.data[0].actionType, 'LOGIN');
  });

  it("the audit log of one entity; a customer user may not read it (403); a bad parameter is the server's error", async () => {
    const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const r = await get(c.tenant, `/api/audit/logs/entity/DEVICE/${dev.id}?pageSize=10&page=0`);
    assert.deepEqual(
      r.body.data.map((l: { actionType: string; entityName: string }) => [l.actionType, l.entityName]),
      [['ATTRIBUTES_UPDATED', 'Thermo A-101']],
    );
    const denied = await get(c.customer, '/api/audit/logs?pageSize=10&page=0');
    assert.equal(denied.status, 403);
    assert.equal(denied.body.errorCode, 20);
    const missing = await get(c.tenant, '/api/audit/logs?page=0');
    assert.deepEqual(
      [missing.status, missing.body.errorCode, missing.body.message],
      [500, 2, "Required request parameter 'pageSize' for method parameter type int is not present"],
    );
    const badType = await get(c.tenant, '/api/audit/logs?pageSize=10&page=0&actionTypes=NOPE');
    assert.deepEqual(
      [badType.status, badType.body.message],
      [400, 'No enum constant org.thingsboard.server.common.data.audit.ActionType.NOPE'],
    );
    const added = c.sim.generic.addAuditLog({
      tenantId: c.sim.data.tenantId,
      customerId: null,
      entityId: { entityType: 'DEVICE', id: dev.id },
      entityName: dev.name,
      userId: 'u',
      userName: 'someone@example.com',
      actionType: 'DELETED',
      actionData: {},
      actionStatus: 'SUCCESS',
      actionFailureDetails: null,
    });
    assert.equal(added.createdTime, NOW, 'a test entry is stamped with the simulator clock');
    const after = await get(c.tenant, '/api/audit/logs?pageSize=1&page=0');
    assert.equal(after.body.data[0].actionType, 'DELETED');
  });

  it('OTA packages: the list, the info, the download as a file with its name; a URL package is 400 with no body', async () => {
    const list = await get(c.tenant, '/api/otaPackages?pageSize=10&page=0');
    assert.equal(list.status, 200);
    const titles = list.body.data.map((p: { title: string; version: string; hasData: boolean }) => [
      p.title,
      p.version,
      p.hasData,
    ]);
    assert.deepEqual(titles, [
      ['Thermostat firmware', '1.2', true],
      ['Thermostat schedule', '2026.1', true],
      ['Thermostat firmware', '1.3', false],
    ]);
    const [fw, , url] = list.body.data as Array<{ id: { id: string }; dataSize: number; checksum: string }>;
    assert.equal(fw.dataSize, 4096);
    const res = await fetch(`${c.url}/api/otaPackage/${fw.id.id}/download`, { headers: c.tenant.auth });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.equal(res.headers.get('content-disposition'), 'attachment;filename=thermo-fw-1.2.bin');
    assert.equal(res.headers.get('x-filename'), 'thermo-fw-1.2.bin');
    assert.equal(res.headers.get('content-length'), '4096');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.length, 4096);
    const { createHash } = await import('node:crypto');
    assert.equal(createHash('sha256').update(bytes).digest('hex'), fw.checksum, 'the bytes the info describes');

    const external = await get(c.tenant, `/api/otaPackage/${url.id.id}/download`);
    assert.deepEqual([external.status, external.text], [400, '']);
    const info = await get(c.customer, `/api/otaPackage/info/${fw.id.id}`);
    assert.equal(info.body.title, 'Thermostat firmware');
    const customerDownload = await get(c.customer, `/api/otaPackage/${fw.id.id}/download`);
    assert.equal(customerDownload.status, 403, 'TENANT_ADMIN only');
    const none = await get(c.tenant, '/api/otaPackage/00000000-0000-4000-a000-000000000000/download');
    assert.deepEqual(
      [none.status, none.body.errorCode, none.body.message],
      [404, 32, 'Ota package with id [00000000-0000-4000-a000-000000000000] is not found'],
    );
    const bad = await get(c.tenant, '/api/otaPackage/nope/download');
    assert.deepEqual([bad.status, bad.body.message], [400, 'Invalid UUID string: nope']);
  });

  it("a customer's title is bare text (application/text); another customer's is 403, a missing one 404", async () => {
    const a = c.sim.data.mustFindByName('CUSTOMER', 'Customer A');
    const b = c.sim.data.mustFindByName('CUSTOMER', 'Customer B');
    const r = await get(c.tenant, `/api/customer/${a.id}/title`);
    assert.deepEqual(
      [r.status, r.text, r.headers.get('content-type')],
      [200, 'Customer A', 'application/text;charset=UTF-8'],
    );
    assert.equal((await get(c.customer, `/api/customer/${a.id}/title`)).text, 'Customer A');
    assert.equal((await get(c.customer, `/api/customer/${b.id}/title`)).status, 403);
    assert.equal((await get(c.tenant, `/api/customer/${c.sim.data.tenantId}/title`)).status, 404);
  });

  it('a path under /api/noauth/ is served without a token, and the simulator notes that none came', async () => {
    const r = await get(c.anon, '/api/noauth/userPasswordPolicy');
    assert.equal(r.status, 200);
    assert.equal(r.body.minimumLength, 6);
    assert.equal(r.body.maximumLength, 72);
    await get(c.tenant, '/api/noauth/userPasswordPolicy');
    assert.deepEqual(
      c.sim.generic.seen().map((s) => s.authorization),
      [false, true],
    );
    // an unknown path there is a 404 without a token too (permitAll), where any other /api path is a 401 first
    assert.equal((await get(c.anon, '/api/noauth/nothing')).status, 404);
    assert.equal((await get(c.anon, '/api/nothing')).status, 401);
  });

  it('a body declared over 16 MB is refused with 413 and a quoted text, before any login; a small one is not', async () => {
    const big = 'x'.repeat(16 * 1024 * 1024 + 1);
    const r = await new Client(c.url).post('/api/audit/logs', big);
    assert.equal(r.status, 413);
    assert.equal(r.body, 'Payload size exceeds the limit of 16777216 bytes', 'a JSON string, not the error object');
    assert.equal(r.headers.get('content-type'), null);
    const small = await new Client(c.url).post('/api/audit/logs', 'x');
    assert.equal(small.status, 401, 'under the limit: security runs as usual');
    const after = await login(c.url, 'tenant@thingsboard.org', 'tenant');
    assert.equal((await get(after, '/api/audit/logs?pageSize=1&page=0')).status, 200, 'the server still answers');
  });
});
