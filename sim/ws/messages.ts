/**
 * The server-to-client message shapes (§6.5, §6.6), serialised with the field order of the server and with
 * null fields present. Every builder returns the final JSON text (one stringify per message).
 */
import type { AlarmData, EntityData, PageData } from '../types';

/** Shape (b): the legacy TelemetrySubscriptionUpdate keyed by subscriptionId (validation/dispatcher errors). */
export function legacyError(subscriptionId: number, errorCode: number, errorMsg: string): string {
  return `{"subscriptionId":${subscriptionId},"errorCode":${errorCode},"errorMsg":${JSON.stringify(errorMsg)},"data":null,"latestValues":{}}`;
}

/** §6.8: the one-off notice of the per-session update rate limit (a raw string on the server, no `data`). */
export function tooManyUpdates(subscriptionId: number): string {
  return `{"subscriptionId":${subscriptionId},"errorCode":34,"errorMsg":"Too many updates!"}`;
}

export const PARSE_ERROR = legacyError(1, 2, 'Failed to parse the payload');

export function entityDataPage(cmdId: number, page: PageData<EntityData>, allowed: number): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"data":${JSON.stringify(page)},"update":null,"allowedEntities":${allowed},"cmdUpdateType":"ENTITY_DATA"}`;
}

export function entityDataUpdate(cmdId: number, update: EntityData[] | string, allowed: number): string {
  const u = typeof update === 'string' ? update : JSON.stringify(update);
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"data":null,"update":${u},"allowedEntities":${allowed},"cmdUpdateType":"ENTITY_DATA"}`;
}

/** Shape (a): an error raised inside the data services, as an EntityDataUpdate (allowedEntities 0). */
export function entityDataError(cmdId: number, errorCode: number, errorMsg: string): string {
  return `{"cmdId":${cmdId},"errorCode":${errorCode},"errorMsg":${JSON.stringify(errorMsg)},"data":null,"update":null,"allowedEntities":0,"cmdUpdateType":"ENTITY_DATA"}`;
}

export function alarmDataPage(cmdId: number, page: PageData<AlarmData>, allowed: number, total: number): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"data":${JSON.stringify(page)},"update":null,"allowedEntities":${allowed},"totalEntities":${total},"cmdUpdateType":"ALARM_DATA"}`;
}

export function alarmDataUpdate(cmdId: number, update: AlarmData[], allowed: number, total: number): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"data":null,"update":${JSON.stringify(update)},"allowedEntities":${allowed},"totalEntities":${total},"cmdUpdateType":"ALARM_DATA"}`;
}

export function countData(cmdId: number, count: number): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"count":${count},"cmdUpdateType":"COUNT_DATA"}`;
}

export function alarmCountData(cmdId: number, count: number): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"count":${count},"cmdUpdateType":"ALARM_COUNT_DATA"}`;
}

export function alarmStatus(cmdId: number, active: boolean): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"active":${active},"cmdUpdateType":"ALARM_STATUS"}`;
}

/** `"key":{"ts":…,"value":"…"}` */
export function tsValueEntry(key: string, ts: number, value: string): string {
  return `${JSON.stringify(key)}:{"ts":${ts},"value":${JSON.stringify(value)}}`;
}
