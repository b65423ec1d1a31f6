import assert from 'node:assert/strict';
import {
  BOOLEAN_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  NUMERIC_OPERATIONS,
  STRING_OPERATIONS,
  type KeyFilter,
} from '../../../src/protocol/types';
import {
  impliedValueType,
  jacksonDouble,
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../../src/protocol/validate';
import { throwsInput } from '../helpers';

const entityFilter = { type: 'entityType', entityType: 'DEVICE' };
const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const TEMP = { type: 'TIME_SERIES', key: 'temperature' };
const K = 'query.keyFilters';

function keyFilters(kf: unknown): KeyFilter[] {
  return prepareEntityCountQuery({ entityFilter, keyFilters: kf }).keyFilters as KeyFilter[];
}
function one(kf: unknown): KeyFilter {
  return keyFilters([kf])[0];
}
function pred(predicate: unknown, valueType = 'NUMERIC'): KeyFilter {
  return one({ key: TEMP, valueType, predicate });
}
/** The prepared value of a simple predicate. */
function valueOf(predicate: unknown, valueType = 'NUMERIC'): unknown {
  return (pred(predicate, valueType).predicate as { value: unknown }).value;
}

describe('query/validate/key-filters: keys and key filters', () => {
  it('defaults to an empty array and keeps keyFiltersOperation', () => {
    assert.deepEqual(prepareEntityCountQuery({ entityFilter }), { entityFilter, keyFilters: [] });
    assert.deepEqual(prepareEntityCountQuery({ entityFilter, keyFilters: null, keyFiltersOperation: 'OR' }), {
      entityFilter,
      keyFilters: [],
      keyFiltersOperation: 'OR',
    });
    throwsInput(
      () => prepareEntityCountQuery({ entityFilter, keyFiltersOperation: 'XOR' }),
      'query.keyFiltersOperation',
      'one of AND, OR',
      '(got "XOR")',
    );
    throwsInput(
      () => prepareEntityCountQuery({ entityFilter, keyFiltersOperation: 'or' }),
      'query.keyFiltersOperation',
      'did you mean "OR"?',
    );
    throwsInput(() => prepareEntityCountQuery({ entityFilter, keyFilters: {} }), K, 'must be an array of key filters');
  });

  it('strips unknown fields from the key filter, key, predicate and value', () => {
    const kf = keyFilters([
      {
        key: { ...TEMP, label: 'Temperature' },
        valueType: 'NUMERIC',
        value: 20, // UI-only field
        predicate: {
          type: 'NUMERIC',
          operation: 'GREATER',
          value: { defaultValue: 20, userValue: null, dynamicValue: null, extra: 1 },
          ignoreCase: true, // only STRING predicates have ignoreCase
        },
      },
    ]);
    assert.deepEqual(kf, [
      {
        key: TEMP,
        valueType: 'NUMERIC',
        predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20 } },
      },
    ]);
  });

  describe('key and valueType', () => {
    it('checks the key', () => {
      throwsInput(
        () => one({ valueType: 'NUMERIC', predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 } }),
        `${K}[0].key`,
        'must be a key',
        '(missing)',
      );
      throwsInput(
        () =>
          one({
            key: { type: 'TELEMETRY', key: 't' },
            valueType: 'NUMERIC',
            predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 },
          }),
        `${K}[0].key.type`,
        'one of ATTRIBUTE, CLIENT_ATTRIBUTE, SHARED_ATTRIBUTE, SERVER_ATTRIBUTE, TIME_SERIES, ENTITY_FIELD',
        '(got "TELEMETRY")',
      );
      throwsInput(
        () =>
          one({ key: { type: 'time_series', key: 't' }, predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 } }),
        `${K}[0].key.type`,
        'did you mean "TIME_SERIES"?',
      );
      throwsInput(
        () =>
          one({
            key: { type: 'ALARM_FIELD', key: 'severity' },
            predicate: { type: 'STRING', operation: 'EQUAL', value: 'x' },
          }),
        `${K}[0].key.type`,
        'ALARM_FIELD',
        'only allowed in an alarm query',
      );
      throwsInput(
        () =>
          one({ key: { type: 'TIME_SERIES', key: '' }, predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 } }),
        `${K}[0].key.key`,
        'non-empty string',
        '(got "")',
      );
      throwsInput(
        () => one({ key: { type: 'TIME_SERIES' }, predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 } }),
        `${K}[0].key.key`,
        '(missing)',
      );
    });

    it('checks valueType and accepts all four', () => {
      for (const vt of ['STRING', 'NUMERIC', 'BOOLEAN', 'DATE_TIME']) {
        assert.equal(pred({ type: 'NUMERIC', operation: 'EQUAL', value: 1 }, vt).valueType, vt);
      }
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: 1 }, 'NUMBER'),
        `${K}[0].valueType`,
        'one of STRING, NUMERIC, BOOLEAN, DATE_TIME',
        '(got "NUMBER")',
      );
    });

    it('takes a missing valueType from the predicate', () => {
      assert.equal(
        one({ key: TEMP, predicate: { type: 'NUMERIC', operation: 'EQUAL', value: 1 } }).valueType,
        'NUMERIC',
      );
      assert.equal(
        one({ key: TEMP, predicate: { type: 'STRING', operation: 'EQUAL', value: 'a' } }).valueType,
        'STRING',
      );
      assert.equal(
        one({ key: TEMP, predicate: { type: 'BOOLEAN', operation: 'EQUAL', value: true } }).valueType,
        'BOOLEAN',
      );
      assert.equal(
        one({
          key: TEMP,
          predicate: {
            type: 'COMPLEX',
            operation: 'OR',
            predicates: [
              {
                type: 'COMPLEX',
                operation: 'AND',
                predicates: [{ type: 'BOOLEAN', operation: 'EQUAL', value: false }],
              },
            ],
          },
        }).valueType,
        'BOOLEAN',
      );
    });

    it('accepts every non-alarm key type', () => {
      for (const t of [
        'ATTRIBUTE',
        'CLIENT_ATTRIBUTE',
        'SHARED_ATTRIBUTE',
        'SERVER_ATTRIBUTE',
        'TIME_SERIES',
        'ENTITY_FIELD',
      ]) {
        assert.deepEqual(
          one({ key: { type: t, key: 'k' }, predicate: { type: 'STRING', operation: 'EQUAL', value: 'v' } }).key,
          { type: t, key: 'k' },
        );
      }
    });
  });

  describe('STRING predicates', () => {
    it('accepts every operation, with ignoreCase kept', () => {
      for (const op of STRING_OPERATIONS) {
        assert.deepEqual(
          pred({ type: 'STRING', operation: op, value: { defaultValue: 'abc' }, ignoreCase: true }, 'STRING').predicate,
          {
            type: 'STRING',
            operation: op,
            value: { defaultValue: 'abc' },
            ignoreCase: true,
          },
        );
      }
      assert.equal(STRING_OPERATIONS.length, 8);
    });

    it('needs a string value and a valid operation', () => {
      throwsInput(
        () => pred({ type: 'STRING', operation: 'LIKE', value: 'a' }),
        `${K}[0].predicate.operation`,
        'one of EQUAL, NOT_EQUAL, STARTS_WITH, ENDS_WITH, CONTAINS, NOT_CONTAINS, IN, NOT_IN',
        '(got "LIKE")',
      );
      throwsInput(
        () => pred({ type: 'STRING', operation: 'contains', value: 'a' }),
        `${K}[0].predicate.operation`,
        'did you mean "CONTAINS"?',
      );
      throwsInput(() => pred({ type: 'STRING', value: 'a' }), `${K}[0].predicate.operation`, '(missing)');
      throwsInput(
        () => pred({ type: 'STRING', operation: 'EQUAL', value: 5 }),
        `${K}[0].predicate.value`,
        'must be a string or an object {defaultValue',
        '(got 5)',
      );
      throwsInput(
        () => pred({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: 5 } }),
        `${K}[0].predicate.value.defaultValue`,
        'must be a string',
        '(got 5)',
      );
      throwsInput(() => pred({ type: 'STRING', operation: 'EQUAL' }), `${K}[0].predicate.value`, '(missing)');
      throwsInput(
        () => pred({ type: 'STRING', operation: 'EQUAL', value: 'a', ignoreCase: 'yes' }),
        `${K}[0].predicate.ignoreCase`,
        'true or false',
      );
    });

    it('accepts the empty string', () => {
      assert.deepEqual(pred({ type: 'STRING', operation: 'EQUAL', value: '' }).predicate, {
        type: 'STRING',
        operation: 'EQUAL',
        value: { defaultValue: '' },
      });
    });
  });

  describe('NUMERIC predicates', () => {
    it('accepts every operation', () => {
      for (const op of NUMERIC_OPERATIONS) {
        assert.deepEqual(pred({ type: 'NUMERIC', operation: op, value: { defaultValue: -1.5 } }).predicate, {
          type: 'NUMERIC',
          operation: op,
          value: { defaultValue: -1.5 },
        });
      }
      assert.equal(NUMERIC_OPERATIONS.length, 6);
    });

    it('needs a finite number', () => {
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'CONTAINS', value: 1 }),
        `${K}[0].predicate.operation`,
        'one of EQUAL, NOT_EQUAL, GREATER, LESS, GREATER_OR_EQUAL, LESS_OR_EQUAL',
        '(got "CONTAINS")',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: 'abc' }),
        `${K}[0].predicate.value`,
        'a finite number',
        'its text such as "20"',
        '(got "abc")',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: Number.NaN }),
        `${K}[0].predicate.value`,
        'a finite number',
        '(got NaN)',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: { defaultValue: Infinity } }),
        `${K}[0].predicate.value.defaultValue`,
        '(got Infinity)',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: { defaultValue: true } }),
        `${K}[0].predicate.value.defaultValue`,
        'a finite number',
        '(got true)',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: {} }),
        `${K}[0].predicate.value.defaultValue`,
        '(missing)',
        'unless userValue or dynamicValue gives the value',
      );
    });

    // Jackson (jackson-databind 2.19 NumberDeserializers.DoubleDeserializer#_parseDouble) reads these JSON strings
    // into the Double of FilterPredicateValue<Double>; the WebSocket must get the number (strict parsing, §6.9).
    const TEXTS: Array<[string, number | null | undefined]> = [
      ['20', 20],
      [' 20 ', 20],
      ['\t20\n', 20],
      ['2e1', 20],
      ['2E+1', 20],
      ['+20', 20],
      ['-20.5', -20.5],
      ['.5', 0.5],
      ['5.', 5],
      ['007', 7],
      ['', null],
      ['   ', null],
      ['null', null],
      [' null ', null],
      ['abc', undefined],
      ['0x10', undefined],
      ['20d', undefined],
      ['1,5', undefined],
      ['2 0', undefined],
      ['Null', undefined],
      ['\u00a020', undefined], // a no-break space is not trimmed by Java's String.trim()
    ];
    for (const [text, expected] of TEXTS) {
      it(`reads the text ${JSON.stringify(text)} as Jackson does: ${String(expected)}`, () => {
        assert.equal(jacksonDouble(text), expected);
      });
    }

    it('jacksonDouble: the special values are exact, untrimmed names', () => {
      assert.ok(Number.isNaN(jacksonDouble('NaN')));
      assert.equal(jacksonDouble('Infinity'), Infinity);
      assert.equal(jacksonDouble('INF'), Infinity);
      assert.equal(jacksonDouble('-Infinity'), -Infinity);
      assert.equal(jacksonDouble('-INF'), -Infinity);
      assert.equal(jacksonDouble(' NaN'), undefined);
      assert.equal(jacksonDouble('1e999'), Infinity);
    });

    it('sends a numeric text as the number, in defaultValue, userValue, resolvedValue and the shorthand', () => {
      assert.deepEqual(pred({ type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: '20' } }).predicate, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: { defaultValue: 20 },
      });
      assert.deepEqual(pred({ type: 'NUMERIC', operation: 'GREATER', value: ' 2e1 ' }).predicate, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: { defaultValue: 20 },
      });
      assert.deepEqual(
        pred({
          type: 'NUMERIC',
          operation: 'GREATER',
          value: {
            defaultValue: '1',
            userValue: '+25',
            dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'limit', resolvedValue: '30.5' },
          },
        }).predicate,
        {
          type: 'NUMERIC',
          operation: 'GREATER',
          value: {
            defaultValue: 1,
            userValue: 25,
            dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'limit', resolvedValue: 30.5 },
          },
        },
      );
    });

    it('treats "", blank and "null" text as no value, as the server does', () => {
      // userValue "" is no userValue: the defaultValue applies
      assert.deepEqual(valueOf({ type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 5, userValue: '' } }), {
        defaultValue: 5,
      });
      // defaultValue "" is fine when a dynamic value gives the value
      assert.deepEqual(
        valueOf({
          type: 'NUMERIC',
          operation: 'LESS',
          value: { defaultValue: ' ', dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } },
        }),
        {
          defaultValue: null,
          dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' },
        },
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 'null' } }),
        `${K}[0].predicate.value.defaultValue`,
        '(got "null"), which the server reads as no value',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'LESS', value: '' }),
        `${K}[0].predicate.value`,
        '(got ""), which the server reads as no value',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'LESS', value: 'NaN' }),
        `${K}[0].predicate.value`,
        'a finite number',
        '(got "NaN")',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 1, userValue: '1e999' } }),
        `${K}[0].predicate.value.userValue`,
        'a finite number',
      );
    });

    it('coerces text only for NUMERIC values (STRING and BOOLEAN are unchanged)', () => {
      throwsInput(
        () => pred({ type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: 'true' } }),
        `${K}[0].predicate.value.defaultValue`,
        'true or false',
      );
      throwsInput(
        () => pred({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: 20 } }),
        `${K}[0].predicate.value.defaultValue`,
        'must be a string',
      );
    });
  });

  describe('BOOLEAN predicates', () => {
    it('accepts every operation', () => {
      for (const op of BOOLEAN_OPERATIONS) {
        assert.deepEqual(pred({ type: 'BOOLEAN', operation: op, value: false }, 'BOOLEAN').predicate, {
          type: 'BOOLEAN',
          operation: op,
          value: { defaultValue: false },
        });
      }
    });

    it('needs a boolean', () => {
      throwsInput(
        () => pred({ type: 'BOOLEAN', operation: 'GREATER', value: true }),
        `${K}[0].predicate.operation`,
        'one of EQUAL, NOT_EQUAL',
        '(got "GREATER")',
      );
      throwsInput(
        () => pred({ type: 'BOOLEAN', operation: 'EQUAL', value: 'true' }),
        `${K}[0].predicate.value`,
        'true or false',
        '(got "true")',
      );
      throwsInput(
        () => pred({ type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: 1 } }),
        `${K}[0].predicate.value.defaultValue`,
        'true or false',
        '(got 1)',
      );
    });
  });

  describe('predicate type', () => {
    it('must be one of the four', () => {
      throwsInput(
        () => pred({ operation: 'EQUAL', value: 1 }),
        `${K}[0].predicate.type`,
        'one of STRING, NUMERIC, BOOLEAN, COMPLEX',
        '(missing)',
      );
      throwsInput(
        () => pred({ type: 'numeric', operation: 'EQUAL', value: 1 }),
        `${K}[0].predicate.type`,
        'did you mean "NUMERIC"?',
      );
      throwsInput(
        () => one({ key: TEMP, valueType: 'NUMERIC' }),
        `${K}[0].predicate`,
        'must be a predicate',
        '(missing)',
      );
    });
  });

  describe('FilterPredicateValue', () => {
    it('turns a bare scalar into {defaultValue}', () => {
      assert.deepEqual(pred({ type: 'NUMERIC', operation: 'GREATER', value: 20 }).predicate, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: { defaultValue: 20 },
      });
      assert.deepEqual(pred({ type: 'STRING', operation: 'EQUAL', value: 'x' }).predicate, {
        type: 'STRING',
        operation: 'EQUAL',
        value: { defaultValue: 'x' },
      });
    });

    it('keeps userValue, a dynamicValue and its resolvedValue, drops nulls', () => {
      assert.deepEqual(
        pred({
          type: 'NUMERIC',
          operation: 'GREATER',
          value: {
            defaultValue: 20,
            userValue: 25,
            dynamicValue: {
              sourceType: 'CURRENT_TENANT',
              sourceAttribute: 'limit',
              inherit: false,
              resolvedValue: 30,
              extra: 1,
            },
          },
        }).predicate,
        {
          type: 'NUMERIC',
          operation: 'GREATER',
          // REST find uses a client-sent resolvedValue as is (DefaultEntityQueryService#setResolvedValue)
          value: {
            defaultValue: 20,
            userValue: 25,
            dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'limit', inherit: false, resolvedValue: 30 },
          },
        },
      );
      assert.deepEqual(
        pred({
          type: 'STRING',
          operation: 'EQUAL',
          value: {
            defaultValue: '',
            dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a', resolvedValue: null },
          },
        }).predicate,
        {
          type: 'STRING',
          operation: 'EQUAL',
          value: { defaultValue: '', dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a' } },
        },
      );
      throwsInput(
        () =>
          pred({
            type: 'STRING',
            operation: 'EQUAL',
            value: {
              defaultValue: '',
              dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a', resolvedValue: 3 },
            },
          }),
        `${K}[0].predicate.value.dynamicValue.resolvedValue`,
        'must be a string',
        '(got 3)',
      );
    });

    it('accepts a value given by userValue alone (the server uses userValue first)', () => {
      assert.deepEqual(
        pred({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: null, userValue: 'abc' } }, 'STRING')
          .predicate,
        {
          type: 'STRING',
          operation: 'EQUAL',
          value: { defaultValue: null, userValue: 'abc' },
        },
      );
      assert.deepEqual(valueOf({ type: 'NUMERIC', operation: 'EQUAL', value: { userValue: 3 } }), {
        defaultValue: null,
        userValue: 3,
      });
      assert.deepEqual(valueOf({ type: 'BOOLEAN', operation: 'EQUAL', value: { userValue: false } }), {
        defaultValue: null,
        userValue: false,
      });
      assert.deepEqual(
        pred({ type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1, userValue: null, dynamicValue: null } })
          .predicate,
        {
          type: 'NUMERIC',
          operation: 'GREATER',
          value: { defaultValue: 1 },
        },
      );
    });

    it('allows a missing defaultValue when a dynamicValue is given', () => {
      assert.deepEqual(
        pred({
          type: 'NUMERIC',
          operation: 'LESS',
          value: { dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } },
        }).predicate,
        {
          type: 'NUMERIC',
          operation: 'LESS',
          value: { defaultValue: null, dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } },
        },
      );
    });

    it('accepts every dynamic source type and checks the dynamic value', () => {
      for (const st of DYNAMIC_VALUE_SOURCE_TYPES) {
        // CURRENT_DEVICE needs a value of its own (see below)
        const value = {
          defaultValue: '',
          userValue: st === 'CURRENT_DEVICE' ? 'x' : null,
          dynamicValue: { sourceType: st, sourceAttribute: 'a' },
        };
        const p = pred({ type: 'STRING', operation: 'EQUAL', value }).predicate as {
          value: { dynamicValue: { sourceType: string } };
        };
        assert.equal(p.value.dynamicValue.sourceType, st);
      }
      const P = `${K}[0].predicate.value.dynamicValue`;
      throwsInput(
        () =>
          pred({
            type: 'NUMERIC',
            operation: 'EQUAL',
            value: { defaultValue: 1, dynamicValue: { sourceType: 'TENANT', sourceAttribute: 'a' } },
          }),
        `${P}.sourceType`,
        'one of CURRENT_TENANT, CURRENT_CUSTOMER, CURRENT_USER, CURRENT_DEVICE',
        '(got "TENANT")',
      );
      throwsInput(
        () =>
          pred({
            type: 'NUMERIC',
            operation: 'EQUAL',
            value: { defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_USER' } },
          }),
        `${P}.sourceAttribute`,
        'non-empty string',
        '(missing)',
      );
      throwsInput(
        () =>
          pred({
            type: 'NUMERIC',
            operation: 'EQUAL',
            value: {
              defaultValue: 1,
              dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a', inherit: 'no' },
            },
          }),
        `${P}.inherit`,
        'true or false',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: { defaultValue: 1, dynamicValue: 'CURRENT_USER' } }),
        P,
        'must be an object',
      );
      throwsInput(
        () => pred({ type: 'NUMERIC', operation: 'EQUAL', value: { defaultValue: 1, userValue: 'x' } }),
        `${K}[0].predicate.value.userValue`,
        'a finite number',
        '(got "x")',
      );
    });
  });

  describe('COMPLEX predicates', () => {
    const gt = { type: 'NUMERIC', operation: 'GREATER', value: 20 };
    const lt = { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 30 } };

    it('nests to any depth and cleans every level', () => {
      const out = pred({
        type: 'COMPLEX',
        operation: 'OR',
        junk: 1,
        predicates: [
          gt,
          {
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [lt, { type: 'COMPLEX', operation: 'OR', predicates: [{ ...gt, extra: 1 }] }],
          },
        ],
      }).predicate;
      assert.deepEqual(out, {
        type: 'COMPLEX',
        operation: 'OR',
        predicates: [
          { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20 } },
          {
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [
              { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 30 } },
              {
                type: 'COMPLEX',
                operation: 'OR',
                predicates: [{ type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20 } }],
              },
            ],
          },
        ],
      });
    });

    it('needs AND|OR and a predicates array', () => {
      const P = `${K}[0].predicate`;
      throwsInput(
        () => pred({ type: 'COMPLEX', operation: 'XOR', predicates: [gt] }),
        `${P}.operation`,
        'one of AND, OR',
        '(got "XOR")',
      );
      throwsInput(
        () => pred({ type: 'COMPLEX', operation: 'and', predicates: [gt] }),
        `${P}.operation`,
        'did you mean "AND"?',
      );
      throwsInput(
        () => pred({ type: 'COMPLEX', operation: 'AND' }),
        `${P}.predicates`,
        'an array of predicates',
        '(missing)',
      );
      throwsInput(
        () => pred({ type: 'COMPLEX', operation: 'AND', predicates: gt }),
        `${P}.predicates`,
        '(got an object)',
      );
    });

    it('accepts an empty group, which the server turns into no condition (valueType left out when nothing implies it)', () => {
      assert.deepEqual(one({ key: TEMP, predicate: { type: 'COMPLEX', operation: 'AND', predicates: [] } }), {
        key: TEMP,
        predicate: { type: 'COMPLEX', operation: 'AND', predicates: [] },
      });
      assert.deepEqual(
        one({ key: TEMP, valueType: 'NUMERIC', predicate: { type: 'COMPLEX', operation: 'OR', predicates: [] } }),
        {
          key: TEMP,
          valueType: 'NUMERIC',
          predicate: { type: 'COMPLEX', operation: 'OR', predicates: [] },
        },
      );
      // the first simple predicate, depth first, past an empty group
      assert.equal(
        one({
          key: TEMP,
          predicate: {
            type: 'COMPLEX',
            operation: 'OR',
            predicates: [
              { type: 'COMPLEX', operation: 'AND', predicates: [] },
              { type: 'STRING', operation: 'EQUAL', value: 'x' },
            ],
          },
        }).valueType,
        'STRING',
      );
    });

    it('impliedValueType: the type the runtime implies, also for unchecked input (the builder uses it)', () => {
      const S = { type: 'STRING', operation: 'EQUAL', value: 'x' };
      assert.equal(impliedValueType(S), 'STRING');
      assert.equal(
        impliedValueType({
          type: 'COMPLEX',
          operation: 'OR',
          predicates: [
            { type: 'COMPLEX', predicates: [] },
            { type: 'COMPLEX', predicates: [S] },
          ],
        }),
        'STRING',
      );
      assert.equal(impliedValueType({ type: 'COMPLEX', operation: 'OR', predicates: [] }), undefined);
      for (const odd of [
        undefined,
        null,
        'STRING',
        { type: 'LIKE' },
        { type: 'COMPLEX' },
        { type: 'COMPLEX', predicates: {} },
      ])
        assert.equal(impliedValueType(odd), undefined);
      // a cycle ends at the nesting limit
      const cyclic: { type: string; predicates: unknown[] } = { type: 'COMPLEX', predicates: [] };
      cyclic.predicates.push(cyclic);
      assert.equal(impliedValueType(cyclic), undefined);
    });

    it('reports nested errors with deep paths', () => {
      throwsInput(
        () =>
          keyFilters([
            { key: TEMP, valueType: 'NUMERIC', predicate: gt },
            {
              key: TEMP,
              valueType: 'NUMERIC',
              predicate: {
                type: 'COMPLEX',
                operation: 'OR',
                predicates: [{ type: 'NUMERIC', operation: 'BIGGER', value: 1 }],
              },
            },
          ]),
        `${K}[1].predicate.predicates[0].operation`,
        'GREATER_OR_EQUAL',
        '(got "BIGGER")',
      );
      throwsInput(
        () =>
          pred({
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [
              gt,
              {
                type: 'COMPLEX',
                operation: 'OR',
                predicates: [lt, { type: 'STRING', operation: 'EQUAL', value: { defaultValue: 3 } }],
              },
            ],
          }),
        `${K}[0].predicate.predicates[1].predicates[1].value.defaultValue`,
        'must be a string',
        '(got 3)',
      );
      throwsInput(
        () =>
          pred({
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [gt, { type: 'COMPLEX', operation: 'OR', predicates: {} }],
          }),
        `${K}[0].predicate.predicates[1].predicates`,
        '(got an object)',
      );
    });

    it('refuses absurd nesting (e.g. a cyclic object) with a clear error', () => {
      const cyc: Record<string, unknown> = { type: 'COMPLEX', operation: 'AND' };
      cyc.predicates = [cyc];
      const err = throwsInput(
        () => pred(cyc),
        `${K}[0].predicate${'.predicates[0]'.repeat(32)}.predicates`,
        'deeper than 32',
      );
      assert.ok(err.message.length < 1000);
    });
  });

  describe('CURRENT_DEVICE dynamic values (never resolved in a query)', () => {
    const D = `${K}[0].predicate.value.dynamicValue.sourceType`;
    const entityFilter = { type: 'entityType', entityType: 'DEVICE' };
    const device = (value: Record<string, unknown>) => ({
      entityFilter,
      keyFilters: [
        { key: TEMP, predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20, ...value } } },
      ],
    });
    const dyn = { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' };

    it('REST find: refused, even with a userValue (the server fails on it: DefaultEntityQueryService#resolveDynamicValue)', () => {
      for (const options of [undefined, { live: false }]) {
        throwsInput(
          () => prepareEntityDataQuery(device({ dynamicValue: dyn }), 'query', options),
          D,
          'over REST',
          '"CURRENT_DEVICE"',
          'Not supported operation for source type',
        );
        throwsInput(
          () => prepareEntityDataQuery(device({ userValue: 25, dynamicValue: dyn }), 'query', options),
          D,
          'even when userValue is set',
        );
      }
      // nested in a group too
      throwsInput(
        () =>
          prepareEntityDataQuery({
            entityFilter,
            keyFilters: [
              {
                key: TEMP,
                predicate: {
                  type: 'COMPLEX',
                  operation: 'OR',
                  predicates: [{ type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 1, dynamicValue: dyn } }],
                },
              },
            ],
          }),
        `${K}[0].predicate.predicates[0].value.dynamicValue.sourceType`,
        '"CURRENT_DEVICE"',
      );
    });

    it('REST counts and alarm queries: refused unless a userValue gives the value (they never resolve it)', () => {
      const cases: Array<[string, (q: unknown) => unknown]> = [
        ['REST entity count', (q) => prepareEntityCountQuery(q)],
        ['REST alarm query', (q) => prepareAlarmDataQuery(q)],
        ['REST alarm count', (q) => prepareAlarmCountQuery(q, 'query', { live: false })],
      ];
      for (const [name, prepare] of cases) {
        throwsInput(
          () => prepare(device({ dynamicValue: dyn })),
          D,
          '"CURRENT_DEVICE"',
          'a REST count or alarm query never resolves',
          'silently use defaultValue',
        );
        const q = prepare(device({ userValue: 25, dynamicValue: dyn })) as { keyFilters: KeyFilter[] };
        assert.deepEqual(
          (q.keyFilters[0].predicate as { value: unknown }).value,
          { defaultValue: 20, userValue: 25, dynamicValue: dyn },
          name,
        );
      }
    });

    it('a live subscription: accepted as the server does (the WebSocket skips it and uses userValue or defaultValue)', () => {
      const cases: Array<[string, (q: unknown) => unknown]> = [
        ['live entity data', (q) => prepareEntityDataQuery(q, 'query', { live: true })],
        ['live entity count', (q) => prepareEntityCountQuery(q, 'query', { live: true })],
        ['live alarm data', (q) => prepareAlarmDataQuery(q, 'query', { live: true })],
        ['live alarm count', (q) => prepareAlarmCountQuery(q, 'query', { live: true })],
      ];
      for (const [name, prepare] of cases) {
        for (const value of [{ dynamicValue: dyn }, { userValue: 25, dynamicValue: dyn }]) {
          const q = prepare(device(value)) as { keyFilters: KeyFilter[] };
          assert.deepEqual(
            (q.keyFilters[0].predicate as { value: unknown }).value,
            { defaultValue: 20, ...value },
            name,
          );
        }
      }
    });

    it('accepted everywhere with a resolvedValue, which every path then uses', () => {
      const value = { dynamicValue: { ...dyn, resolvedValue: 30 } };
      for (const live of [false, true]) {
        const q = prepareEntityDataQuery(device(value), 'query', { live });
        assert.deepEqual((q.keyFilters![0].predicate as { value: unknown }).value, {
          defaultValue: 20,
          dynamicValue: { ...dyn, resolvedValue: 30 },
        });
        assert.doesNotThrow(() => prepareEntityCountQuery(device(value), 'query', { live }));
      }
    });

    it('the other sources are accepted on every path', () => {
      for (const sourceType of ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER']) {
        for (const live of [false, true]) {
          assert.doesNotThrow(() =>
            prepareEntityDataQuery(device({ dynamicValue: { sourceType, sourceAttribute: 'a' } }), 'query', { live }),
          );
          assert.doesNotThrow(() =>
            prepareAlarmCountQuery(device({ dynamicValue: { sourceType, sourceAttribute: 'a' } }), 'query', { live }),
          );
        }
      }
    });
  });

  describe('keys of entityFields, latestValues and alarmFields', () => {
    it('checks entityFields and latestValues', () => {
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, entityFields: NAME }),
        'query.entityFields',
        'must be an array of keys',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, entityFields: [NAME, 'label'] }),
        'query.entityFields[1]',
        'must be a key',
        '(got "label")',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, latestValues: [TEMP, { type: 'TIMESERIES', key: 'x' }] }),
        'query.latestValues[1].type',
        'TIME_SERIES',
        '(got "TIMESERIES")',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, latestValues: [{ type: 'ALARM_FIELD', key: 'x' }] }),
        'query.latestValues[0].type',
        'ALARM_FIELD',
      );
    });

    it('allows ALARM_FIELD in alarmFields and sortOrder only', () => {
      throwsInput(
        () => prepareAlarmDataQuery({ entityFilter, entityFields: [{ type: 'ALARM_FIELD', key: 'type' }] }),
        'query.entityFields[0].type',
        'only allowed in an alarm query',
      );
      throwsInput(
        () =>
          prepareAlarmDataQuery({
            entityFilter,
            keyFilters: [
              {
                key: { type: 'ALARM_FIELD', key: 'type' },
                predicate: { type: 'STRING', operation: 'EQUAL', value: 'x' },
              },
            ],
          }),
        'query.keyFilters[0].key.type',
        'only allowed',
      );
      throwsInput(
        () => prepareAlarmDataQuery({ entityFilter, alarmFields: [{ type: 'ALARM', key: 'type' }] }),
        'query.alarmFields[0].type',
        'ALARM_FIELD',
        '(got "ALARM")',
      );
      assert.deepEqual(
        prepareAlarmDataQuery({ entityFilter, alarmFields: [{ type: 'ENTITY_FIELD', key: 'name' }] }).alarmFields,
        [{ type: 'ENTITY_FIELD', key: 'name' }],
      );
    });
  });
});
