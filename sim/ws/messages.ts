/**
 * The server-to-client message shapes, serialised with the field order of the server and with
 * null fields present. Every builder returns the final JSON text (one stringify per message).
 *
 * The field order is Jackson 2.x's (the server writes these with `JacksonUtil.OBJECT_MAPPER`): the properties of the
 * class's creator come first, in the creator's parameter order (`MapperFeature.SORT_CREATOR_PROPERTIES_FIRST`, on by
 * default), then the others, fields from the top of the class hierarchy down, then getters. The update classes
 * (`WS2/EntityDataUpdate.java`, `AlarmDataUpdate.java`, `EntityCountUpdate.java`, `AlarmCountUpdate.java`) have
 * `@JsonCreator` constructors taking (cmdId, data, update, errorCode, errorMsg[, allowedEntities, totalEntities]) and
 * (cmdId, count, errorCode, errorMsg), so `data` and `update`, or `count`, come before `errorCode`, not in
 * the order the classes declare their fields.
 * AlarmStatusUpdate's constructor names `present`, which is not a property it writes, so its order is unchanged.
 */
import type { AlarmData, EntityData, PageData } from '../types';

/** Shape (b): the legacy TelemetrySubscriptionUpdate keyed by subscriptionId (validation/dispatcher errors). */
export function legacyError(subscriptionId: number, errorCode: number, errorMsg: string): string {
  return (
    `{"subscriptionId":${subscriptionId},"errorCode":${errorCode},"errorMsg":${JSON.stringify(errorMsg)},` +
    `"data":null,"latestValues":{}}`
  );
}

/** The one-off notice of the per-session update rate limit (a raw string on the server, no `data`). */
export function tooManyUpdates(subscriptionId: number): string {
  return `{"subscriptionId":${subscriptionId},"errorCode":34,"errorMsg":"Too many updates!"}`;
}

export const PARSE_ERROR = legacyError(1, 2, 'Failed to parse the payload');

export function entityDataPage(cmdId: number, page: PageData<EntityData>, allowed: number): string {
  return (
    `{"cmdId":${cmdId},"data":${JSON.stringify(page)},"update":null,"errorCode":0,"errorMsg":null,` +
    `"allowedEntities":${allowed},"cmdUpdateType":"ENTITY_DATA"}`
  );
}

export function entityDataUpdate(cmdId: number, update: EntityData[] | string, allowed: number): string {
  return (
    entityDataUpdateHead(cmdId) +
    (typeof update === 'string' ? update : JSON.stringify(update)) +
    entityDataUpdateTail(allowed)
  );
}

/** An EntityDataUpdate's text up to its `update` array (for messages built in parts on the live path). */
export function entityDataUpdateHead(cmdId: number): string {
  return `{"cmdId":${cmdId},"data":null,"update":`;
}

/** An EntityDataUpdate's text after its `update` array. */
export function entityDataUpdateTail(allowed: number): string {
  return `,"errorCode":0,"errorMsg":null,"allowedEntities":${allowed},"cmdUpdateType":"ENTITY_DATA"}`;
}

/** Shape (a): an error raised inside the data services, as an EntityDataUpdate (allowedEntities 0). */
export function entityDataError(cmdId: number, errorCode: number, errorMsg: string): string {
  return (
    `{"cmdId":${cmdId},"data":null,"update":null,"errorCode":${errorCode},` +
    `"errorMsg":${JSON.stringify(errorMsg)},"allowedEntities":0,"cmdUpdateType":"ENTITY_DATA"}`
  );
}

export function alarmDataPage(cmdId: number, page: PageData<AlarmData>, allowed: number, total: number): string {
  return (
    `{"cmdId":${cmdId},"data":${JSON.stringify(page)},"update":null,"errorCode":0,"errorMsg":null,` +
    `"allowedEntities":${allowed},"totalEntities":${total},"cmdUpdateType":"ALARM_DATA"}`
  );
}

export function alarmDataUpdate(cmdId: number, update: AlarmData[], allowed: number, total: number): string {
  return (
    `{"cmdId":${cmdId},"data":null,"update":${JSON.stringify(update)},"errorCode":0,"errorMsg":null,` +
    `"allowedEntities":${allowed},"totalEntities":${total},"cmdUpdateType":"ALARM_DATA"}`
  );
}

export function countData(cmdId: number, count: number): string {
  return `{"cmdId":${cmdId},"count":${count},"errorCode":0,"errorMsg":null,"cmdUpdateType":"COUNT_DATA"}`;
}

export function alarmCountData(cmdId: number, count: number): string {
  return `{"cmdId":${cmdId},"count":${count},"errorCode":0,"errorMsg":null,"cmdUpdateType":"ALARM_COUNT_DATA"}`;
}

export function alarmStatus(cmdId: number, active: boolean): string {
  return `{"cmdId":${cmdId},"errorCode":0,"errorMsg":null,"active":${active},"cmdUpdateType":"ALARM_STATUS"}`;
}

/** `"key":{"ts":…,"value":"…"}` */
export function tsValueEntry(key: string, ts: number, value: string): string {
  return `${JSON.stringify(key)}:{"ts":${ts},"value":${JSON.stringify(value)}}`;
}
