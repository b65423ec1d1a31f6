import assert from 'node:assert/strict';
import { CUSTOMER_API_KEY, DISABLED_API_KEY, EXPIRED_API_KEY, Simulator, TENANT_API_KEY } from '../../sim/index';
import { ALL_DEVICES, Client, NOW, jwtPayload } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

const COUNT = '/api/entitiesQuery/count';
const BODY = { entityFilter: ALL_DEVICES };

describe('simulator: authentication', function () {
  const c = useSimSetup({}, { perTest: true });

  const loginRaw = (username: string, password: string): ReturnType<Client['post']> =>
    c.anon.post('/api/auth/login', { username, password });
  const bearer = (token: string): Client => new Client(c.url, { 'X-Authorization': `Bearer ${token}` });
  const expectError = async (
    p: Promise<{ status: number; body: { status: number; errorCode: number; message: string; timestamp: number } }>,
    status: number,
    code: number,
    message: string,
  ): Promise<void> => {
    const r = await p;
    assert.deepEqual([r.status, r.body.status, r.body.errorCode, r.body.message], [status, status, code, message]);
    assert.equal(r.body.timestamp, c.clock.now);
  };

  it('login answers a token pair with the §1.3 claims', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['token', 'refreshToken']);
    const header = JSON.parse(Buffer.from(r.body.token.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'HS512');
    const p = jwtPayload(r.body.token);
    const user = c.sim.auth.user('tenant@thingsboard.org');
    assert.deepEqual(
      [p.sub, p.userId, p.scopes, p.tenantId, p.customerId, p.iss, p.enabled, p.isPublic, p.firstName],
      [
        'tenant@thingsboard.org',
        user?.userId,
        ['TENANT_ADMIN'],
        c.sim.data.tenantId,
        '13814000-1dd2-11b2-8080-808080808080',
        'thingsboard.io',
        true,
        false,
        'Tenant',
      ],
    );
    assert.equal(typeof p.sessionId, 'string');
    assert.equal(p.iat, Math.floor(NOW / 1000));
    assert.equal((p.exp as number) - (p.iat as number), 9000);
    const rp = jwtPayload(r.body.refreshToken);
    assert.deepEqual(rp.scopes, ['REFRESH_TOKEN']);
    assert.equal((rp.exp as number) - (rp.iat as number), 604800);
    assert.equal(typeof rp.jti, 'string');
    assert.equal((await bearer(r.body.token).post(COUNT, BODY)).text, '28');
  });

  it('customer user token carries its customer id', async () => {
    const r = await loginRaw('customer@thingsboard.org', 'customer');
    const p = jwtPayload(r.body.token);
    assert.deepEqual(
      [p.scopes, p.customerId],
      [['CUSTOMER_USER'], c.sim.data.mustFindByName('CUSTOMER', 'Customer A').id],
    );
  });

  it('login failures', async () => {
    await expectError(loginRaw('tenant@thingsboard.org', 'wrong'), 401, 10, 'Invalid username or password');
    await expectError(loginRaw('nobody@thingsboard.org', 'x'), 401, 10, 'Invalid username or password');
    await expectError(loginRaw('disabled@thingsboard.org', 'whatever'), 401, 10, 'User account is not active');
    await expectError(loginRaw('', 'x'), 401, 10, 'Authentication failed');
    await expectError(c.anon.post('/api/auth/login', 'not json'), 401, 10, 'Authentication failed');
    await expectError(c.anon.request('GET', '/api/auth/login'), 401, 10, 'Authentication method not supported');
  });

  it('2FA users get a PRE_VERIFICATION_TOKEN and no refresh token', async () => {
    const r = await loginRaw('mfa@thingsboard.org', 'mfa');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ['scope', 'token']);
    assert.equal(r.body.scope, 'PRE_VERIFICATION_TOKEN');
    assert.deepEqual(jwtPayload(r.body.token).scopes, ['PRE_VERIFICATION_TOKEN']);
    await expectError(
      bearer(r.body.token).post(COUNT, BODY),
      403,
      20,
      "You don't have permission to perform this operation!",
    );
  });

  it('header checks: missing, malformed, bad signature, other prefixes, Authorization header', async () => {
    await expectError(c.anon.post(COUNT, BODY), 401, 10, 'Authentication failed');
    await expectError(bearer('not-a-jwt').post(COUNT, BODY), 401, 10, 'Invalid username or password');
    const { token } = (await loginRaw('tenant@thingsboard.org', 'tenant')).body as { token: string };
    const forged = `${token.slice(0, token.lastIndexOf('.') + 1)}${Buffer.from('x'.repeat(64)).toString('base64url')}`;
    await expectError(bearer(forged).post(COUNT, BODY), 401, 11, 'Token has expired');
    await expectError(
      c.anon.post(COUNT, BODY, { 'X-Authorization': `Token ${token}` }),
      401,
      10,
      'Authentication failed',
    );
    const viaAuthorization = await c.anon.post(COUNT, BODY, { Authorization: `Bearer ${token}` });
    assert.equal(viaAuthorization.text, '28');
  });

  it('an expired access token answers 401/11; refresh gives a working pair', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    c.clock.now += 9000 * 1000;
    await expectError(bearer(r.body.token).post(COUNT, BODY), 401, 11, 'Token has expired');
    const refreshed = await c.anon.post('/api/auth/token', { refreshToken: r.body.refreshToken });
    assert.equal(refreshed.status, 200);
    assert.deepEqual(Object.keys(refreshed.body), ['token', 'refreshToken']);
    assert.equal(jwtPayload(refreshed.body.token).sessionId, jwtPayload(r.body.token).sessionId);
    assert.equal((await bearer(refreshed.body.token).post(COUNT, BODY)).text, '28');
    // the old refresh token still works (a refresh does not revoke it)
    assert.equal((await c.anon.post('/api/auth/token', { refreshToken: r.body.refreshToken })).status, 200);
  });

  it('refresh failures', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    await expectError(c.anon.post('/api/auth/token', {}), 401, 10, 'Authentication failed');
    await expectError(
      c.anon.post('/api/auth/token', { refreshToken: 'garbage' }),
      401,
      10,
      'Invalid username or password',
    );
    await expectError(
      c.anon.post('/api/auth/token', { refreshToken: r.body.token }),
      401,
      10,
      'Invalid username or password',
    );
    c.clock.now += 604800 * 1000;
    await expectError(
      c.anon.post('/api/auth/token', { refreshToken: r.body.refreshToken }),
      401,
      11,
      'Token has expired',
    );
  });

  it('setTokenLifetime / option tokenLifetimeSec', async () => {
    c.sim.setTokenLifetime(60);
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    const p = jwtPayload(r.body.token);
    assert.equal((p.exp as number) - (p.iat as number), 60);
    c.clock.now += 59_000;
    assert.equal((await bearer(r.body.token).post(COUNT, BODY)).status, 200);
    c.clock.now += 1_000;
    assert.equal((await bearer(r.body.token).post(COUNT, BODY)).status, 401);
    const sim = new Simulator({ tokenLifetimeSec: 5, refreshLifetimeSec: 10 });
    const pair = sim.tokensFor('tenant@thingsboard.org');
    assert.equal((jwtPayload(pair.token).exp as number) - (jwtPayload(pair.token).iat as number), 5);
    assert.equal(
      (jwtPayload(pair.refreshToken as string).exp as number) - (jwtPayload(pair.refreshToken as string).iat as number),
      10,
    );
  });

  it('expireAllTokens and revokeRefreshTokens', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    c.sim.expireAllTokens();
    await expectError(bearer(r.body.token).post(COUNT, BODY), 401, 11, 'Token has expired');
    const refreshed = await c.anon.post('/api/auth/token', { refreshToken: r.body.refreshToken });
    assert.equal((await bearer(refreshed.body.token).post(COUNT, BODY)).status, 200, 'new tokens work');
    c.sim.revokeRefreshTokens();
    await expectError(
      c.anon.post('/api/auth/token', { refreshToken: refreshed.body.refreshToken }),
      401,
      10,
      'Token is outdated',
    );
    const again = await loginRaw('tenant@thingsboard.org', 'tenant');
    assert.equal((await c.anon.post('/api/auth/token', { refreshToken: again.body.refreshToken })).status, 200);
  });

  it('logout outdates the session', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    const out = await bearer(r.body.token).post('/api/auth/logout');
    assert.deepEqual([out.status, out.text], [200, '']);
    await expectError(bearer(r.body.token).post(COUNT, BODY), 401, 11, 'Token has expired');
    await expectError(
      c.anon.post('/api/auth/token', { refreshToken: r.body.refreshToken }),
      401,
      10,
      'Token is outdated',
    );
    assert.equal((await c.tenant.post(COUNT, BODY)).status, 200, 'other sessions are untouched');
  });

  it('API keys (4.3+)', async () => {
    const key = (k: string, header = 'X-Authorization'): ReturnType<Client['post']> =>
      c.anon.post(COUNT, BODY, { [header]: `ApiKey ${k}` });
    assert.match(TENANT_API_KEY, /^tb_[A-Za-z0-9_-]{86}$/);
    assert.equal((await key(TENANT_API_KEY)).text, '28');
    assert.equal((await key(TENANT_API_KEY, 'Authorization')).text, '28');
    assert.equal((await key(CUSTOMER_API_KEY)).text, '8');
    await expectError(key(DISABLED_API_KEY), 401, 10, 'User account is not active');
    await expectError(key(EXPIRED_API_KEY), 401, 10, 'API key is expired');
    await expectError(key(`tb_${'A'.repeat(86)}`), 401, 10, 'Invalid username or password');
    c.sim.setVersion('4.2.1');
    await expectError(key(TENANT_API_KEY), 401, 10, 'Invalid username or password');
  });

  it('a refresh token is not an access token', async () => {
    const r = await loginRaw('tenant@thingsboard.org', 'tenant');
    assert.equal((await bearer(r.body.refreshToken).post(COUNT, BODY)).status, 403);
  });

  it('GET /api/auth/user', async () => {
    const r = await c.customer.request('GET', '/api/auth/user');
    assert.equal(r.status, 200);
    assert.deepEqual(
      [r.body.email, r.body.authority, r.body.firstName],
      ['customer@thingsboard.org', 'CUSTOMER_USER', 'Carol'],
    );
  });

  it('unknown paths: 401 without auth, Spring 404 with auth; wrong method 405', async () => {
    assert.equal((await c.anon.post('/api/nothing/here', {})).status, 401);
    const r = await c.tenant.post('/api/nothing/here', {});
    assert.equal(r.status, 404);
    assert.deepEqual([r.body.status, r.body.error, r.body.path], [404, 'Not Found', '/api/nothing/here']);
    assert.equal((await c.tenant.request('GET', '/api/entitiesQuery/find')).status, 405);
  });
});
