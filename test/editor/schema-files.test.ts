/**
 * The JSON schemas of the four kinds of query, written at build time (scripts/bundle-editor.js) into
 * resources/schemas/ and served with the editor resources: they are the runtime's own jsonSchema(mode) (the one
 * the query field's JSON view attaches), and they judge the corpus of real ThingsBoard queries
 * (test/fixtures/tb-queries.json) as the runtime's validation does.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { TbInputError } from '../../src/errors';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../src/protocol/validate';
import { jsonSchema, QUERY_MODES, type QueryMode } from '../../src/query-model/schema';

const root = path.resolve(__dirname, '..', '..');
const DIR = path.join(root, 'resources', 'schemas');

/** The file of each mode, as scripts/bundle-editor.js names them. */
const FILES: Record<QueryMode, string> = {
  entityData: 'entity-data-query.json',
  entityCount: 'entity-count-query.json',
  alarmData: 'alarm-data-query.json',
  alarmCount: 'alarm-count-query.json',
};

const PREPARE: Record<QueryMode, (q: unknown) => unknown> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

interface CorpusEntry {
  id: string;
  mode: QueryMode;
  query: unknown;
}

const read = (mode: QueryMode): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(DIR, FILES[mode]), 'utf8'));

describe('query schemas served with the editor resources (resources/schemas/)', function () {
  it('are one file per kind of query, and nothing else (npm run build writes them)', function () {
    assert.ok(fs.existsSync(DIR), 'resources/schemas/ is missing: run `npm run build` (npm test does)');
    assert.deepEqual(Object.keys(FILES).sort(), [...QUERY_MODES].sort());
    assert.deepEqual(fs.readdirSync(DIR).sort(), Object.values(FILES).sort());
    const ignore = fs.readFileSync(path.join(root, '.gitignore'), 'utf8').split('\n');
    assert.ok(ignore.includes('resources/schemas/'), 'generated, so git-ignored');
  });

  for (const mode of QUERY_MODES) {
    it(`${FILES[mode]}: equals the runtime's jsonSchema('${mode}'), a valid draft-07 schema`, function () {
      const schema = read(mode);
      assert.deepEqual(schema, JSON.parse(JSON.stringify(jsonSchema(mode))));
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
      const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true });
      assert.ok(ajv.validateSchema(schema), JSON.stringify(ajv.errors));
    });
  }

  it('judge every query of the corpus as the runtime does (valid where the runtime accepts it, and only there)', function () {
    const corpus: CorpusEntry[] = JSON.parse(
      fs.readFileSync(path.join(root, 'test', 'fixtures', 'tb-queries.json'), 'utf8'),
    );
    const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    const validate = Object.fromEntries(QUERY_MODES.map((m) => [m, ajv.compile(read(m))]));
    const differ: string[] = [];
    let accepted = 0;
    for (const e of corpus) {
      let runtime = true;
      try {
        PREPARE[e.mode](JSON.parse(JSON.stringify(e.query)));
      } catch (err) {
        if (!(err instanceof TbInputError)) throw err;
        runtime = false;
      }
      const schema = validate[e.mode](e.query) as boolean;
      if (runtime) accepted++;
      if (schema !== runtime) {
        differ.push(
          `${e.id} (${e.mode}): schema ${schema ? 'accepts' : 'refuses'}, ` +
            `runtime ${runtime ? 'accepts' : 'refuses'} ${JSON.stringify(validate[e.mode].errors)}`,
        );
      }
    }
    assert.deepEqual(differ, []);
    assert.ok(accepted >= corpus.length - 2, `the runtime accepts ${accepted} of ${corpus.length}`);
    for (const mode of QUERY_MODES)
      assert.ok(
        corpus.some((e) => e.mode === mode),
        `the corpus has ${mode} queries`,
      );
  });
});
