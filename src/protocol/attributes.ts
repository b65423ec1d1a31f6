/**
 * Attributes of an entity on the wire (`/api/plugins/telemetry/{entityType}/{entityId}/attributes…`): the scopes a
 * read may ask for and a save may write, and the shape of a read's answer. No I/O, no Node-RED.
 */
import { TbError } from '../errors';
import { ATTRIBUTE_SCOPES, type AttributeScope } from './types';
import { describe, isObject } from './validate';

/** The node's scope choices: the three scopes, `any` (read only: all three, each in its own place). */
export const SCOPE_CHOICES = [...ATTRIBUTE_SCOPES, 'any'] as const;

export type ScopeChoice = (typeof SCOPE_CHOICES)[number];

/** Scopes a save may write: the server refuses CLIENT_SCOPE (400 "Invalid scope"), the device owns it. */
export const WRITABLE_SCOPES: readonly AttributeScope[] = ['SERVER_SCOPE', 'SHARED_SCOPE'];

/** An attribute as the server answers it. */
export interface AttributeKv {
  key: string;
  value: unknown;
  lastUpdateTs: number;
}

/** Checks the answer of a read: a list of `{key, value, lastUpdateTs}`. */
export function checkAttributeList(answer: unknown): AttributeKv[] {
  if (!Array.isArray(answer))
    throw new TbError(
      'TB_BAD_RESPONSE',
      `ThingsBoard answered an attribute read with ${describe(answer)}, not a list of attributes`,
    );
  return answer.filter((a): a is AttributeKv => isObject(a) && typeof a.key === 'string');
}
