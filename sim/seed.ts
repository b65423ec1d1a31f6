/**
 * The default deterministic dataset (see README.md for the table of names and counts).
 * Ids come from Dataset.nextId (a counter), times from BASE_TIME: two builds give identical data.
 */
import { BASE_TIME, HOUR, type Dataset, type SimEntity } from './dataset';
import type { NotificationCenter } from './notifications';
import { NULL_UUID, type AlarmSeverity, type Authority } from './types';
import { dbl, type KvInput } from './values';

export interface UserAccount {
  email: string;
  password: string;
  authority: Authority;
  userId: string;
  tenantId: string;
  customerId: string | null;
  firstName: string;
  lastName: string;
  enabled: boolean;
  /** login answers a PRE_VERIFICATION_TOKEN */
  mfa: boolean;
}

export interface ApiKeyRecord {
  value: string;
  userId: string;
  enabled: boolean;
  /** epoch ms; 0 = never */
  expirationTime: number;
  description: string;
}

/** The valid tenant-admin API key: `tb_` + 86 URL-safe characters (64 bytes, like the server's generator). */
export const TENANT_API_KEY =
  'tb_ky7FMopp80JJdZ3_ViRCvhi-eXlClJ51xPm5sElMc_BtVy3tQFakE3X4lPbqIYRCDrM2RkSjnF-I3c7jV4WTJQ';
/** A key that exists but is disabled (401/10 "User account is not active"). */
export const DISABLED_API_KEY =
  'tb_dIsAbLeD0000000000000000000000000000000000000000000000000000000000000000000000000000000';
/** A key that exists but expired on 2025-12-31 (401/10 "API key is expired"). */
export const EXPIRED_API_KEY =
  'tb_eXpIrEd00000000000000000000000000000000000000000000000000000000000000000000000000000000';
/** A customer-user ("customer@thingsboard.org") API key. */
export const CUSTOMER_API_KEY =
  'tb_cUsToMeR0000000000000000000000000000000000000000000000000000000000000000000000000000000';

export interface SeedInfo {
  users: UserAccount[];
  apiKeys: ApiKeyRecord[];
}

const DAY = 24 * HOUR;

/** The per-floor device table: [suffix, temperature, humidity] for thermostats; undefined = key missing. */
type Thermo = [string, KvInput | undefined, KvInput | undefined];
const THERMOS: Record<string, Thermo[]> = {
  'A-1': [
    ['A-101', 21.5, 40],
    ['A-102', dbl(23), 45],
    ['A-103', 26.5, 38],
  ],
  'A-2': [
    ['A-201', dbl(19), 55],
    ['A-202', 24.25, undefined],
    ['A-203', 22, 50],
  ],
  'B-1': [
    ['B-101', 27.5, 35],
    ['B-102', 'n/a', '45'],
    ['B-103', 20.5, 60],
  ],
  'B-2': [
    ['B-201', 25, 42],
    ['B-202', undefined, 48],
    ['B-203', 18.5, 52],
  ],
  'G-1': [
    ['G-101', dbl(29), 30],
    ['G-102', dbl(21), 41],
    ['G-103', 23.5, 44],
  ],
  'G-2': [
    ['G-201', 22.5, 47],
    ['G-202', 30.5, 33],
    ['G-203', 17.5, 58],
  ],
};
const METERS: Record<string, [string, KvInput, KvInput]> = {
  'A-1': ['A-100', 1.5, 1200],
  'A-2': ['A-200', 2.25, 800],
  'B-1': ['B-100', 0.75, 450],
  'B-2': ['B-200', dbl(3), 1500],
  'G-1': ['G-100', 1.25, 950],
  'G-2': ['G-200', 5.5, 2100],
};

/** Deterministic hourly history ending at BASE_TIME with `last` as the newest point. */
function addSeries(ds: Dataset, e: SimEntity, key: string, last: KvInput, wobble: number): void {
  if (
    typeof last === 'number' ||
    (typeof last === 'object' && last !== null && 'value' in last && typeof last.value === 'number')
  ) {
    const lastNum = typeof last === 'number' ? last : (last as { value: number }).value;
    const isDouble = typeof last === 'object' || !Number.isInteger(lastNum);
    for (let h = 24; h >= 1; h--) {
      const delta = Math.round(Math.sin((h + wobble) / 3) * 20) / 10; // one decimal
      const v = lastNum + delta;
      ds.setTelemetry(e, { [key]: isDouble ? dbl(v) : Math.round(v) }, BASE_TIME - h * HOUR);
    }
  }
  ds.setTelemetry(e, { [key]: last }, BASE_TIME);
}

export function seedDataset(ds: Dataset, opts: { extraDevices?: number; empty?: boolean } = {}): SeedInfo {
  let created = BASE_TIME - 30 * DAY;
  const nextCreated = (): number => (created += 60_000);
  const add = (spec: Parameters<Dataset['addEntity']>[0]): SimEntity =>
    ds.addEntity({ createdTime: nextCreated(), ...spec });

  // --- tenant, customers --------------------------------------------------------------------------------------
  const tenant = add({
    entityType: 'TENANT',
    name: 'Tenant',
    tenantId: undefined,
    fields: {
      email: 'tenant@thingsboard.org',
      country: 'Ukraine',
      state: null,
      city: 'Kyiv',
      address: 'Main st. 1',
      address2: null,
      zip: '01001',
      phone: '+380000000000',
      region: 'Global',
    },
  });
  ds.setAttributes(
    tenant,
    'SERVER_SCOPE',
    { tempThreshold: 25, modelPrefix: 'TH', alertsEnabled: true },
    BASE_TIME - 10 * DAY,
  );

  const custA = add({
    entityType: 'CUSTOMER',
    name: 'Customer A',
    fields: {
      email: 'a@example.com',
      country: 'Ukraine',
      state: null,
      city: 'Lviv',
      address: 'Rynok sq. 1',
      address2: null,
      zip: '79000',
      phone: '+380000000001',
    },
  });
  const custB = add({
    entityType: 'CUSTOMER',
    name: 'Customer B',
    fields: {
      email: 'b@example.com',
      country: 'Germany',
      state: 'Berlin',
      city: 'Berlin',
      address: 'Unter den Linden 5',
      address2: null,
      zip: '10117',
      phone: null,
    },
  });
  const custC = add({
    entityType: 'CUSTOMER',
    name: 'Customer C',
    fields: {
      email: 'c@example.com',
      country: 'France',
      state: null,
      city: 'Paris',
      address: null,
      address2: null,
      zip: null,
      phone: null,
    },
  });
  ds.setAttributes(custA, 'SERVER_SCOPE', { tempThreshold: dbl(22.5), modelPrefix: 'TH-1' }, BASE_TIME - 10 * DAY);
  ds.setAttributes(custC, 'SERVER_SCOPE', { tempThreshold: 30 }, BASE_TIME - 10 * DAY);

  // --- users -------------------------------------------------------------------------------------------------
  const users: UserAccount[] = [];
  const addUser = (
    email: string,
    password: string,
    authority: Authority,
    customer: SimEntity | null,
    firstName: string,
    lastName: string,
    extra: Partial<UserAccount> = {},
  ): SimEntity => {
    const isSys = authority === 'SYS_ADMIN';
    const u = add({
      entityType: 'USER',
      name: email,
      customerId: customer?.id ?? null,
      tenantId: isSys ? NULL_UUID : tenant.id,
      fields: { email, firstName, lastName, phone: null },
    });
    users.push({
      email,
      password,
      authority,
      userId: u.id,
      tenantId: isSys ? NULL_UUID : tenant.id,
      customerId: customer?.id ?? null,
      firstName,
      lastName,
      enabled: true,
      mfa: false,
      ...extra,
    });
    return u;
  };
  const tenantAdmin = addUser('tenant@thingsboard.org', 'tenant', 'TENANT_ADMIN', null, 'Tenant', 'Admin');
  const tech = addUser('tech@thingsboard.org', 'tech', 'TENANT_ADMIN', null, 'Terry', 'Tech');
  const custUser = addUser('customer@thingsboard.org', 'customer', 'CUSTOMER_USER', custA, 'Carol', 'Customer');
  addUser('customerb@thingsboard.org', 'customer', 'CUSTOMER_USER', custB, 'Bob', 'Buyer');
  addUser('mfa@thingsboard.org', 'mfa', 'TENANT_ADMIN', null, 'Mfa', 'User', { mfa: true });
  addUser('disabled@thingsboard.org', 'disabled', 'TENANT_ADMIN', null, 'Disabled', 'User', { enabled: false });
  addUser('sysadmin@thingsboard.org', 'sysadmin', 'SYS_ADMIN', null, 'System', 'Administrator');
  ds.setAttributes(tenantAdmin, 'SERVER_SCOPE', { favoriteModel: 'TH-200', threshold: 21 }, BASE_TIME - 10 * DAY);
  ds.setAttributes(custUser, 'SERVER_SCOPE', { threshold: 24 }, BASE_TIME - 10 * DAY);

  const apiKeys: ApiKeyRecord[] = [
    {
      value: TENANT_API_KEY,
      userId: tenantAdmin.id,
      enabled: true,
      expirationTime: 0,
      description: 'simulator tenant key',
    },
    { value: DISABLED_API_KEY, userId: tenantAdmin.id, enabled: false, expirationTime: 0, description: 'disabled key' },
    {
      value: EXPIRED_API_KEY,
      userId: tenantAdmin.id,
      enabled: true,
      expirationTime: BASE_TIME - DAY,
      description: 'expired key',
    },
    { value: CUSTOMER_API_KEY, userId: custUser.id, enabled: true, expirationTime: 0, description: 'customer key' },
  ];

  // --- system-level and profile entities ----------------------------------------------------------------------
  add({ entityType: 'TENANT_PROFILE', name: 'Default', tenantId: NULL_UUID });
  add({ entityType: 'RULE_CHAIN', name: 'Root Rule Chain' });
  add({ entityType: 'API_USAGE_STATE', name: 'Tenant' });
  for (const c of [custA, custB, custC]) add({ entityType: 'API_USAGE_STATE', name: c.name, customerId: c.id });
  for (const p of ['default', 'thermostat', 'meter']) add({ entityType: 'DEVICE_PROFILE', name: p, type: 'DEFAULT' });
  if ((opts.extraDevices ?? 0) > 0) add({ entityType: 'DEVICE_PROFILE', name: 'bench', type: 'DEFAULT' });
  for (const p of ['default', 'site', 'building', 'floor']) add({ entityType: 'ASSET_PROFILE', name: p });

  if (opts.empty) {
    ds.setBenchCount(opts.extraDevices ?? 0);
    return { users, apiKeys };
  }

  // --- assets ------------------------------------------------------------------------------------------------
  const campus = add({ entityType: 'ASSET', name: 'Campus North', type: 'site', label: 'North campus' });
  const buildings: Record<string, SimEntity> = {
    A: add({ entityType: 'ASSET', name: 'Building Alpha', type: 'building', label: 'HQ', customerId: custA.id }),
    B: add({ entityType: 'ASSET', name: 'Building Beta', type: 'building', label: '', customerId: custB.id }),
    G: add({ entityType: 'ASSET', name: 'Building Gamma', type: 'building', label: null }),
  };
  const names: Record<string, string> = { A: 'Alpha', B: 'Beta', G: 'Gamma' };
  const buildingAttrs: Record<string, Record<string, KvInput>> = {
    A: { address: 'Rynok sq. 1', floorCount: 2, area: 1250.5 },
    B: { address: 'Unter den Linden 5', floorCount: 2, area: dbl(900) },
    G: { address: 'Gamma road 7', floorCount: 2, area: 2000.75 },
  };
  ds.addRelation(campus, buildings.A, 'Contains');
  ds.addRelation(campus, buildings.B, 'Contains');
  const floors: Record<string, SimEntity> = {};
  for (const b of ['A', 'B', 'G']) {
    ds.setAttributes(buildings[b], 'SERVER_SCOPE', buildingAttrs[b], BASE_TIME - 5 * DAY);
    for (const n of [1, 2]) {
      const f = add({
        entityType: 'ASSET',
        name: `${names[b]} Floor ${n}`,
        type: 'floor',
        label: `Level ${n}`,
        customerId: buildings[b].customerId,
      });
      ds.setAttributes(f, 'SERVER_SCOPE', { level: n }, BASE_TIME - 5 * DAY);
      ds.addRelation(buildings[b], f, 'Contains');
      floors[`${b}-${n}`] = f;
    }
  }

  // --- devices -----------------------------------------------------------------------------------------------
  const models: Record<string, string> = { A: 'TH-100', B: 'TH-200', G: 'TH-100' };
  let wobble = 0;
  for (const floorKey of Object.keys(THERMOS)) {
    const b = floorKey[0];
    const floor = floors[floorKey];
    const customerId = floor.customerId;
    const [msuffix, power, energy] = METERS[floorKey];
    const meter = add({
      entityType: 'DEVICE',
      name: `Meter ${msuffix}`,
      type: 'meter',
      label: 'Main meter',
      customerId,
    });
    ds.addRelation(floor, meter, 'Contains');
    addSeries(ds, meter, 'power', power, wobble++);
    addSeries(ds, meter, 'energy', energy, wobble++);
    ds.setAttributes(meter, 'SERVER_SCOPE', { active: true, model: 'MT-1' }, BASE_TIME - 2 * DAY);
    ds.setAttributes(
      meter,
      'CLIENT_SCOPE',
      { fw: '2.0.0', serial: `SN-${msuffix.replace('-', '')}` },
      BASE_TIME - 3 * DAY,
    );
    for (const [suffix, temperature, humidity] of THERMOS[floorKey]) {
      const room = suffix.slice(2);
      // labels: "Room 101"; the third thermostat of A floors has '' and of B floors null
      const label = room.endsWith('3') && b === 'A' ? '' : room.endsWith('3') && b === 'B' ? null : `Room ${room}`;
      const d = add({ entityType: 'DEVICE', name: `Thermo ${suffix}`, type: 'thermostat', label, customerId });
      ds.addRelation(floor, d, 'Contains');
      if (temperature !== undefined) addSeries(ds, d, 'temperature', temperature, wobble++);
      if (humidity !== undefined) addSeries(ds, d, 'humidity', humidity, wobble++);
      const inactive = suffix === 'B-102' || suffix === 'B-202';
      ds.setAttributes(
        d,
        'SERVER_SCOPE',
        { active: !inactive, model: suffix === 'G-102' ? 'TH-200' : models[b] },
        BASE_TIME - 2 * DAY,
      );
      ds.setAttributes(d, 'SHARED_SCOPE', { targetTemperature: dbl(21), reportingInterval: 60 }, BASE_TIME - 4 * DAY);
      ds.setAttributes(
        d,
        'CLIENT_SCOPE',
        { fw: b === 'A' ? '1.2.0' : '1.3.1', serial: `SN-${suffix.replace('-', '')}` },
        BASE_TIME - 3 * DAY,
      );
    }
  }
  const a101 = ds.mustFindByName('DEVICE', 'Thermo A-101');
  ds.setAttributes(a101, 'SHARED_SCOPE', { config: { mode: 'eco', interval: 60 } }, BASE_TIME - 4 * DAY);
  ds.setAttributes(a101, 'SERVER_SCOPE', { note: 'server note' }, BASE_TIME - 3 * DAY);
  ds.setAttributes(a101, 'CLIENT_SCOPE', { note: 'client note' }, BASE_TIME - 2 * DAY);

  const gateway = add({ entityType: 'DEVICE', name: 'Gateway 1', type: 'default', label: 'GW' });
  ds.addRelation(floors['G-1'], gateway, 'Contains');
  ds.setTelemetry(gateway, { status: 'online', uptime: 86400, cpu: 12.5 }, BASE_TIME);
  ds.setAttributes(gateway, 'SERVER_SCOPE', { active: true, model: 'GW-X' }, BASE_TIME - 2 * DAY);
  const lab = add({ entityType: 'DEVICE', name: 'Thermo Lab', type: 'thermostat', label: 'Lab' });
  ds.addRelation(gateway, lab, 'Manages');
  addSeries(ds, lab, 'temperature', dbl(24), wobble++);
  addSeries(ds, lab, 'humidity', 50, wobble++);
  ds.setAttributes(lab, 'SERVER_SCOPE', { active: true, model: 'TH-300' }, BASE_TIME - 2 * DAY);
  add({ entityType: 'DEVICE', name: 'Spare Sensor', type: 'default', label: null });
  const c1 = add({
    entityType: 'DEVICE',
    name: 'Thermo C-1',
    type: 'thermostat',
    label: 'Lobby',
    customerId: custC.id,
  });
  addSeries(ds, c1, 'temperature', 21.5, wobble++);
  addSeries(ds, c1, 'humidity', 39, wobble);
  ds.setAttributes(c1, 'SERVER_SCOPE', { active: true, model: 'TH-100' }, BASE_TIME - 2 * DAY);
  ds.addRelation(buildings.A, ds.mustFindByName('DEVICE', 'Meter A-100'), 'Manages');

  // --- entity views, edges, dashboards --------------------------------------------------------------------------
  const view = (name: string, type: string, of: string): void => {
    const target = ds.mustFindByName('DEVICE', of);
    const v = add({ entityType: 'ENTITY_VIEW', name, type, customerId: target.customerId });
    v.viewOf = { entityType: 'DEVICE', id: target.id };
  };
  view('View A-101', 'roomView', 'Thermo A-101');
  view('View B-101', 'roomView', 'Thermo B-101');
  view('Meter View G', 'meterView', 'Meter G-100');
  add({ entityType: 'EDGE', name: 'Edge North', type: 'default', label: 'North' });
  add({ entityType: 'EDGE', name: 'Edge South', type: 'gateway', label: '', customerId: custA.id });
  add({ entityType: 'DASHBOARD', name: 'Main Dashboard', assignedCustomerIds: [custA.id] });
  add({ entityType: 'DASHBOARD', name: 'Ops Dashboard', assignedCustomerIds: [] });
  add({ entityType: 'DASHBOARD', name: 'Customer B Dashboard', assignedCustomerIds: [custB.id] });

  // --- alarms ------------------------------------------------------------------------------------------------
  type AlarmRow = [
    string,
    string,
    AlarmSeverity,
    'AU' | 'AA' | 'CU' | 'CA',
    number,
    string | null,
    Partial<Parameters<Dataset['createAlarm']>[0]>?,
  ];
  const rows: AlarmRow[] = [
    [
      'Thermo A-101',
      'High Temperature',
      'CRITICAL',
      'AU',
      1,
      null,
      { propagate: true, details: { temperature: 26.5, threshold: 25 } },
    ],
    ['Thermo A-102', 'High Temperature', 'MAJOR', 'AA', 2, tenantAdmin.id],
    [
      'Meter A-100',
      'Power Failure',
      'CRITICAL',
      'CU',
      3,
      null,
      { propagate: true, propagateRelationTypes: ['Contains'] },
    ],
    ['Thermo G-201', 'High Temperature', 'MINOR', 'AA', 4, null],
    ['Thermo A-201', 'Low Humidity', 'MINOR', 'CA', 5, null],
    ['Thermo B-101', 'High Temperature', 'WARNING', 'AU', 6, tech.id, { propagate: true }],
    ['Meter G-200', 'Power Failure', 'WARNING', 'AA', 7, null],
    ['Thermo B-102', 'Device Offline', 'INDETERMINATE', 'AU', 8, null],
    ['Thermo B-201', 'Device Offline', 'CRITICAL', 'CA', 9, null],
    ['Meter B-100', 'Power Failure', 'MAJOR', 'AU', 10, null, { propagateToOwner: true, propagateToTenant: true }],
    ['Thermo G-101', 'High Temperature', 'CRITICAL', 'AA', 12, tenantAdmin.id],
    ['Thermo A-202', 'High Temperature', 'INDETERMINATE', 'AA', 15, null],
    ['Gateway 1', 'Device Offline', 'MAJOR', 'CA', 20, null],
    ['Thermo C-1', 'Low Humidity', 'WARNING', 'CU', 26, null],
    ['Building Beta', 'Maintenance Due', 'MINOR', 'AU', 30, null],
    ['Thermo A-103', 'Device Offline', 'INDETERMINATE', 'CA', 48, tech.id],
  ];
  for (const [origName, type, severity, st, hoursAgo, assignee, extra] of rows) {
    const orig = ds.findByName('DEVICE', origName) ?? ds.mustFindByName('ASSET', origName);
    const createdTime = BASE_TIME - hoursAgo * HOUR;
    const a = ds.createAlarm({
      originator: orig,
      type,
      severity,
      createdTime,
      endTs: createdTime + 5 * 60_000,
      ...extra,
    });
    if (st === 'AA' || st === 'CA') ds.ackAlarm(a.id, createdTime + 10 * 60_000);
    if (st === 'CU' || st === 'CA') ds.clearAlarm(a.id, createdTime + 20 * 60_000);
    if (assignee) ds.assignAlarm(a.id, assignee, createdTime + 15 * 60_000);
  }

  ds.setBenchCount(opts.extraDevices ?? 0);
  return { users, apiKeys };
}

/**
 * The notification center's demo data: five targets, two templates, and three notifications in the tenant
 * administrator's inbox (two unread), all of the tenant "Tenant".
 */
export function seedNotifications(n: NotificationCenter, ds: Dataset, users: readonly UserAccount[]): void {
  const tenant = ds.findByName('TENANT', 'Tenant');
  const custA = ds.findByName('CUSTOMER', 'Customer A');
  const admin = users.find((u) => u.email === 'tenant@thingsboard.org');
  const tech = users.find((u) => u.email === 'tech@thingsboard.org');
  if (!tenant || !custA || !admin || !tech) return;
  let created = BASE_TIME - 10 * DAY;
  const at = (): number => (created += 60_000);
  const t = tenant.id;
  n.addTarget(t, 'All users', { type: 'PLATFORM_USERS', usersFilter: { type: 'ALL_USERS' } }, at());
  n.addTarget(
    t,
    'Tenant administrators',
    { type: 'PLATFORM_USERS', usersFilter: { type: 'TENANT_ADMINISTRATORS' } },
    at(),
  );
  n.addTarget(
    t,
    'Customer A users',
    { type: 'PLATFORM_USERS', usersFilter: { type: 'CUSTOMER_USERS', customerId: custA.id } },
    at(),
  );
  n.addTarget(
    t,
    'Night shift',
    { type: 'PLATFORM_USERS', usersFilter: { type: 'USER_LIST', usersIds: [tech.userId] }, description: 'Terry' },
    at(),
  );
  n.addTarget(
    t,
    'Ops channel',
    { type: 'MICROSOFT_TEAMS', webhookUrl: 'https://example.invalid/webhook/ops', channelName: 'Ops' },
    at(),
  );
  n.addTemplate(
    t,
    'Critical alarm',
    'GENERAL',
    {
      WEB: { subject: 'Critical alarm', body: '${recipientFirstName}, a critical alarm needs your attention.' },
      EMAIL: { subject: 'Critical alarm', body: '<p>${recipientTitle}, a critical alarm needs your attention.</p>' },
    },
    at(),
  );
  n.addTemplate(
    t,
    'Maintenance window',
    'GENERAL',
    { WEB: { subject: 'Maintenance tonight', body: 'The platform is down for maintenance from 22:00 to 23:00.' } },
    at(),
  );
  n.addNotification({
    recipientId: admin.userId,
    subject: 'Welcome',
    text: 'Welcome to the notification center.',
    createdTime: BASE_TIME - 2 * DAY,
    status: 'READ',
  });
  n.addNotification({
    recipientId: admin.userId,
    subject: 'Firmware update available',
    text: 'Firmware 1.3.1 is ready for the A thermostats.',
    createdTime: BASE_TIME - 3 * HOUR,
  });
  n.addNotification({
    recipientId: admin.userId,
    subject: 'Maintenance due',
    text: 'Building Beta is due for maintenance.',
    createdTime: BASE_TIME - HOUR,
  });
}
