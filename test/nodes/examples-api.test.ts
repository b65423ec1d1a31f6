/**
 * The example "Audit log and firmware file" as shipped in examples/, run in the real runtime against the simulator:
 * the audit log as JSON, and a firmware file downloaded by the id a placeholder takes from the list before it.
 */
import assert from 'node:assert/strict';
import tbApi from '../../src/nodes/tb-api/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import { Collector, inject, loadExample, useRuntime } from '../support/runtime';

type Rec = Record<string, unknown>;

describe('examples: any REST call (runtime + simulator)', function () {
  const sim = useRuntime({}, { perTest: true });

  it('Audit log and firmware file: the newest audit entries, then the first firmware package as a file', async () => {
    const byName = await loadExample(
      'Audit log and firmware file.json',
      sim.url,
      [tbConnection, tbApi],
      ['common/20-inject.js'],
    );
    const entries = new Collector(byName('audit entries').id);
    const file = new Collector(byName('file').id);
    const errors = new Collector(byName('error').id);

    inject(byName('latest audit log').id, { payload: Date.now() });
    const log = await entries.until(() => true);
    const page = log.payload as { data: Array<{ actionType: string; createdTime: number }> };
    assert.equal(page.data.length, 6);
    assert.equal(page.data[0].actionType, 'UPDATED');
    assert.ok(page.data[0].createdTime > page.data[5].createdTime, 'newest first');

    inject(byName('firmware file').id, { payload: Date.now() });
    const got = await file.until(() => true);
    const fw = sim.generic.otaPackages()[0];
    assert.ok(Buffer.isBuffer(got.payload) && (got.payload as Buffer).equals(fw.data!));
    assert.equal(got.filename, 'thermo-fw-1.2.bin');
    assert.equal(got.contentType, 'application/octet-stream');
    assert.deepEqual(got.api as Rec, { method: 'GET', path: `/api/otaPackage/${fw.id}/download` });
    assert.equal(errors.all.length, 0);
  });
});
