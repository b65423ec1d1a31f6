import assert from 'node:assert/strict';
import { ENTITY_FILTER_TYPES } from '../../../src/protocol/types';
import { UUID_PATTERN } from '../../../src/protocol/validate';
import { ENTITY_FILTER_SCHEMA } from '../../../src/query-model/schema/filters';
import { jsonSchema } from '../../../src/query-model/schema/json-schema';
import { defaultQuery } from '../../../src/query-model/schema/modes';
import { QUERY_MODES, type QueryMode } from '../../../src/query-model/schema/spec';
import { fullFilter, schemaOk, validator, variants } from './support';

describe('query/schema/json-fields: JSON schema of the fields and filter types', () => {
  it("uses the validator's own UUID pattern and enum lists", () => {
    const text = JSON.stringify(jsonSchema('alarmData'));
    assert.ok(text.includes(JSON.stringify(UUID_PATTERN)));
    for (const t of ENTITY_FILTER_TYPES) assert.ok(text.includes(`{"const":"${t}"}`), t);
  });

  it('accepts the default queries and every full filter of the table', () => {
    for (const m of QUERY_MODES)
      assert.ok(schemaOk(m, defaultQuery(m)), `${m}: ${JSON.stringify(validator(m).errors)}`);
    for (const t of ENTITY_FILTER_TYPES) {
      for (const base of variants(ENTITY_FILTER_SCHEMA[t])) {
        const entityFilter = fullFilter(ENTITY_FILTER_SCHEMA[t], base);
        for (const m of QUERY_MODES) {
          assert.ok(
            schemaOk(m, { ...defaultQuery(m), entityFilter }),
            `${m} ${JSON.stringify(entityFilter)}: ${JSON.stringify(validator(m).errors)}`,
          );
        }
      }
    }
  });
  it('describes the fields for the editor (titles from the table)', () => {
    const s = jsonSchema('entityData') as {
      definitions: { entityFilter: { oneOf: { title: string; properties: Record<string, { title?: string }> }[] } };
    };
    const device = s.definitions.entityFilter.oneOf.find((b) => b.title === ENTITY_FILTER_SCHEMA.deviceType.label)!;
    assert.equal(
      device.properties.deviceTypes.title ??
        (device.properties.deviceTypes as { anyOf: { title: string }[] }).anyOf[0].title,
      'Device profiles',
    );
    assert.throws(() => jsonSchema('x' as QueryMode), /unknown query mode/);
  });
});
