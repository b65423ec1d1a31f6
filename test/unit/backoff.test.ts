import assert from 'node:assert/strict';
import { backoffDelay, parseRetryAfter } from '../../src/platform/backoff';
import { decodeJwt } from '../../src/platform/jwt';

describe('backoff and Retry-After', () => {
  const o = { initialMs: 1000, maxMs: 30000, jitter: 0.2 };

  it('doubles from the initial delay and stops at the cap', () => {
    assert.equal(
      backoffDelay(1, o, () => 0.5),
      1000,
    );
    assert.equal(
      backoffDelay(2, o, () => 0.5),
      2000,
    );
    assert.equal(
      backoffDelay(4, o, () => 0.5),
      8000,
    );
    assert.equal(
      backoffDelay(10, o, () => 0.5),
      30000,
    );
  });

  it('spreads by the jitter both ways', () => {
    assert.equal(
      backoffDelay(3, o, () => 0),
      3200,
    );
    assert.equal(
      backoffDelay(3, o, () => 1),
      4800,
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter('0'), 0);
    assert.equal(parseRetryAfter(['2']), 2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:05 GMT', now), 0);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  it('decodes JWT claims and refuses what is not a JWT', () => {
    const payload = Buffer.from(JSON.stringify({ exp: 100, iat: 50 })).toString('base64url');
    assert.deepEqual(decodeJwt(`x.${payload}.y`), { exp: 100, iat: 50 });
    assert.equal(decodeJwt('not-a-jwt'), undefined);
    assert.equal(decodeJwt('a.!!!.c'), undefined);
  });
});
