import assert from 'node:assert/strict';
import { prepareEntityId } from '../../../src/protocol/validate';
import { U1, throwsInput } from '../helpers';

describe('query/validate/ids: entity ids', () => {
  describe('prepareEntityId', () => {
    it('validates a plain entity id', () => {
      assert.deepEqual(prepareEntityId({ entityType: 'DEVICE', id: U1, extra: 1 }, 'originator'), {
        entityType: 'DEVICE',
        id: U1,
      });
      throwsInput(
        () => prepareEntityId({ entityType: 'CURRENT_USER' }, 'originator'),
        'originator.entityType',
        '(got "CURRENT_USER")',
      );
      throwsInput(() => prepareEntityId({ entityType: 'DEVICE', id: 'x' }, 'originator'), 'originator.id', 'UUID');
    });
  });
});
