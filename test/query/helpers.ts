import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';

export const U1 = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
export const U2 = '8a1b2c30-e71c-11f0-9d7e-8b1f2c3d4e5f';
export const U3 = '0C2F4E50-E000-11F0-9D7E-8B1F2C3D4E5F';

/**
 * Asserts that `fn` throws a TbInputError whose `field` is `field`, whose message starts with that field path and
 * contains every fragment.
 */
export function throwsInput(fn: () => unknown, field: string, ...fragments: string[]): TbInputError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof TbInputError, `expected a TbInputError, got ${String(caught)}`);
  const err = caught as TbInputError;
  assert.equal(err.code, 'TB_INVALID_INPUT');
  assert.equal(err.field, field, `field of: ${err.message}`);
  assert.ok(err.message.startsWith(field), `message should start with ${field}: ${err.message}`);
  for (const f of fragments)
    assert.ok(err.message.includes(f), `message should contain ${JSON.stringify(f)}: ${err.message}`);
  return err;
}
