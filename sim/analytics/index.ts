/**
 * The analytics (Trendz) part of the simulator: see README.md in this folder.
 *
 *   const analytics = new AnalyticsService({ data: sim.data, users: sim.seed.users, now });
 *   createServer((req, res) => { if (!analytics.handle(req, res)) front.onRequest(req, res); });
 *
 * or on its own server: `const a = await startAnalyticsServer({ now, reportDelayMs: 20 })` → `a.baseUrl`.
 */
export { AnalyticsService, AnalyticsFaults } from './service';
export type { AnalyticsOptions, AnalyticsServiceConfig, AnalyticsStats, ReportEvent, ReportEventName } from './service';
export { startAnalyticsServer, attachAnalytics } from './server';
export type { AnalyticsServer, AnalyticsServerOptions } from './server';
export { AnalyticsAuth, AuthError } from './auth';
export type { TokenPair } from './auth';
export {
  VIEW_ENERGY_PER_BUILDING_PER_DAY,
  VIEW_ENERGY_PER_BUILDING_PER_HOUR,
  VIEW_DEVICE_TEMPERATURE,
  VIEW_TOP_ALARMED_DEVICES,
  DEMO_VIEW_ID,
  VIEW_IDS,
  DEFAULT_RANGE,
  DAY,
  ViewRegistry,
  builtinViews,
  telemetryView,
  ancestorAsset,
  ownerName,
  viewIdFor,
} from './views';
export type {
  AnalyticsCaller,
  Aggregation,
  Cell,
  Row,
  TelemetryViewSpec,
  TimeRange,
  View,
  ViewContext,
  ViewSpec,
} from './views';
