/**
 * The REST calls tb-api's dialog suggests, with the server versions and the authorities that have them: read from
 * ThingsBoard CE's controllers (`C/AuditLogController.java`, `C/OtaPackageController.java`,
 * `C/DeviceController.java`, `C/CustomerController.java`, `C/TelemetryController.java`, `C/AuthController.java`,
 * `C/NotificationController.java`, `C/ImageController.java`, `C/RuleEngineController.java`,
 * `C/EntityRelationController.java`, `C/SystemInfoController.java`, `C/UsageInfoController.java`) at the release
 * tags: `since` is the first release whose controller has the mapping. A value the call needs from the message is
 * a placeholder (`{{msg.deviceId}}`), as the node reads it. Pure: the editor's endpoint filters the list for the
 * connected server.
 */

export type Authority = 'SYS_ADMIN' | 'TENANT_ADMIN' | 'CUSTOMER_USER';

export interface ApiPathSuggestion {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The path, placeholders for what the message gives. */
  readonly path: string;
  /** The query the call needs (a page of a list), as the node's Query setting holds it. */
  readonly query?: string;
  /** What it answers, in a few words. */
  readonly what: string;
  /** The group the dialog lists it under. */
  readonly group: 'Entities' | 'Data' | 'Audit and files' | 'Notifications' | 'Rule engine' | 'Server';
  /** The first release that has it (absent: every release this package supports). */
  readonly since?: string;
  readonly authorities: readonly Authority[];
  /** What the answer is when it is not JSON. */
  readonly answer?: 'text' | 'file' | 'number';
}

const ALL: readonly Authority[] = ['SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'];
const TENANT: readonly Authority[] = ['TENANT_ADMIN'];
const TENANT_CUSTOMER: readonly Authority[] = ['TENANT_ADMIN', 'CUSTOMER_USER'];
const PAGE = 'pageSize=100&page=0';

export const API_PATHS: readonly ApiPathSuggestion[] = [
  {
    method: 'GET',
    path: '/api/tenant/devices',
    query: PAGE,
    what: "the tenant's devices, a page",
    group: 'Entities',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/device/{{msg.deviceId}}',
    what: 'a device',
    group: 'Entities',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/tenant/assets',
    query: PAGE,
    what: "the tenant's assets, a page",
    group: 'Entities',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/customers',
    query: PAGE,
    what: 'the customers, a page',
    group: 'Entities',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/customer/{{msg.customerId}}',
    what: 'a customer',
    group: 'Entities',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/customer/{{msg.customerId}}/title',
    what: "a customer's title (text)",
    group: 'Entities',
    authorities: TENANT_CUSTOMER,
    answer: 'text',
  },
  {
    method: 'GET',
    path: '/api/customer/{{msg.customerId}}/devices',
    query: PAGE,
    what: "a customer's devices, a page",
    group: 'Entities',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/tenant/entityViews',
    query: PAGE,
    what: "the tenant's entity views, a page",
    group: 'Entities',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/tenant/dashboards',
    query: PAGE,
    what: "the tenant's dashboards, a page",
    group: 'Entities',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/dashboard/{{msg.dashboardId}}',
    what: "a dashboard's JSON",
    group: 'Entities',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/relations/info',
    query: 'fromId={{msg.entityId}}&fromType=DEVICE',
    what: 'the relations from an entity',
    group: 'Entities',
    authorities: ALL,
  },
  {
    method: 'GET',
    path: '/api/plugins/telemetry/CUSTOMER/{{msg.customerId}}/values/attributes/SERVER_SCOPE',
    what: "a customer's attributes",
    group: 'Data',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/plugins/telemetry/DEVICE/{{msg.deviceId}}/values/timeseries',
    what: "a device's latest time series",
    group: 'Data',
    authorities: TENANT_CUSTOMER,
  },
  { method: 'GET', path: '/api/alarm/{{msg.alarmId}}', what: 'an alarm', group: 'Data', authorities: TENANT_CUSTOMER },
  {
    method: 'GET',
    path: '/api/audit/logs',
    // The server sorts only when asked (AuditLogController's sortProperty/sortOrder): newest first is asked here.
    query: `${PAGE}&sortProperty=createdTime&sortOrder=DESC`,
    what: 'the audit log, newest first',
    group: 'Audit and files',
    authorities: ['SYS_ADMIN', 'TENANT_ADMIN'],
  },
  {
    method: 'GET',
    path: '/api/audit/logs/entity/DEVICE/{{msg.deviceId}}',
    query: PAGE,
    what: "a device's audit log",
    group: 'Audit and files',
    authorities: ['SYS_ADMIN', 'TENANT_ADMIN'],
  },
  {
    method: 'GET',
    path: '/api/otaPackages',
    query: PAGE,
    what: 'the OTA packages (firmware, software), a page',
    group: 'Audit and files',
    since: '3.3',
    authorities: TENANT_CUSTOMER,
  },
  {
    method: 'GET',
    path: '/api/otaPackage/{{msg.otaPackageId}}/download',
    what: "an OTA package's file",
    group: 'Audit and files',
    since: '3.3',
    authorities: TENANT,
    answer: 'file',
  },
  {
    method: 'GET',
    path: '/api/images',
    query: PAGE,
    what: 'the image gallery, a page',
    group: 'Audit and files',
    since: '3.7',
    authorities: ['SYS_ADMIN', 'TENANT_ADMIN'],
  },
  {
    method: 'GET',
    path: '/api/notifications',
    query: 'pageSize=10&page=0&unreadOnly=true',
    what: "the user's unread notifications",
    group: 'Notifications',
    since: '3.5',
    authorities: ALL,
  },
  {
    method: 'GET',
    path: '/api/notifications/unread/count',
    what: "the user's unread count (a number)",
    group: 'Notifications',
    since: '3.5',
    authorities: ALL,
    answer: 'number',
  },
  {
    method: 'POST',
    path: '/api/rule-engine/',
    what: 'msg.payload into the rule chains as the user; the reply',
    group: 'Rule engine',
    since: '3.8',
    authorities: ALL,
  },
  {
    method: 'GET',
    path: '/api/auth/user',
    what: 'the user the connection signs in as',
    group: 'Server',
    authorities: ALL,
  },
  {
    method: 'GET',
    path: '/api/system/info',
    what: "the server's version",
    group: 'Server',
    since: '3.3.3',
    authorities: ALL,
  },
  {
    method: 'GET',
    path: '/api/usage',
    what: "the tenant's usage and limits",
    group: 'Server',
    since: '3.5',
    authorities: TENANT,
  },
  {
    method: 'GET',
    path: '/api/noauth/userPasswordPolicy',
    what: 'the password policy (no login: sent without the token)',
    group: 'Server',
    authorities: ALL,
  },
];

/** `a >= b` for ThingsBoard versions (`4.3.1.2`, `3.8`; a suffix such as `-SNAPSHOT` ignored). */
export function versionAtLeast(a: string, b: string): boolean {
  const parts = (v: string): number[] =>
    v
      .split(/[^0-9.]/)[0]
      .split('.')
      .map((x) => Number(x) || 0);
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/**
 * The suggestions for a server: those its version has (every one when the version is unknown) and its user's
 * authority may call (every one when unknown), in the list's order.
 */
export function suggestionsFor(version: string | null, authority: string | null): ApiPathSuggestion[] {
  return API_PATHS.filter(
    (s) =>
      (!s.since || version === null || versionAtLeast(version, s.since)) &&
      (authority === null || (s.authorities as readonly string[]).includes(authority)),
  );
}
