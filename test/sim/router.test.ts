import assert from 'node:assert/strict';
import { BASE_TIME, Dataset } from '../../sim/dataset';
import { LiveRouter, type KvListener } from '../../sim/ws/router';

/** A listener that writes down what reached it. */
function listener(name: string, log: string[], onTelemetry?: () => void): KvListener {
  return {
    onTelemetry: (entries) => {
      log.push(`${name} telemetry ${Object.keys(entries).join(',')}`);
      onTelemetry?.();
    },
    onAttributes: (scope, entries) => log.push(`${name} ${scope} ${Object.keys(entries).join(',')}`),
    onKeysDeleted: (scope, keys) => log.push(`${name} deleted ${scope} ${keys.join(',')}`),
  };
}

describe('simulator ws: the live router', () => {
  let ds: Dataset;
  let router: LiveRouter;
  let id: string;
  beforeEach(() => {
    ds = new Dataset(() => BASE_TIME);
    ds.setBenchCount(2);
    router = new LiveRouter(ds);
    id = ds.mustFindByName('DEVICE', 'Bench-000001').id;
  });
  afterEach(() => router.dispose());

  it('one listener, then two, then one again: each event reaches every listener of its entity once', () => {
    const log: string[] = [];
    const a = listener('a', log);
    const b = listener('b', log);
    router.addKv(id, a);
    router.addKv(id, a);
    ds.setTelemetry(id, { t: 1 });
    assert.deepEqual(log.splice(0), ['a telemetry t']);
    assert.deepEqual(router.size, { kv: 1, alarm: 0 });
    router.addKv(id, b);
    ds.setTelemetry(id, { t: 2 });
    ds.setAttributes(id, 'SHARED_SCOPE', { fw: '1.0' });
    ds.deleteKey(id, 'TIME_SERIES', 't');
    assert.deepEqual(log.splice(0), [
      'a telemetry t',
      'b telemetry t',
      'a SHARED_SCOPE fw',
      'b SHARED_SCOPE fw',
      'a deleted TIME_SERIES t',
      'b deleted TIME_SERIES t',
    ]);
    assert.deepEqual(router.size, { kv: 2, alarm: 0 });
    router.removeKv(id, a);
    router.removeKv(id, a);
    ds.setTelemetry(id, { t: 3 });
    assert.deepEqual(log.splice(0), ['b telemetry t']);
    router.removeKv(id, b);
    ds.setTelemetry(id, { t: 4 });
    assert.deepEqual(log, []);
    assert.deepEqual(router.size, { kv: 0, alarm: 0 });
  });

  it('a listener of another entity, or one never added, changes nothing; the last one leaving leaves nothing', () => {
    const log: string[] = [];
    const a = listener('a', log);
    router.addKv(id, a);
    router.removeKv(id, listener('x', log));
    router.removeKv(ds.mustFindByName('DEVICE', 'Bench-000002').id, a);
    ds.setTelemetry(ds.mustFindByName('DEVICE', 'Bench-000002'), { t: 1 });
    ds.setTelemetry(id, { t: 1 });
    assert.deepEqual(log, ['a telemetry t']);
    router.removeKv(id, a);
    ds.setTelemetry(id, { t: 2 });
    assert.deepEqual(log, ['a telemetry t'], 'gone');
    assert.deepEqual(router.size, { kv: 0, alarm: 0 });
  });

  it('a listener that leaves while an event is delivered: the others still get it', () => {
    const log: string[] = [];
    const a: KvListener = listener('a', log, () => router.removeKv(id, a));
    const b = listener('b', log);
    router.addKv(id, a);
    router.addKv(id, b);
    ds.setTelemetry(id, { t: 1 });
    ds.setTelemetry(id, { t: 2 });
    assert.deepEqual(log, ['a telemetry t', 'b telemetry t', 'b telemetry t']);
  });
});
