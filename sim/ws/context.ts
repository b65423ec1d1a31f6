/** Shared types of the WebSocket part: resolved options, what subscriptions need from their session. */
import type { Dataset } from '../dataset';
import type { NotificationCenter } from '../notifications';
import type { AlarmQueryEngine } from '../query/alarms';
import type { EntityQueryEngine } from '../query/entities';
import type { Caller } from '../types';
import type { LiveRouter } from './router';

/** WebSocket options (SimOptions `ws*`), resolved. */
export interface WsOptions {
  /** pending session without authCmd is closed 1008 after this (server.ws.auth_timeout_ms, 10000) */
  authTimeoutMs: number;
  /** a ping is sent when no pong arrived for this long (ping_timeout / 3, 10000) */
  pingIntervalMs: number;
  /** close 4500 when no pong arrived for this long (server.ws.ping_timeout, 30000) */
  pongTimeoutMs: number;
  /** max pending outbound messages per session, then close 1008 (max_queue_messages_per_session, 1000) */
  maxQueue: number;
  /** dynamic page links, counts and alarm counters re-run this often (dynamic_page_link.refresh_interval, 60000) */
  dynamicRefreshMs: number;
  /** alarm re-fetches per refresh interval (max_alarm_queries_per_refresh_interval, 10) */
  maxAlarmQueriesPerRefresh: number;
  /** EntityDataUpdate.allowedEntities (max_entities_per_data_subscription, 10000) */
  maxEntitiesPerDataSubscription: number;
  /** AlarmDataUpdate.allowedEntities, entities per alarm subscription (max_entities_per_alarm_subscription, 10000) */
  maxEntitiesPerAlarmSubscription: number;
  /** incoming text frames above this close 1009 (max_text_message_buffer_size, 32768) */
  maxMessageBytes: number;
  /** tenant profile wsUpdatesPerSessionRateLimit, e.g. "10:1,300:60"; null = unlimited */
  updatesRateLimit: string | null;
  /** authCmd.apiKey accepted; null = from the version (>= 4.4) */
  apiKeyAuth: boolean | null;
  /** tenant profile maxWsSessionsPerTenant; 0 = unlimited */
  maxSessionsPerTenant: number;
  /** size of the received-commands log */
  commandLogSize: number;
}

export const DEFAULT_WS_OPTIONS: WsOptions = {
  authTimeoutMs: 10_000,
  pingIntervalMs: 10_000,
  pongTimeoutMs: 30_000,
  maxQueue: 1000,
  dynamicRefreshMs: 60_000,
  maxAlarmQueriesPerRefresh: 10,
  maxEntitiesPerDataSubscription: 10_000,
  maxEntitiesPerAlarmSubscription: 10_000,
  maxMessageBytes: 32_768,
  updatesRateLimit: null,
  apiKeyAuth: null,
  maxSessionsPerTenant: 0,
  commandLogSize: 1000,
};

/** What every subscription may use. */
export interface WsContext {
  readonly data: Dataset;
  readonly entityQuery: EntityQueryEngine;
  readonly alarmQuery: AlarmQueryEngine;
  readonly router: LiveRouter;
  readonly notifications: NotificationCenter;
  readonly opts: WsOptions;
  /** the simulator clock */
  now(): number;
  /** test hook: true when this history fetch must fail ("Failed to fetch historical data!") */
  takeHistoryFailure(): boolean;
  /** emits on `sim.ws.events` (e.g. 'refresh' after a timer-driven re-run) */
  emit(event: WsEventName, payload: unknown): void;
}

/**
 * Events of `sim.ws.events`, for tests that wait instead of sleeping:
 * - 'refresh' `{kind, cmdId, changed}` after every timer-driven re-run (dynamic page link, counts, alarm timer);
 * - 'held' `{session}` when an incoming frame is held because of pauseFrames(true);
 * - 'session' `{session, event: 'open' | 'auth' | 'close'}`.
 */
export type WsEventName = 'refresh' | 'held' | 'session';

/** A subscription's view of its session. */
export interface SubHost {
  readonly ctx: WsContext;
  readonly caller: Caller;
  /** queues a message (rate limit and queue limit apply); `subscriptionId` is used by the rate-limit notice */
  send(msg: string, subscriptionId: number): void;
  /** true once the session is closing (subscriptions stop sending) */
  readonly closed: boolean;
}

/**
 * Thrown by a command handler: close the session with 1012 SERVICE_RESTARTED (what the server does for a command
 * without a query).
 */
export class RestartSession extends Error {
  constructor(message = 'ws command failed with a runtime exception') {
    super(message);
    this.name = 'RestartSession';
  }
}

export interface Sub {
  readonly kind:
    | 'ENTITY_DATA'
    | 'ENTITY_COUNT'
    | 'ALARM_DATA'
    | 'ALARM_COUNT'
    | 'ALARM_STATUS'
    | 'NOTIFICATIONS'
    | 'NOTIFICATIONS_COUNT';
  readonly cmdId: number;
  /** cancels timers and live registrations */
  stop(): void;
}

/** An interval that does not keep the process alive. */
export function every(ms: number, fn: () => void): NodeJS.Timeout {
  const t = setInterval(fn, Math.max(1, ms));
  t.unref();
  return t;
}
