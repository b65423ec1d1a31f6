import assert from 'node:assert/strict';
import sinon from 'sinon';
import { LookupCache } from '../../src/admin/cache';
import { errorReply, NotDeployedError, scrub } from '../../src/admin/routes';
import { TbApiError, TbAuthError, TbConfigError, TbError, TbInputError, TbNetworkError } from '../../src/errors';

/** A load whose answer the test decides. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('admin: the look-up cache', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => {
    clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
  });
  afterEach(() => clock.restore());

  it('reuses an answer for ttlMs, then loads again', async () => {
    const cache = new LookupCache({ ttlMs: 1000, maxEntries: 10 });
    let loads = 0;
    const load = async () => ++loads;
    assert.equal(await cache.get('k', load), 1);
    clock.tick(999);
    assert.equal(await cache.get('k', load), 1);
    clock.tick(1);
    assert.equal(await cache.get('k', load), 2);
  });

  it('the TTL runs from the answer, not from the request', async () => {
    const cache = new LookupCache({ ttlMs: 1000, maxEntries: 10 });
    const d = deferred<string>();
    const p = cache.get('k', () => d.promise);
    clock.tick(5000);
    d.resolve('late');
    assert.equal(await p, 'late');
    clock.tick(900);
    assert.equal(await cache.get('k', async () => 'new'), 'late');
  });

  it('concurrent requests for one key share one load', async () => {
    const cache = new LookupCache({ ttlMs: 1000, maxEntries: 10 });
    const d = deferred<number>();
    let loads = 0;
    const load = () => (loads++, d.promise);
    const all = Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)]);
    d.resolve(7);
    assert.deepEqual(await all, [7, 7, 7]);
    assert.equal(loads, 1);
  });

  it('a failure is shared by the waiting requests but not kept', async () => {
    const cache = new LookupCache({ ttlMs: 1000, maxEntries: 10 });
    const d = deferred<number>();
    const a = cache.get('k', () => d.promise);
    const b = cache.get('k', () => Promise.resolve(0));
    d.reject(new Error('boom'));
    await assert.rejects(a, /boom/);
    await assert.rejects(b, /boom/);
    assert.equal(await cache.get('k', async () => 2), 2);
    await assert.rejects(
      cache.get('sync', () => {
        throw new Error('thrown');
      }),
      /thrown/,
    );
  });

  it('ttlMs 0: only concurrent requests share a load', async () => {
    const cache = new LookupCache({ ttlMs: 0, maxEntries: 10 });
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    assert.deepEqual([a, b], [1, 1]);
    assert.equal(await cache.get('k', load), 2);
    assert.equal(cache.size, 0);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const cache = new LookupCache({ ttlMs: 10_000, maxEntries: 3 });
    let loads = 0;
    const load = async () => ++loads;
    for (const k of ['a', 'b', 'c']) await cache.get(k, load);
    await cache.get('a', load); // a is now the most recently used
    await cache.get('d', load); // drops b
    assert.equal(cache.size, 3);
    assert.equal(loads, 4);
    await cache.get('a', load);
    await cache.get('c', load);
    assert.equal(loads, 4, 'a and c kept');
    await cache.get('b', load);
    assert.equal(loads, 5, 'b was dropped');
  });

  it('clear() forgets everything; a load in flight then is not kept', async () => {
    const cache = new LookupCache({ ttlMs: 10_000, maxEntries: 10 });
    await cache.get('a', async () => 1);
    const d = deferred<number>();
    const p = cache.get('b', () => d.promise);
    cache.clear();
    d.resolve(2);
    assert.equal(await p, 2);
    assert.equal(cache.size, 0);
    assert.equal(await cache.get('a', async () => 3), 3);
  });
});

describe('admin: error answers', () => {
  it('maps our errors to a status and a {code, message[, field]} body', () => {
    assert.deepEqual(errorReply(new TbInputError('entityType', 'entityType must be …')), {
      status: 400,
      body: { code: 'TB_INVALID_INPUT', field: 'entityType', message: 'entityType must be …' },
    });
    assert.deepEqual(errorReply(new TbConfigError('bad url')), {
      status: 400,
      body: { code: 'TB_CONFIG', message: 'bad url' },
    });
    assert.equal(errorReply(new NotDeployedError('x')).status, 404);
    const api = (status: number) =>
      errorReply(new TbApiError(status === 403 ? 'TB_PERMISSION' : 'TB_HTTP_ERROR', status, undefined, undefined, 'm'));
    assert.deepEqual(
      [api(403).status, api(404).status, api(409).status, api(429).status, api(500).status, api(503).status],
      [403, 404, 409, 429, 502, 502],
    );
    assert.equal(errorReply(new TbAuthError('TB_AUTH_FAILED', 401, 10, 'x', 'refused')).status, 502, 'never 401');
    assert.equal(errorReply(new TbAuthError('TB_2FA_REQUIRED', 200, undefined, 'x', '2fa')).status, 502);
    assert.equal(errorReply(new TbNetworkError('TB_TIMEOUT', 'slow')).status, 502);
    assert.equal(errorReply(new TbError('TB_BAD_RESPONSE', 'junk')).status, 502);
    assert.deepEqual(errorReply(new RangeError('odd')), {
      status: 500,
      body: { code: 'TB_ERROR', message: 'Unexpected error: odd' },
    });
  });

  it('scrub() replaces credential values, also JSON-escaped ones, and skips very short or absent ones', () => {
    const secret = 'p"a\\ss';
    const text = JSON.stringify({ message: `x ${secret} y apikey123 z` });
    assert.equal(scrub(text, [secret, 'apikey123', undefined, 'ab']), JSON.stringify({ message: 'x *** y *** z' }));
  });
});
