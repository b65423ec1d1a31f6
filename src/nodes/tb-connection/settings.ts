/**
 * tb-connection's settings and credentials, declared once: the dialog, the runtime and the reference page read them.
 */
import { choice, configNode, declareNode, duration, number, text, whole } from '../../settings/declare';

/** The ways to sign in to ThingsBoard: username and password, an API key (4.3+), a token issued elsewhere. */
export const AUTH_MODES = ['password', 'apiKey', 'token'] as const;
/** Trendz signs in with the platform's username and password, or with its own. */
export const ANALYTICS_AUTH = ['same', 'own'] as const;

export type AnalyticsAuth = (typeof ANALYTICS_AUTH)[number];

export const TB_CONNECTION = declareNode({
  type: 'tb-connection',
  category: 'config',
  inputs: 0,
  outputs: 0,
  version: 3,
  settings: {
    name: text(),
    url: text('', { required: true }),
    authMode: choice(AUTH_MODES, 'password'),
    tls: configNode('tls-config'),
    /** How long one request may take. */
    timeout: duration('30s', { min: 0, above: true }),
    /** The largest WebSocket message the server accepts, in KiB (ThingsBoard's default is 32). */
    wsMessageLimit: number(32, 0, { above: true }),
    /**
     * Retries of a request that failed for a reason worth another try (429, 502/503/504, refused connection); empty:
     * settings.js's tbConnectionRetryCount, else the default.
     */
    retries: whole(3, { min: 0, max: 10, optional: true }),
    /** At most this much waiting between the tries of one request. */
    retryBudget: duration('30s', { min: 0, above: true }),
    /** The largest answer read, in MB; a larger one is dropped while it is read. */
    maxResponseMB: number(32, 0, { above: true }),
    analyticsUrl: text(),
    analyticsAuth: choice(ANALYTICS_AUTH, 'same'),
    /** Reports built at once (Trendz queues about 10). */
    reportConcurrency: whole(2, { min: 1, max: 10 }),
    /** How long one report may take. */
    reportTimeout: duration('5m', { min: 0, above: true }),
  },
  credentials: {
    username: { type: 'text' },
    password: { type: 'password' },
    apiKey: { type: 'password' },
    token: { type: 'password' },
    analyticsUsername: { type: 'text' },
    analyticsPassword: { type: 'password' },
  },
});

export type ConnectionSettings = import('../../settings/declare').Values<typeof TB_CONNECTION.settings>;
