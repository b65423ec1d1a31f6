import assert from 'node:assert/strict';
import { TbInputError } from '../../../src/errors';
import { jsonText, prepareEntityCountQuery } from '../../../src/protocol/validate';

describe('query/validate/primitives: the checks every part uses', () => {
  describe('messages and errors', () => {
    it('jsonText (the "got …" of error messages) never throws: cycles and BigInts are described, long texts cut', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      assert.equal(jsonText({ a: [1, 'x'] }), '{"a":[1,"x"]}');
      assert.equal(jsonText(cyclic), 'an object');
      assert.equal(jsonText([cyclic]), 'an array');
      assert.equal(jsonText(BigInt(7)), '7');
      assert.equal(
        jsonText(() => 1),
        'a function',
      );
      assert.equal(jsonText('y'.repeat(500)), `"${'y'.repeat(198)}…`);
    });

    it('throws TbInputError with the TB_INVALID_INPUT code', () => {
      assert.throws(
        () => prepareEntityCountQuery({}),
        (e: unknown) => e instanceof TbInputError && e.code === 'TB_INVALID_INPUT' && e.name === 'TbInputError',
      );
    });
  });
});
