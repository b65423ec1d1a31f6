import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { prepareAlarmDataQuery, prepareEntityDataQuery } from '../../src/protocol/validate';
import {
  compactQuery,
  formatQuery,
  locatePath,
  offsetAt,
  parseJsonText,
  positionAt,
  shortJsonMessage,
} from '../../src/query-model/json-text';
import { defaultQuery } from '../../src/query-model/schema';

/** The 1-based line and column of the first occurrence of `needle` in `text`. */
function at(text: string, needle: string, nth = 0): { line: number; column: number } {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = text.indexOf(needle, i + 1);
  assert.ok(i >= 0, `${needle} not in text`);
  const p = positionAt(text, i);
  return { line: p.line, column: p.column };
}

function failure(text: string): { message: string; line: number; column: number } {
  const r = parseJsonText(text);
  assert.equal(r.ok, false, 'should not parse');
  if (r.ok) throw new Error('unreachable');
  return { message: r.message, line: r.line, column: r.column };
}

describe('query/json-text', () => {
  describe('positionAt / offsetAt', () => {
    it('convert between offsets and 1-based lines and columns', () => {
      const text = 'ab\ncd\r\nef';
      assert.deepEqual(positionAt(text, 0), { line: 1, column: 1, offset: 0 });
      assert.deepEqual(positionAt(text, 2), { line: 1, column: 3, offset: 2 });
      assert.deepEqual(positionAt(text, 3), { line: 2, column: 1, offset: 3 });
      assert.deepEqual(positionAt(text, 7), { line: 3, column: 1, offset: 7 });
      assert.deepEqual(positionAt(text, 99), { line: 3, column: 3, offset: 9 });
      assert.deepEqual(positionAt(text, -4), { line: 1, column: 1, offset: 0 });
      for (let o = 0; o <= text.length; o++) {
        const p = positionAt(text, o);
        assert.equal(offsetAt(text, p.line, p.column), o, `offset ${o}`);
      }
      assert.equal(offsetAt(text, 9, 1), text.length);
      assert.equal(offsetAt(text, 1, 99), 2);
    });
  });

  describe('parseJsonText', () => {
    it('parses good JSON', () => {
      assert.deepEqual(parseJsonText('{"a": [1, true, null]}'), { ok: true, value: { a: [1, true, null] } });
      assert.deepEqual(parseJsonText(' 42 '), { ok: true, value: 42 });
    });

    it('points at the error from "at position N"', () => {
      const text = '{\n  "a": 1\n  "b": 2\n}';
      const f = failure(text);
      assert.match(f.message, /JSON/);
      assert.deepEqual({ line: f.line, column: f.column }, at(text, '"b"'));
    });

    it('points at the error when the message has no position (V8: Unexpected token ... is not valid JSON)', () => {
      const text = '{\n  "entityFilter": {\n    "type": }\n}';
      const f = failure(text);
      assert.deepEqual({ line: f.line, column: f.column }, { line: 3, column: 13 });
      const t2 = '{\n  "a": tru\n}';
      assert.deepEqual(failure(t2).line, 2);
      const t3 = '[1,\n 2,\n x]';
      assert.deepEqual({ line: failure(t3).line, column: failure(t3).column }, { line: 3, column: 2 });
    });

    it('points at the end for an unexpected end', () => {
      const text = '{\n  "a": [1, 2';
      const f = failure(text);
      assert.deepEqual({ line: f.line, column: f.column }, { line: 2, column: 13 });
      assert.deepEqual(failure(''), { ...failure(''), line: 1, column: 1 });
    });

    it('reads "(line X column Y)" and Firefox\'s "at line X column Y" forms', () => {
      const saved = JSON.parse;
      const text = 'ab\ncdef\ng';
      try {
        for (const message of [
          "Expected property name or '}' in JSON at position 5 (line 2 column 3)",
          "JSON.parse: expected property name or '}' at line 2 column 3 of the JSON data",
        ]) {
          (JSON as { parse: unknown }).parse = () => {
            throw new SyntaxError(message);
          };
          const r = parseJsonText(text);
          assert.deepEqual(r, { ok: false, message, line: 2, column: 3, offset: 5 });
        }
        (JSON as { parse: unknown }).parse = () => {
          throw new SyntaxError('Something went wrong');
        };
        // No position in the message and nothing wrong in the text for the scanner: the end.
        assert.deepEqual(parseJsonText('[1]'), {
          ok: false,
          message: 'Something went wrong',
          line: 1,
          column: 4,
          offset: 3,
        });
      } finally {
        (JSON as { parse: unknown }).parse = saved;
      }
    });

    it('handles strings with escapes, unicode and newlines before the error', () => {
      const text = '{\n  "a": "x\\"y\\u00e9\\n",\n  "b": [1.5e3, -0, {}],\n  "c": \'x\'\n}';
      const f = failure(text);
      assert.deepEqual({ line: f.line, column: f.column }, at(text, "'x'"));
    });
  });

  describe('locatePath', () => {
    const q = {
      entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
      keyFilters: [
        { key: { type: 'TIME_SERIES', key: 'a' }, predicate: { type: 'NUMERIC', operation: 'GREATER', value: 1 } },
        { key: { type: 'TIME_SERIES', key: 'b' }, predicate: { type: 'NUMERIC', operation: 'LESSER', value: 2 } },
      ],
      pageLink: { pageSize: 0 },
    };
    const text = formatQuery(q);

    it('finds the value at a validator field path (query. optional)', () => {
      const second = at(text, '"LESSER"');
      assert.deepEqual(pick(locatePath(text, 'query.keyFilters[1].predicate.operation')), second);
      assert.deepEqual(pick(locatePath(text, 'keyFilters[1].predicate.operation')), second);
      assert.deepEqual(pick(locatePath(text, 'keyFilters.1.predicate.operation')), second);
      assert.deepEqual(pick(locatePath(text, ['keyFilters', 1, 'predicate', 'operation'])), second);
      assert.deepEqual(pick(locatePath(text, 'msg.payload.keyFilters[1].predicate.operation')), second);
      assert.deepEqual(pick(locatePath(text, 'query.entityFilter.deviceTypes[0]')), at(text, '"thermostat"'));
      assert.deepEqual(pick(locatePath(text, 'query.keyFilters[0]')), { line: 9, column: 5 });
      assert.deepEqual(pick(locatePath(text, 'query')), { line: 1, column: 1 });
    });

    it("agrees with the runtime validator's error fields", () => {
      let err: unknown;
      try {
        prepareEntityDataQuery(q);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof TbInputError);
      assert.equal(err.field, 'query.keyFilters[1].predicate.operation');
      assert.deepEqual(pick(locatePath(text, err.field)), at(text, '"LESSER"'));
      const bad = { ...defaultQuery('alarmData'), pageLink: { severityList: ['CRITICAL', 'HIGH'] } };
      const t2 = formatQuery(bad);
      try {
        prepareAlarmDataQuery(bad);
      } catch (e) {
        assert.deepEqual(pick(locatePath(t2, (e as TbInputError).field)), at(t2, '"HIGH"'));
      }
    });

    it('is undefined for a missing path, or gives the nearest ancestor when asked', () => {
      assert.equal(locatePath(text, 'query.pageLink.page'), undefined);
      assert.equal(locatePath(text, 'query.keyFilters[5]'), undefined);
      assert.equal(locatePath(text, 'query.entityFilter.type.x'), undefined);
      assert.deepEqual(pick(locatePath(text, 'query.pageLink.page', { nearest: true })), at(text, '{\n    "pageSize"'));
      assert.deepEqual(pick(locatePath(text, 'query.latestValues[0].key', { nearest: true })), { line: 1, column: 1 });
    });

    it('uses the last of repeated keys (as JSON.parse) and keys that need escapes', () => {
      const t = '{"a": 1, "x\\"y": {"b": 2}, "a": [3]}';
      assert.equal(locatePath(t, 'a')!.offset, t.lastIndexOf('[3]'));
      assert.equal(locatePath(t, ['x"y', 'b'])!.offset, t.indexOf('2'));
    });

    it('works on a text that is broken after the value', () => {
      const t = '{\n  "entityFilter": {"type": "x"},\n  "pageLink": {\n    "pageSize": 0,\n';
      assert.deepEqual(pick(locatePath(t, 'query.pageLink.pageSize')), { line: 4, column: 17 });
      assert.equal(locatePath('', 'a'), undefined);
      assert.equal(locatePath('nope', 'a'), undefined);
    });
  });

  describe('formatQuery / compactQuery', () => {
    it('print with 2 spaces, or on one line', () => {
      const q = defaultQuery('entityCount');
      assert.equal(
        formatQuery(q),
        '{\n  "entityFilter": {\n    "type": "entityType",\n    "entityType": "DEVICE"\n  },\n  "keyFilters": []\n}',
      );
      assert.equal(compactQuery(q), '{"entityFilter":{"type":"entityType","entityType":"DEVICE"},"keyFilters":[]}');
      assert.deepEqual(JSON.parse(formatQuery(q)), q);
      assert.equal(formatQuery(undefined), '');
      assert.equal(compactQuery(undefined), '');
    });
  });
});

function pick(p: { line: number; column: number } | undefined): { line: number; column: number } | undefined {
  return p && { line: p.line, column: p.column };
}

describe('shortJsonMessage', () => {
  it("drops the engine's excerpt and position, keeps what is wrong", () => {
    assert.equal(
      shortJsonMessage('Unexpected token \'D\', ..."ityType": DEVICE\n  }"... is not valid JSON'),
      "Unexpected token 'D'",
    );
    assert.equal(shortJsonMessage('Unexpected token } in JSON at position 15'), 'Unexpected token } in JSON');
    assert.equal(
      shortJsonMessage("Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
      "Expected property name or '}' in JSON",
    );
    assert.equal(
      shortJsonMessage('JSON.parse: unexpected character at line 2 column 3 of the JSON data'),
      'JSON.parse: unexpected character',
    );
    assert.equal(shortJsonMessage('Unexpected end of JSON input'), 'Unexpected end of JSON input');
  });
});
